import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOT_BILLED } from '../../../server/accounts/account-service';
import { accountsDocument } from '../../../server/accounts/accounts-document';
import { openJsonDocument, readJsonDocument } from '../../../server/storage/document';
import { tempDir } from '../../helpers/temp-dir';

/** accounts.json as releases before organisations wrote it (schema 1): each account its own practice. */
const SCHEMA_1 = {
  schema_version: 1,
  accounts: [
    { id: 'a1', email: 'reception@bondi.example', password_hash: 'scrypt$x', created_at: '2026-01-01T00:00:00.000Z' },
    { id: 'a2', email: 'it@wagga.example', password_hash: 'scrypt$y', created_at: '2026-02-01T00:00:00.000Z' },
  ],
  subscriptions: [
    {
      id: 's2',
      account_id: 'a2',
      plan: 'Clinic-Wide Access',
      status: 'active',
      expires_at: null,
      rate_limit: 100,
      updated_at: '2026-02-01T00:00:00.000Z',
    },
  ],
};

describe('accounts.json schema 1 → 2 (organisations)', () => {
  it('makes each account the owner of its own organisation, which takes over its subscription; written back once', async () => {
    const dataDir = await tempDir('dte-upgrade-');
    await writeFile(path.join(dataDir, 'accounts.json'), JSON.stringify(SCHEMA_1));

    const read = await readJsonDocument(accountsDocument, dataDir);
    expect(read!.organisations).toEqual([
      { id: 'org-a1', name: 'reception@bondi.example', created_at: '2026-01-01T00:00:00.000Z' },
      { id: 'org-a2', name: 'it@wagga.example', created_at: '2026-02-01T00:00:00.000Z' },
    ]);
    expect(read!.members).toEqual([
      { organisation_id: 'org-a1', account_id: 'a1', role: 'owner', created_at: '2026-01-01T00:00:00.000Z' },
      { organisation_id: 'org-a2', account_id: 'a2', role: 'owner', created_at: '2026-02-01T00:00:00.000Z' },
    ]);
    const { account_id: _replaced, ...subscription } = SCHEMA_1.subscriptions[0]!;
    // Billing came later: a subscription from before it reads as one no Stripe subscription pays for.
    expect(read!.subscriptions).toEqual([{ ...subscription, organisation_id: 'org-a2', ...NOT_BILLED }]);
    expect(read!.accounts.map((a) => a.email_verified_at)).toEqual([null, null]);
    // Reading changed nothing on disk (the import's dry read); opening the store writes schema 2.
    expect(JSON.parse(await readFile(path.join(dataDir, 'accounts.json'), 'utf8')).schema_version).toBe(1);
    const store = await openJsonDocument(accountsDocument, dataDir);
    await store.close();
    const written = JSON.parse(await readFile(path.join(dataDir, 'accounts.json'), 'utf8'));
    expect(written.schema_version).toBe(2);
    expect(written.members).toHaveLength(2);
    expect(written.subscriptions[0].account_id).toBeUndefined();
  });
});
