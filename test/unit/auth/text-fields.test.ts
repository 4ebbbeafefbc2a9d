import { describe, expect, it } from 'vitest';
import { LoginRequest } from '../../../shared/api/auth';
import { TokenPasswordRequest } from '../../../shared/api/invitations';
import { SignupRequest } from '../../../shared/api/signup';
import { OrganisationRequest } from '../../../shared/api/team';
import { EmailAddress, plainText } from '../../../shared/api/text-fields';
import { normaliseEmail } from '../../../server/accounts/account-service';
import { hasLoneSurrogate, isPlainText, isStorablePassword } from '../../../shared/domain/text-hygiene';

const PASSWORD = 'a practice passphrase';
const email = (raw: string) => EmailAddress.safeParse(raw);

describe('the text rules of every request field', () => {
  it.each([
    ['NUL', 'Riverside\u0000 Practice'],
    ['a tab', 'Riverside\tPractice'],
    ['a line feed', 'Riverside\nPractice'],
    ['DEL', 'Riverside\u007f'],
    ['a C1 control', 'Riverside\u0085Practice'],
    ['a lone high surrogate', 'Riverside \ud800'],
    ['a lone low surrogate', '\udc00Riverside'],
    ['a right-to-left override', 'Riverside \u202eecitcarP'],
    ['a line separator', 'Riverside\u2028Practice'],
  ])('refuses %s in one line of text', (_what, text) => {
    expect(isPlainText(text)).toBe(false);
    expect(plainText().safeParse(text).success).toBe(false);
    expect(OrganisationRequest.safeParse({ name: text }).success).toBe(false);
    expect(SignupRequest.safeParse({ practice_name: text, email: 'a@b.example', password: PASSWORD }).success).toBe(
      false,
    );
  });

  it.each(['Riverside Family Practice', 'Clínica São José', '東京クリニック', 'Dr 👩‍⚕️ Practice', 'O’Brien & Co.'])(
    'takes %s as it is',
    (text) => {
      expect(isPlainText(text)).toBe(true);
      expect(OrganisationRequest.parse({ name: ` ${text} ` }).name).toBe(text);
    },
  );

  it('tells a lone surrogate from a pair', () => {
    expect(hasLoneSurrogate('😀')).toBe(false);
    expect(hasLoneSurrogate('😀'.slice(0, 1))).toBe(true);
    expect(hasLoneSurrogate('😀'.slice(1))).toBe(true);
    expect(hasLoneSurrogate('a\udc00\ud83d')).toBe(true);
  });

  it('refuses NUL and lone surrogates in passwords, and nothing else they may hold', () => {
    expect(isStorablePassword('tab\there and more')).toBe(true);
    expect(isStorablePassword('nul\u0000here and more')).toBe(false);
    expect(isStorablePassword('half\ud800 a pair and more')).toBe(false);
    const link = { token: 'a'.repeat(43) };
    expect(TokenPasswordRequest.safeParse({ ...link, password: 'a practice\u0000passphrase' }).success).toBe(false);
    expect(LoginRequest.safeParse({ email: 'a@b.example', password: '\udfff' }).success).toBe(false);
    expect(LoginRequest.safeParse({ email: 'a@b.example', password: PASSWORD }).success).toBe(true);
  });
});

describe('e-mail addresses', () => {
  it.each([
    ['fullwidth letters', 'ｊｏ@ｃｌｉｎｉｃ.example', 'jo@clinic.example'],
    ['the long s', 'meſs@clinic.example', 'mess@clinic.example'],
    ['capitals and spaces', '  Jo.Smith@Clinic.Example ', 'jo.smith@clinic.example'],
    ['a trailing dot', 'jo@clinic.example.', 'jo@clinic.example'],
    ['an international domain in punycode', 'jo@xn--bcher-kva.example', 'jo@xn--bcher-kva.example'],
  ])('normalises %s to the address it reads as', (_what, raw, normal) => {
    expect(email(raw)).toMatchObject({ success: true, data: normal });
    // The accounts are looked up by the same form (the admin CLI's addresses too).
    expect(normaliseEmail(raw)).toBe(normal);
  });

  it.each([
    ['a Cyrillic х', 'dr.\u0445u@clinic.example'],
    ['a zero-width space', 'jo\u200b@clinic.example'],
    ['a zero-width joiner', 'jo@clinic\u200d.example'],
    ['a soft hyphen', 'jo\u00ad@clinic.example'],
    ['a byte order mark', 'jo\ufeff@clinic.example'],
    ['a NUL', 'ex\u0000ists@d.test'],
    ['a lone surrogate', 'jo\ud800@clinic.example'],
    ['a control character', 'jo\u0007@clinic.example'],
    ['an international domain as Unicode', 'jo@bücher.example'],
    ['no domain', 'jo@clinic'],
    ['an address too long', `${'a'.repeat(250)}@b.example`],
  ])('refuses an address with %s', (_what, raw) => {
    expect(email(raw).success).toBe(false);
  });
});
