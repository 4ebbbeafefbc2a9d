import { isPublicMailDomain } from './public-mail-domains';

/** Why a domain cannot be claimed: the contract's error codes. */
export type DomainClaimRefusal = 'sso_public_domain' | 'sso_domain_not_yours';

/** The domain of an e-mail address, lower case ('' when it has none). */
export function domainOfEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0 ? '' : email.slice(at + 1).toLowerCase();
}

/**
 * Whether the owner saving the settings may claim `domain` for their organisation, or why not:
 *
 * - a public mail domain never (gmail.com, bigpond.com…);
 * - a domain the organisation already claims stays claimable, whoever claimed it: an owner whose own address changed
 *   since, or another owner's domain, is not lost when the settings are saved again;
 * - any other domain only when it is exactly the domain of the owner's own verified address. Not a parent or a
 *   subdomain of it: an address at mail.clinic.com.au proves nothing of clinic.com.au, nor of other subdomains
 *   (a university's or a health network's), so a practice with several domains has an owner verified at each save
 *   their own.
 *
 * `ownerEmail` is null when the owner's address is not verified: then they claim nothing new.
 */
export function domainClaimRefusal(
  domain: string,
  ownerEmail: string | null,
  alreadyClaimed: ReadonlySet<string>,
): DomainClaimRefusal | null {
  if (isPublicMailDomain(domain)) return 'sso_public_domain';
  if (alreadyClaimed.has(domain)) return null;
  if (ownerEmail !== null && domainOfEmail(ownerEmail) === domain) return null;
  return 'sso_domain_not_yours';
}
