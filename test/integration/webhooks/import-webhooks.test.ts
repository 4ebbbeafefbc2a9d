import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { importDataDir } from '../../../server/importers';
import { usePostgresServer } from '../../helpers/postgres-per-file';
import { seedAccount, startTestServer } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';
import { json, SessionClient } from '../auth/session-client';

// A real PostgreSQL on loopback for this file.
const postgres = usePostgresServer();
const quiet = { logger: { info: () => undefined, warn: () => undefined } };
const ALLOW_PRIVATE = { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: true };

describe('migrate-json-to-postgres: webhooks.json', () => {
  it('copies the webhooks and their queued deliveries; a server on PostgreSQL sends them, signed with the same secret', async () => {
    const received: { signature: string; raw: Buffer }[] = [];
    const statuses = [503];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ signature: String(req.headers['x-signature']), raw: Buffer.concat(chunks) });
        res.statusCode = statuses.shift() ?? 200;
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    let now = Date.parse('2026-11-22T01:00:00.000Z');
    const clock = () => new Date(now);
    const dataDir = await tempDir();
    const databaseUrl = await postgres.createDatabase('import_webhooks');
    try {
      // On JSON files: a webhook, and a delivery that failed once.
      const onJson = await startTestServer({ dataDir, clock, config: ALLOW_PRIVATE });
      const clinic = await seedAccount(onJson.runtime);
      const client = new SessionClient(onJson.url);
      await client.login(clinic.email, clinic.password);
      const { secret } = (await json(await client.request('PUT', '/api/v1/webhook', { body: { url } }))).data;
      const subscription = onJson.runtime.accounts.subscriptionOf(clinic.accountId)!.id;
      await onJson.runtime.webhooks.enqueueAlerts([
        {
          subscription_id: subscription,
          alerts: [
            {
              id: '1',
              created_at: clock().toISOString(),
              kind: 'newly_eligible',
              postcode: '2480',
              lga_name: 'Lismore (C)',
              agrn: '9001',
              title: 'NSW Northern Rivers Floods',
              text: 'Postcode 2480 (Lismore) is now covered by a disaster declaration.',
            },
          ],
        },
      ]);
      expect(await onJson.runtime.webhooks.runDue()).toBe(1);
      await onJson.close();

      // Closed by the helper after the file.
      const pool = postgres.pool(databaseUrl);
      const report = await importDataDir(pool, dataDir, quiet);
      expect(report.webhooks).toEqual({ inDataDir: 1, inserted: 1, alreadyPresent: 0 });
      expect(report.webhookDeliveries).toEqual({ inDataDir: 1, inserted: 1, alreadyPresent: 0 });
      expect(report.bumped).toContain('webhooks');
      const again = await importDataDir(pool, dataDir, quiet);
      expect(again.webhooks).toEqual({ inDataDir: 1, inserted: 0, alreadyPresent: 1 });
      expect(again.webhookDeliveries).toEqual({ inDataDir: 1, inserted: 0, alreadyPresent: 1 });

      now += 2 * 60_000;
      const onPostgres = await startTestServer({
        dataDir: await tempDir(),
        clock,
        declarations: false,
        config: { ...ALLOW_PRIVATE, DATABASE_URL: databaseUrl, SESSION_SECRET: 's'.repeat(40) },
      });
      try {
        const view = await onPostgres.runtime.webhooks.get(subscription);
        expect(view).toMatchObject({ url, last_delivery: { status: 'retrying', attempts: 1, http_status: 503 } });
        expect(await onPostgres.runtime.webhooks.runDue()).toBe(1);
        expect(received).toHaveLength(2);
        const expected = `sha256=${createHmac('sha256', secret).update(received[1]!.raw).digest('hex')}`;
        expect(received[1]!.signature).toBe(expected);
        expect(received[1]!.raw.equals(received[0]!.raw)).toBe(true);
        expect((await onPostgres.runtime.webhooks.get(subscription))!.last_delivery).toMatchObject({
          status: 'delivered',
          attempts: 2,
        });
      } finally {
        await onPostgres.close();
      }
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
