import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';

export const SESSION_SECRET_FILE = 'session-secret';
const MIN_SECRET_LENGTH = 32;

export interface SessionSecret {
  secret: string;
  source: 'environment' | 'file' | 'generated';
  /** Set when the file's permissions were wider than 0600 and have been narrowed. */
  tightenedPermissions?: boolean;
}

/**
 * The secret that signs session cookies: SESSION_SECRET when set; otherwise a secret generated once and kept in
 * DATA_DIR/session-secret (mode 0600), so that sessions survive restarts without anyone having to configure anything.
 *
 * The file is created complete or not at all: the secret is written to a private temporary file that is then
 * hard-linked into place, which fails if another process (a second server starting at the same moment) got there
 * first — in which case its secret is the one used.
 */
export async function resolveSessionSecret(dataDir: string, configured?: string): Promise<SessionSecret> {
  if (configured !== undefined && configured !== '') {
    if (configured.length < MIN_SECRET_LENGTH) {
      throw new Error(`SESSION_SECRET must have at least ${MIN_SECRET_LENGTH} characters`);
    }
    return { secret: configured, source: 'environment' };
  }
  const file = path.join(dataDir, SESSION_SECRET_FILE);
  const existing = await readSecretFile(file);
  if (existing) return existing;

  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const temp = path.join(dataDir, `.${SESSION_SECRET_FILE}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(randomBytes(48).toString('base64url') + '\n', 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  let won = false;
  try {
    await link(temp, file);
    won = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await rm(temp, { force: true });
  }
  const created = await readSecretFile(file);
  if (!created) throw new Error(`${file} could not be created`);
  return won ? { ...created, source: 'generated' } : created;
}

async function readSecretFile(file: string): Promise<SessionSecret | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const secret = text.trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(
      `${file} holds no usable session secret (fewer than ${MIN_SECRET_LENGTH} characters); delete it to have a new one generated`,
    );
  }
  let tightenedPermissions = false;
  if (process.platform !== 'win32' && ((await stat(file)).mode & 0o077) !== 0) {
    await chmod(file, 0o600);
    tightenedPermissions = true;
  }
  return { secret, source: 'file', ...(tightenedPermissions && { tightenedPermissions }) };
}
