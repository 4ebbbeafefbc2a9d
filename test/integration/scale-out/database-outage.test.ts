import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sydneyToday } from '../../../shared/domain/dates';
import { fixtureDeclarations } from '../../fixtures/declarations';
import { startPostgres, type PostgresServer } from '../../helpers/postgres-server';
import { startRedisServer, type TestRedisServer } from '../../helpers/redis-server';
import { startServerProcess, type ServerProcess } from '../../helpers/spawn-server';
import { startStripeStandIn, stripeSubscriptionObject, type StripeStandIn } from '../../helpers/stripe-stand-in';
import { tempDir } from '../../helpers/temp-dir';
import {
  checkBatchOf,
  checkPostcode,
  openSharedData,
  seedAccount,
  type SeededAccount,
} from '../../helpers/test-server';
import { waitFor } from '../../helpers/wait-for';
import { json, SessionClient } from '../auth/session-client';
import { stripeEnv } from '../billing/billing-world';

/** Postcodes the bundled index knows; each write saves a different selection of them. */
const POSTCODES = ['2000', '2480', '3000', '4000', '5000', '6000', '7000', '2600', '2481', '4350'];
const CLINICS = 4;
/** How long the write loops run into the outage before the database comes back. */
const OUTAGE_MS = 3_000;

interface Outcome {
  status: number;
  code?: string;
  retryAfter: string | null;
}

interface Writer {
  clinic: SeededAccount;
  /** One session per instance: the clinic's staff reach both through the load balancer. */
  sessions: SessionClient[];
  /** The list of the newest write that was acknowledged (200), and every list sent after it. */
  acknowledged: string[] | null;
  unacknowledgedSince: string[][];
  outcomes: Outcome[];
}

/**
 * PostgreSQL goes away under write load on two instances (PostgreSQL + Redis), by kill -9 of the postmaster and by a
 * fast stop: no instance exits, writes answer 503 `storage_unavailable` with Retry-After, checks keep answering from
 * memory, everything recovers by itself when the database is back, and no acknowledged write is lost.
 */
describe('a database outage under write load', () => {
  let postgres: PostgresServer;
  let redis: TestRedisServer;
  let standIn: StripeStandIn;
  let env: Record<string, string>;
  const instances: { server: ServerProcess; url: string }[] = [];
  let writers: Writer[] = [];

  const openData = () => openSharedData(env);

  beforeAll(async () => {
    [postgres, redis, standIn] = await Promise.all([startPostgres(), startRedisServer(), startStripeStandIn()]);
    env = {
      DATABASE_URL: await postgres.createDatabase('outage'),
      REDIS_URL: redis.url,
      SESSION_SECRET: 'a shared session secret of at least 32 characters',
      // Billing with Stripe: its webhook during the outage too.
      ...stripeEnv(standIn),
    };
    const data = await openData();
    let clinics: SeededAccount[];
    try {
      await data.declarations.store.update((file) => {
        file.declarations = fixtureDeclarations(sydneyToday(new Date()));
        file.last_updated = new Date().toISOString();
      });
      clinics = await Promise.all(Array.from({ length: CLINICS }, () => seedAccount(data, { rateLimit: 100_000 })));
    } finally {
      await data.close();
    }
    for (let i = 0; i < 2; i++) {
      instances.push(await startServerProcess({ ...env, DATA_DIR: await tempDir('dte-instance-') }));
    }
    standIn.setWebhookUrl(`${instances[0]!.url}/api/v1/billing/webhook`);
    writers = await Promise.all(
      clinics.map(async (clinic) => {
        const sessions = instances.map((instance) => new SessionClient(instance.url));
        for (const session of sessions) expect((await session.login(clinic.email, clinic.password)).status).toBe(200);
        return { clinic, sessions, acknowledged: null, unacknowledgedSince: [], outcomes: [] };
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all(instances.map((i) => i.server.kill()));
    await Promise.all([redis?.close(), postgres?.stop(), standIn?.close()]);
  });

  /** Each clinic saves a different catchment, alternately on each instance, until `until` resolves. */
  function writeLoops(until: Promise<void>): Promise<void[]> {
    let stop = false;
    void until.then(() => (stop = true));
    return Promise.all(
      writers.map(async (writer, w) => {
        for (let n = 0; !stop && n < 5_000; n++) {
          const postcodes = POSTCODES.filter((_, i) => (i + n + w) % 3 !== 0).slice(0, 3 + (n % 5));
          const session = writer.sessions[n % 2]!;
          let res: Response;
          try {
            res = await session.request('PUT', '/api/v1/catchment', { body: { postcodes } });
          } catch {
            // The connection itself failed: the instance is gone (asserted below) — no outcome to classify.
            writer.unacknowledgedSince.push(postcodes);
            continue;
          }
          const body = (await res.json().catch(() => ({}))) as { error?: { code?: string } };
          writer.outcomes.push({
            status: res.status,
            code: body.error?.code,
            retryAfter: res.headers.get('retry-after'),
          });
          if (res.status === 200) {
            writer.acknowledged = postcodes;
            writer.unacknowledgedSince = [];
          } else {
            writer.unacknowledgedSince.push(postcodes);
            // A client that honours Retry-After would wait; a short pause keeps the loop from spinning.
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
      }),
    );
  }

  /** Checks with each clinic's key, on both instances, during the outage: answered from memory. */
  async function checksDuringOutage(): Promise<number[]> {
    const statuses: number[] = [];
    for (const writer of writers) {
      for (const [i, instance] of instances.entries()) {
        const res = await checkPostcode(instance, writer.clinic.apiKey, { postcode: '2480' });
        await res.arrayBuffer();
        statuses.push(res.status);
        // Signed-in reads too: the catchment and the key's status are held in memory.
        for (const path of ['/api/v1/catchment', '/api/v1/keys/status']) {
          statuses.push((await writer.sessions[i]!.get(path)).status);
        }
      }
    }
    return statuses;
  }

  /** Every clinic regenerates its key on both instances at once (eight generations) while the database is out. */
  async function keyGenerationsDuringOutage(): Promise<Outcome[]> {
    return Promise.all(
      writers.flatMap((writer) =>
        writer.sessions.map(async (session) => {
          const res = await session.post('/api/v1/keys/regenerate');
          const body = (await res.json()) as { error?: { code?: string } };
          return { status: res.status, code: body.error?.code, retryAfter: res.headers.get('retry-after') };
        }),
      ),
    );
  }

  /**
   * The organisation's other endpoints during the outage, once each on each instance: what is held in memory answers
   * (the team, a check by hand), what needs the database (usage, activity, an invitation, a webhook test) is refused
   * 503 `storage_unavailable` — never a 500, never a dropped connection.
   */
  async function organisationEndpointsDuringOutage(): Promise<(Outcome & { path: string })[]> {
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/v1/team'],
      ['POST', '/api/v1/session/check-postcode', { postcode: '2480' }],
      ['GET', '/api/v1/usage'],
      ['GET', '/api/v1/activity'],
      ['POST', '/api/v1/team/invitations', { email: 'new.gp@outage.example', role: 'member' }],
      ['POST', '/api/v1/webhook/test'],
    ];
    const outcomes: (Outcome & { path: string })[] = [];
    for (const session of writers[0]!.sessions) {
      for (const [method, path, body] of calls) {
        const res = await session.request(method, path, { body });
        const answer = (await res.json()) as { error?: { code?: string } };
        outcomes.push({
          path,
          status: res.status,
          code: answer.error?.code,
          retryAfter: res.headers.get('retry-after'),
        });
      }
    }
    return outcomes;
  }

  /**
   * Stripe tells of the first clinic's (paid, running) subscription while the database is out: refused 503 with
   * Retry-After, so Stripe delivers it again — never a 500, nothing half-applied. Returns the delivery, to repeat.
   */
  async function billingEventDuringOutage(): Promise<{ repeat(): Promise<Response>; outcome: Outcome }> {
    const session = await json(await writers[0]!.sessions[0]!.get('/api/v1/auth/session'));
    const organisationId = session.data.organisation.id as string;
    const sub = standIn.createSubscription({ status: 'active', metadata: { organisation_id: organisationId } });
    const object = stripeSubscriptionObject(sub, standIn.priceId);
    const id = `evt_outage_${sub.id}`;
    const res = await standIn.deliver('customer.subscription.updated', object, { id });
    const body = (await res.json()) as { error?: { code?: string } };
    return {
      outcome: { status: res.status, code: body.error?.code, retryAfter: res.headers.get('retry-after') },
      repeat: () => standIn.deliver('customer.subscription.updated', object, { id }),
    };
  }

  /** The first clinic's checks answered today, as its usage says (flushed every 5 s by each instance). */
  async function answeredToday(): Promise<number> {
    const res = await writers[0]!.sessions[0]!.get('/api/v1/usage?days=1');
    return res.status === 200 ? (await json(res)).data.totals.answered : -1;
  }

  /**
   * A batch of two rows by the second clinic's key (the first one's usage is counted exactly below) on `instance`:
   * its status, and the rows left today when answered.
   */
  async function batchOn(instance: { url: string }): Promise<Outcome & { rowsLeft?: number }> {
    const res = await checkBatchOf(instance, writers[1]!.clinic.apiKey!, ['2480', '4000']);
    const body = (await res.json()) as { error?: { code?: string }; metadata?: { rows_left_today: number } };
    return {
      status: res.status,
      code: body.error?.code,
      retryAfter: res.headers.get('retry-after'),
      rowsLeft: body.metadata?.rows_left_today,
    };
  }

  async function outage(takeDown: () => Promise<void>): Promise<void> {
    for (const writer of writers) writer.outcomes = [];
    let endLoad!: () => void;
    const loadEnds = new Promise<void>((resolve) => (endLoad = resolve));
    const load = writeLoops(loadEnds);
    // Some writes acknowledged before the outage.
    await waitFor(async () => writers.every((w) => w.outcomes.some((o) => o.status === 200)), {
      timeoutMs: 15_000,
      what: 'a saved catchment per clinic before the outage',
    });
    // On PostgreSQL an instance reads a catchment per request and keeps the ones it has served (not every
    // organisation's: that would not scale): each instance serves each clinic's once before the outage.
    for (const writer of writers) {
      for (const session of writer.sessions) expect((await session.get('/api/v1/catchment')).status).toBe(200);
    }
    const batchBefore = await batchOn(instances[0]!);
    expect(batchBefore.status).toBe(200);
    const answeredBefore = await answeredToday();
    await takeDown();
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS / 2));
    const checks = await checksDuringOutage();
    // A batch needs no more of the database than the check: the key and the data are in memory, the allowance and
    // the rate limit in Redis, its rows counted in usage's buffer (kept for the flush after the outage).
    const batches = [];
    for (const instance of instances) batches.push(await batchOn(instance));
    const generations = await keyGenerationsDuringOutage();
    const organisation = await organisationEndpointsDuringOutage();
    const billingEvent = await billingEventDuringOutage();
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS / 2));
    for (const instance of instances) expect(instance.server.child.exitCode, instance.server.stderr()).toBeNull();
    expect(
      checks.every((s) => s === 200),
      `checks and reads during the outage: ${checks.join(', ')}`,
    ).toBe(true);
    expect(batches.map((b) => b.status)).toEqual([200, 200]);
    expect(generations).toHaveLength(8);
    for (const g of generations) expect(g).toMatchObject({ status: 503, code: 'storage_unavailable', retryAfter: '5' });
    for (const o of organisation) {
      if (['/api/v1/team', '/api/v1/session/check-postcode'].includes(o.path)) expect(o.status, o.path).toBe(200);
      else expect(o, o.path).toMatchObject({ status: 503, code: 'storage_unavailable', retryAfter: '5' });
    }
    expect(billingEvent.outcome).toMatchObject({ status: 503, code: 'storage_unavailable', retryAfter: '5' });

    await postgres.restart();
    // Recovery by itself: every clinic's writes are acknowledged again on both instances.
    await waitFor(async () => writers.every((w) => w.outcomes.slice(-4).filter((o) => o.status === 200).length >= 2), {
      timeoutMs: 20_000,
      what: 'writes acknowledged again after the database came back',
    });
    endLoad();
    await load;
    // Stripe's retry of the refused event is applied once the database is back: the subscription is Stripe's now.
    const retried = await billingEvent.repeat();
    expect(await retried.json()).toMatchObject({ success: true, data: { received: true, outcome: 'applied' } });
    const billing = await json(await writers[0]!.sessions[1]!.get('/api/v1/billing'));
    expect(billing.data).toMatchObject({ status: 'active', stripe_status: 'active', renews_at: expect.any(String) });
    // The checks counted during the outage were kept and added once the database came back: two by key (one per
    // instance), and the one by hand is counted apart.
    await waitFor(async () => (await answeredToday()) === answeredBefore + 2, {
      timeoutMs: 20_000,
      what: "the outage's checks in usage",
    });

    // The allowance is shared across the instances: each answered batch took its two rows, once.
    expect((await batchOn(instances[1]!)).rowsLeft).toBe(batchBefore.rowsLeft! - 6);

    for (const instance of instances) {
      expect(instance.server.child.exitCode, instance.server.stderr()).toBeNull();
      expect(instance.server.stderr()).not.toMatch(/Unhandled|Error/);
      expect(instance.server.logs.filter((l) => l.msg === 'unhandled error')).toEqual([]);
    }
    const outcomes = writers.flatMap((w) => w.outcomes);
    const refused = outcomes.filter((o) => o.status !== 200);
    expect(refused.length, 'writes refused during the outage').toBeGreaterThan(0);
    for (const o of refused) {
      expect(o).toMatchObject({ status: 503, code: 'storage_unavailable' });
      expect(Number(o.retryAfter)).toBeGreaterThan(0);
    }

    // Nothing acknowledged lost: each clinic's catchment is the newest acknowledged list, or one sent after it
    // whose answer was lost with the connection (committed, but never acknowledged).
    for (const writer of writers) {
      for (const session of writer.sessions) {
        const res = await session.get('/api/v1/catchment');
        expect(res.status).toBe(200);
        const saved = ((await json(res)).data.postcodes as { postcode: string }[]).map((p) => p.postcode).sort();
        const allowed = [writer.acknowledged!, ...writer.unacknowledgedSince].map((l) => [...l].sort().join(','));
        expect(allowed).toContain(saved.join(','));
      }
    }
  }

  it('kill -9 of the postmaster: no exit, 503 storage_unavailable, checks answered, recovery, nothing lost', async () => {
    await outage(() => postgres.crash());
  }, 90_000);

  it('a fast stop of PostgreSQL: the same', async () => {
    await outage(() => postgres.fastStop());
  }, 90_000);
});
