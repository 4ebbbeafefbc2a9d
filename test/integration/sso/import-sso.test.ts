import { describe, expect, it } from 'vitest';
import { importDataDir } from '../../../server/importers';
import { formatImportReport } from '../../../server/storage/import/import-report';
import { usePostgresServer } from '../../helpers/postgres-per-file';
import { startTestServer } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';
import { practice, SSO_SERVER, startIssuer } from './sso-world';

// A real PostgreSQL on loopback for this file.
const postgres = usePostgresServer();
const quiet = { logger: { info: () => undefined, warn: () => undefined } };

describe('migrate-json-to-postgres: sso.json', () => {
  it('copies the settings (the sealed secret still opens), their domains and the departures; a second run adds nothing', async () => {
    const dataDir = await tempDir();
    const databaseUrl = await postgres.createDatabase('import_sso');
    const [onJson, issuer] = await Promise.all([startTestServer({ ...SSO_SERVER, dataDir }), startIssuer()]);
    const oidc = { provider: 'oidc', issuer: `${issuer.url}/good`, client_id: 'dte', client_secret: 'imported-secret' };
    const p = await practice(onJson);
    const member = await p.add('member');
    const saved = await p.ownerClient.request('PUT', '/api/v1/organisation/sso', {
      body: { connection: oidc, domains: [p.domain], require_sso: true },
    });
    expect(saved.status).toBe(200);
    expect((await p.ownerClient.request('DELETE', `/api/v1/team/members/${member.accountId}`)).status).toBe(200);
    await Promise.all([onJson.close(), issuer.close()]);

    const pool = postgres.pool(databaseUrl);
    const first = await importDataDir(pool, dataDir, quiet);
    expect([first.ssoSettings, first.ssoDomains, first.ssoDepartures]).toEqual([
      { inDataDir: 1, inserted: 1, alreadyPresent: 0 },
      { inDataDir: 1, inserted: 1, alreadyPresent: 0 },
      { inDataDir: 1, inserted: 1, alreadyPresent: 0 },
    ]);
    expect(formatImportReport(first)).toMatch(/single sign-on domains +1 +1 +0/);
    const again = await importDataDir(pool, dataDir, quiet);
    expect(again.ssoSettings).toEqual({ inDataDir: 1, inserted: 0, alreadyPresent: 1 });

    const onPostgres = await startTestServer({
      ...SSO_SERVER,
      dataDir,
      config: { ...SSO_SERVER.config, DATABASE_URL: databaseUrl, SESSION_SECRET: 's'.repeat(40) },
      declarations: false,
    });
    try {
      const { directory } = onPostgres.runtime.sso;
      expect(await directory.forDomain(p.domain)).toMatchObject({
        organisationId: p.organisationId,
        oidc: { issuer: oidc.issuer, clientId: 'dte', clientSecret: 'imported-secret' },
        requireSso: true,
      });
      expect(await directory.wasRemoved(p.organisationId, member.email)).toBe(true);
    } finally {
      await onPostgres.close();
    }
  });
});
