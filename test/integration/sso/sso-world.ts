import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Role } from '../../../shared/api/team';
import { newLinkToken } from '../../../server/accounts/link-tokens';
import { OPERATOR } from '../../../server/team/team-service';
import type { DataRuntime } from '../../../server/runtime-types';
import { seedAccount, startTestServer, type TestServer, type TestServerOptions } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';
import { PASSWORD, signedIn } from '../team/team-world';

/** 32 bytes, base64: SSO_ENCRYPTION_KEY as `openssl rand -base64 32` gives it. */
export const ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');

/** A server with Microsoft's app and the encryption key set (Google's app not: its provider is unavailable). */
export const SSO_SERVER: TestServerOptions = {
  config: {
    SSO_ENCRYPTION_KEY: ENCRYPTION_KEY,
    SSO_MICROSOFT_CLIENT_ID: 'operator-app',
    SSO_MICROSOFT_CLIENT_SECRET: 'operator-app-secret',
  },
};

/** A self-signed certificate (no key kept): what an IdP's console lets an owner download. */
export const CERTIFICATE_PEM = readFileSync(
  path.join(import.meta.dirname, '../../fixtures/sso/idp-signing-certificate.pem'),
  'utf8',
);
/** `openssl x509 -noout -fingerprint -sha256` and `-enddate` of it. */
export const CERTIFICATE_FINGERPRINT =
  'AF:D5:6E:AA:0F:23:91:78:E0:AA:33:11:91:ED:9F:D7:52:4E:65:1E:7B:34:CD:E3:6F:F6:3C:9D:7B:34:8E:BC';
export const CERTIFICATE_EXPIRES_AT = '2036-11-26T19:21:06.000Z';

let seq = 0;
/** A fresh practice domain per call (not public, not anyone else's). */
export const practiceDomain = () => `clinic${++seq}x${process.pid}.com.au`;

/** The address's proof, as a verification link used gives it. */
export async function verify(runtime: DataRuntime, accountId: string): Promise<void> {
  const now = runtime.clock();
  const { token, hash } = newLinkToken();
  const expires_at = new Date(now.getTime() + 3600_000).toISOString();
  await runtime.accounts.links.issueEmailVerification(
    { id: randomUUID(), account_id: accountId, token_hash: hash, created_at: now.toISOString(), expires_at },
    now,
  );
  await runtime.accounts.links.verifyEmail(token, now);
}

/**
 * An organisation whose owner's verified address is at a practice domain of its own (`domain`), signed in; `add` for
 * more people (their addresses not verified).
 */
export async function practice(server: TestServer, domain = practiceDomain()) {
  const owner = await seedAccount(server.runtime, { withKey: false, email: `owner${++seq}@${domain}` });
  await verify(server.runtime, owner.accountId);
  const organisationId = server.runtime.accounts.membershipOf(owner.accountId)!.organisation_id;
  const add = async (role: Role, email = `${role}${++seq}@${domain}`) => {
    const accountId = await server.runtime.team.add(OPERATOR, organisationId, email, PASSWORD, role);
    return { email, accountId, password: PASSWORD };
  };
  return {
    domain,
    organisationId,
    owner,
    ownerClient: await signedIn(server, owner),
    add,
  };
}

export type Practice = Awaited<ReturnType<typeof practice>>;

/**
 * An OpenID Connect issuer's discovery on 127.0.0.1 (the internet's edge): `/good` serves a document naming itself,
 * `/other` one naming another issuer, `/html` a web page; anything else 404.
 */
export async function startIssuer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const [, name, rest] = /^\/(\w+)(\/.*)$/.exec(req.url ?? '') ?? [];
    if (rest !== '/.well-known/openid-configuration') return res.writeHead(404).end();
    if (name === 'html') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Sign in</html>');
    if (name !== 'good' && name !== 'other') return res.writeHead(404).end();
    const issuer = name === 'good' ? `${base}/good` : 'https://idp.elsewhere.example';
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        issuer,
        authorization_endpoint: `${base}/${name}/authorize`,
        token_endpoint: `${base}/${name}/token`,
        jwks_uri: `${base}/${name}/jwks`,
        response_types_supported: ['code'],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Two instances of one deployment with SSO_SERVER's settings (the shared backends only), closed after `run`. */
export async function twoSsoInstances(run: (a: TestServer, b: TestServer) => Promise<void>): Promise<void> {
  const dataDir = await tempDir();
  const [a, b] = await Promise.all([
    startTestServer({ ...SSO_SERVER, dataDir }),
    startTestServer({ ...SSO_SERVER, dataDir, declarations: false }),
  ]);
  try {
    await run(a, b);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}
