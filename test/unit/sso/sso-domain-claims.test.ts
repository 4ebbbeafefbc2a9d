import { describe, expect, it } from 'vitest';
import { EmailDomain } from '../../../shared/api/sso';
import { isPublicMailDomain, PUBLIC_MAIL_DOMAINS } from '../../../shared/domain/public-mail-domains';
import { domainClaimRefusal, domainOfEmail } from '../../../shared/domain/sso-domain-claims';

describe('public mail domains', () => {
  it.each([
    'gmail.com',
    'googlemail.com',
    'outlook.com',
    'hotmail.com',
    'live.com',
    'msn.com',
    'yahoo.com',
    'yahoo.com.au',
    'icloud.com',
    'me.com',
    'bigpond.com',
    'bigpond.net.au',
    'optusnet.com.au',
    'iinet.net.au',
    'tpg.com.au',
    'internode.on.net',
    'proton.me',
    'protonmail.com',
    'aol.com',
    'gmx.com',
    'zoho.com',
    'mail.com',
    'fastmail.com',
  ])('%s is one', (domain) => {
    expect(isPublicMailDomain(domain)).toBe(true);
  });

  it('lists only domains a claim could name (lower case, as EmailDomain parses them), and no practice domain', () => {
    for (const domain of PUBLIC_MAIL_DOMAINS) expect(EmailDomain.parse(domain)).toBe(domain);
    expect(isPublicMailDomain('clinic.com.au')).toBe(false);
    expect(isPublicMailDomain('health.gov.au')).toBe(false);
  });
});

describe('domainClaimRefusal', () => {
  const none = new Set<string>();

  it("lets an owner claim exactly their verified address's domain", () => {
    expect(domainOfEmail('Dr.Lee@Clinic.com.au')).toBe('clinic.com.au');
    expect(domainClaimRefusal('clinic.com.au', 'dr.lee@clinic.com.au', none)).toBeNull();
  });

  it('refuses a parent, a subdomain, another domain, and anything when the address is not verified', () => {
    expect(domainClaimRefusal('clinic.com.au', 'dr@mail.clinic.com.au', none)).toBe('sso_domain_not_yours');
    expect(domainClaimRefusal('mail.clinic.com.au', 'dr@clinic.com.au', none)).toBe('sso_domain_not_yours');
    expect(domainClaimRefusal('otherclinic.com.au', 'dr@clinic.com.au', none)).toBe('sso_domain_not_yours');
    expect(domainClaimRefusal('com.au', 'dr@clinic.com.au', none)).toBe('sso_domain_not_yours');
    expect(domainClaimRefusal('clinic.com.au', null, none)).toBe('sso_domain_not_yours');
  });

  it('keeps a domain the organisation already claims, whoever saves; never a public one', () => {
    const held = new Set(['clinic.com.au', 'gmail.com']);
    expect(domainClaimRefusal('clinic.com.au', 'owner@elsewhere.com.au', held)).toBeNull();
    expect(domainClaimRefusal('clinic.com.au', null, held)).toBeNull();
    expect(domainClaimRefusal('gmail.com', 'someone@gmail.com', held)).toBe('sso_public_domain');
  });
});
