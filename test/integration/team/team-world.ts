import { expect } from 'vitest';
import type { Role } from '../../../shared/api/team';
import { OPERATOR } from '../../../server/team/team-service';
import { seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';
import { SessionClient } from '../auth/session-client';

export const PASSWORD = 'correct horse battery staple';

let seq = 0;
/** A fresh email on the test's own domain (one per call). */
export const emailFor = (what: string) => `${what}${++seq}-${process.pid}@team.example`;

/** An organisation with an active subscription, its owner and, when asked, a key; plus an admin and a member. */
export async function organisation(server: TestServer, { withKey = false } = {}) {
  const owner = await seedAccount(server.runtime, { withKey });
  const organisationId = server.runtime.accounts.membershipOf(owner.accountId)!.organisation_id;
  const add = async (role: Role) => {
    const email = emailFor(role);
    const accountId = await server.runtime.team.add(OPERATOR, organisationId, email, PASSWORD, role);
    return { email, accountId, password: PASSWORD };
  };
  return { organisationId, owner, admin: await add('admin'), member: await add('member'), add };
}

export type Org = Awaited<ReturnType<typeof organisation>>;

/** A client signed in as `person` (the sign-in asserted). */
export async function signedIn(
  server: Pick<TestServer, 'url'>,
  person: { email: string; password: string },
): Promise<SessionClient> {
  const client = new SessionClient(server.url);
  expect((await client.login(person.email, person.password)).status).toBe(200);
  return client;
}

/**
 * Two instances of one deployment (one data directory: on the shared backends, one database and one Redis prefix),
 * closed after `run`. Only the shared backends have two that must agree (tests skip it on JSON).
 */
export async function twoInstances(run: (a: TestServer, b: TestServer) => Promise<void>): Promise<void> {
  const dataDir = await tempDir();
  const a = await startTestServer({ dataDir });
  try {
    const b = await startTestServer({ dataDir, declarations: false });
    try {
      await run(a, b);
    } finally {
      await b.close();
    }
  } finally {
    await a.close();
  }
}
