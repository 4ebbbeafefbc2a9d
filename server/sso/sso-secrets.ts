import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ContractError } from '../contract-error';

/**
 * The version of the key a sealed secret was made with, first in it: a later SSO_ENCRYPTION_KEY rotation can add v2
 * (a new key) and still open what v1 sealed until it is sealed again.
 */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Organisations' OpenID Connect client secrets at rest: AES-256-GCM under SSO_ENCRYPTION_KEY (32 bytes, base64), a
 * random 12-byte IV each time, the authentication tag kept with it. The organisation's ID is the additional
 * authenticated data: a sealed secret copied into another organisation's settings does not open there.
 *
 * Sealed: `v1.<iv>.<tag>.<ciphertext>`, each part base64url.
 */
export class SsoSecrets {
  private constructor(private readonly key: Buffer) {}

  /** The secrets under SSO_ENCRYPTION_KEY; null when it is unset (then no client secret can be stored). */
  static fromKey(base64Key: string | undefined): SsoSecrets | null {
    if (!base64Key) return null;
    const key = Buffer.from(base64Key, 'base64');
    if (key.length !== 32) throw new Error('SSO_ENCRYPTION_KEY must be 32 bytes in base64');
    return new SsoSecrets(key);
  }

  seal(secret: string, organisationId: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(organisationId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  /** The secret `sealed` holds; throws (never the secret) when it was sealed under another key or tampered with. */
  open(sealed: string, organisationId: string): string {
    const [version, iv, tag, ciphertext, ...rest] = sealed.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined || rest.length > 0) {
      throw new SealedSecretError('not a sealed secret of a known version');
    }
    const ivBytes = Buffer.from(iv, 'base64url');
    const tagBytes = Buffer.from(tag, 'base64url');
    if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new SealedSecretError('malformed');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, ivBytes, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(organisationId, 'utf8'));
      decipher.setAuthTag(tagBytes);
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SealedSecretError('does not open under SSO_ENCRYPTION_KEY (another key, or altered)');
    }
  }
}

/** A sealed secret that cannot be opened: the message says why, never any part of it. */
export class SealedSecretError extends Error {
  constructor(why: string) {
    super(`the stored client secret ${why}`);
    this.name = 'SealedSecretError';
  }
}

/** `secrets`, or the refusal of a client secret on a server without SSO_ENCRYPTION_KEY. */
export function requireSecrets(secrets: SsoSecrets | null): SsoSecrets {
  if (!secrets) throw new ContractError('sso_encryption_unavailable');
  return secrets;
}
