import { describe, expect, it } from 'vitest';
import { importDataDir } from '../../../server/importers';
import { successEnvelope } from '../../../shared/api/envelope';
import { UsageData } from '../../../shared/api/usage';
import { usePostgresServer } from '../../helpers/postgres-per-file';
import { checkPostcode, seedAccount, startTestServer } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';

// A real PostgreSQL on loopback for this file.
const postgres = usePostgresServer();
const quiet = { logger: { info: () => undefined, warn: () => undefined } };
const USAGE = successEnvelope(UsageData.strict());

describe('migrate-json-to-postgres: usage.json', () => {
  it('copies the counts per key and day; a server on PostgreSQL shows them; a second run adds nothing', async () => {
    const dataDir = await tempDir();
    const databaseUrl = await postgres.createDatabase('import_usage');
    const onJson = await startTestServer({ dataDir });
    const clinic = await seedAccount(onJson.runtime);
    for (const postcode of ['2480', '2480', '24x0']) await checkPostcode(onJson, clinic.apiKey!, { postcode });
    const subscription = onJson.runtime.accounts.subscriptionOf(clinic.accountId)!.id;
    onJson.runtime.usage.countRows(subscription, onJson.runtime.keys.currentKey(subscription)!.id, 9, new Date());
    await onJson.close();

    const pool = postgres.pool(databaseUrl);
    const first = await importDataDir(pool, dataDir, quiet);
    expect(first.keyUsage).toEqual({ inDataDir: 1, inserted: 1, alreadyPresent: 0 });
    expect((await importDataDir(pool, dataDir, quiet)).keyUsage).toEqual({
      inDataDir: 1,
      inserted: 0,
      alreadyPresent: 1,
    });

    const onPostgres = await startTestServer({
      dataDir,
      config: { DATABASE_URL: databaseUrl, SESSION_SECRET: 's'.repeat(40) },
      declarations: false,
    });
    try {
      const res = await fetch(`${onPostgres.url}/api/v1/usage?days=1`, { headers: { 'x-api-key': clinic.apiKey! } });
      expect(USAGE.parse(await res.json()).data.totals).toEqual({
        answered: 2,
        refused: 1,
        rate_limited: 0,
        batch_rows: 9,
      });
    } finally {
      await onPostgres.close();
    }
  });
});
