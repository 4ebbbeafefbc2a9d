import { describe, expect, it } from 'vitest';
import { runAdmin, type CliResult } from '../../helpers/run-cli';
import { tempDir } from '../../helpers/temp-dir';

const PASSWORD = 'Tr0ub4dor&3-clinic-secret';
const OWNER = 'manager@bondi-medical.example';
const GP = 'gp@bondi-medical.example';

function expectDone(result: CliResult): string {
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

function expectRefused(result: CliResult, message: RegExp): void {
  expect(result.code, result.stdout + result.stderr).toBe(1);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('admin CLI: organisations and members', () => {
  it('creates an organisation, adds a member, changes roles, keeps an owner, removes, and audits it all', async () => {
    const dataDir = await tempDir('dte-team-cli-');
    const ownerId = expectDone(
      await runAdmin(dataDir, [
        'create-account',
        '--email',
        OWNER,
        '--password',
        PASSWORD,
        '--organisation',
        'Bondi Medical',
      ]),
    ).trim();
    const gpId = expectDone(
      await runAdmin(dataDir, [
        'add-member',
        '--organisation-of',
        OWNER,
        '--email',
        GP,
        '--password',
        PASSWORD,
        '--role',
        'member',
      ]),
    ).trim();
    expect(gpId).not.toBe(ownerId);

    const badRole = await runAdmin(dataDir, ['set-role', '--email', GP, '--role', 'superuser']);
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toContain('--role must be owner, admin or member');
    expectRefused(
      await runAdmin(dataDir, [
        'add-member',
        '--organisation-of',
        'nobody@x.example',
        '--email',
        'a@b.example',
        '--password',
        PASSWORD,
        '--role',
        'member',
      ]),
      /No account for nobody@x\.example/,
    );

    const members = expectDone(await runAdmin(dataDir, ['list-members', '--organisation-of', GP])).split('\n');
    expect(members[0]).toMatch(/^Bondi Medical \(/);
    expect(members[1]).toMatch(/^EMAIL\s+ROLE\s+JOINED\s+ID/);
    expect(members.find((l) => l.startsWith(OWNER))).toMatch(/\bowner\b/);
    expect(members.find((l) => l.startsWith(GP))).toMatch(/\bmember\b/);

    // The only owner cannot step down; once another is an owner, they can.
    expectRefused(
      await runAdmin(dataDir, ['set-role', '--email', OWNER, '--role', 'admin']),
      /^Error: An organisation keeps at least one owner\nMake another member an owner first\.\n$/,
    );
    expect(expectDone(await runAdmin(dataDir, ['set-role', '--email', GP, '--role', 'owner']))).toContain(
      `${GP}: owner`,
    );
    expectDone(await runAdmin(dataDir, ['set-role', '--email', OWNER, '--role', 'admin']));
    expectRefused(await runAdmin(dataDir, ['remove-member', '--email', GP]), /keeps at least one owner/);
    expect(expectDone(await runAdmin(dataDir, ['remove-member', '--email', OWNER]))).toContain(`${OWNER} removed`);

    const accounts = expectDone(await runAdmin(dataDir, ['list-accounts']));
    expect(accounts).not.toContain(OWNER);
    expect(accounts.split('\n').find((l) => l.startsWith(GP))).toMatch(/Bondi Medical\s+owner/);

    const audit = expectDone(await runAdmin(dataDir, ['audit', '--email', GP]));
    for (const event of ['member_added', 'member_role_changed']) expect(audit).toContain(event);
    const ownerAudit = expectDone(await runAdmin(dataDir, ['audit', '--email', OWNER]));
    expect(ownerAudit).toMatch(/member_removed\s+admin\b.*member manager@bondi-medical\.example \(admin\)/);
    expect(audit + ownerAudit).not.toContain(PASSWORD);
  });
});
