import { defineConfig } from 'vitest/config';

/**
 * The contract tests that run on both backends: the check, keys, sessions and sign-in, the rate limit and the admin
 * CLI. They start servers and CLIs only through test/helpers, which give each data directory its own database and
 * Redis prefix on the shared backend. (Tests of the JSON files themselves run on the JSON backend only.)
 */
const SHARED_BACKEND_CONTRACT = [
  'test/integration/check/check-postcode.test.ts',
  'test/integration/keys/key-lifecycle.test.ts',
  'test/integration/keys/concurrency.test.ts',
  'test/integration/keys/admin-cli.test.ts',
  'test/integration/auth/login.test.ts',
  'test/integration/auth/login-throttle.test.ts',
  'test/integration/auth/require-sso.test.ts',
  'test/integration/auth/session-lifetime.test.ts',
  'test/integration/auth/origin.test.ts',
  'test/integration/rate-limit/check-rate-limit.test.ts',
  'test/integration/admin-cli/admin-cli.test.ts',
  'test/integration/admin-cli/team-cli.test.ts',
  'test/integration/webhooks/webhooks.test.ts',
  'test/integration/catchment/catchment-alerts.test.ts',
  'test/integration/team/team.test.ts',
  'test/integration/team/team-service.test.ts',
  'test/integration/invitations/invitation-service.test.ts',
  'test/integration/invitations/invitations.test.ts',
  'test/integration/invitations/password-reset.test.ts',
  'test/integration/invitations/invitation-mail.test.ts',
  'test/integration/usage/usage.test.ts',
  'test/integration/check/check-by-hand.test.ts',
  'test/integration/check/check-batch.test.ts',
  'test/integration/activity/activity.test.ts',
  'test/integration/signup/signup.test.ts',
  'test/integration/signup/signup-mail.test.ts',
  'test/integration/signup/signup-service.test.ts',
  'test/integration/billing/billing-console.test.ts',
  'test/integration/billing/billing-webhook.test.ts',
  'test/integration/billing/billing-ops.test.ts',
  'test/integration/billing/subscription-changes.test.ts',
  'test/integration/accounts/account-operations.test.ts',
  'test/integration/http/text-fields.test.ts',
  'test/integration/mcp/mcp-limits.test.ts',
  'test/integration/sso/sso-settings.test.ts',
  'test/integration/sso/sso-flow-store.test.ts',
  'test/integration/sso/saml-sign-in.test.ts',
  'test/integration/sso/sso-sign-in.test.ts',
  'test/integration/sso/oidc-two-instances.test.ts',
];

/**
 * Integration tests that stop, stall or kill what a server depends on (PostgreSQL, Redis, its own process, its files)
 * or that hold a server to a real deadline. They run one at a time after the rest, as the browser tests do, so a
 * deadline they assert is never shared with another file's load; every other node file runs two at a time.
 */
const ALONE = [
  'test/integration/audit/audit-with-its-change.test.ts',
  'test/integration/auth/shared-login-throttle.test.ts',
  'test/integration/auth/shared-sessions.test.ts',
  'test/integration/postgres/correspondence-cache.test.ts',
  'test/integration/process/stop-deadline.test.ts',
  'test/integration/process/npm-start-signals.test.ts',
  'test/integration/process/server-process.test.ts',
  'test/integration/rate-limit/data-epoch.test.ts',
  'test/integration/rate-limit/redis-counter.test.ts',
  'test/integration/rate-limit/reply-deadlines.test.ts',
  'test/integration/scale-out/database-outage.test.ts',
  'test/integration/scale-out/two-instances.test.ts',
  'test/integration/scale-out/data-epoch.test.ts',
  'test/integration/sessions/redis-session-store.test.ts',
  'test/integration/signup/signup-redis-outage.test.ts',
  'test/integration/sso/redis-sso-flow-store-outage.test.ts',
  'test/integration/sso/sso-browser-interruptions.test.ts',
  'test/integration/mcp/mcp-redis-outage.test.ts',
  'test/integration/http/timeouts.test.ts',
  'test/integration/storage/server-kill-during-writes.test.ts',
  'test/integration/storage/lock-crash-points.test.ts',
  'test/integration/storage/crash-recovery.test.ts',
];

/** Two files at once where files do not disturb each other: most of their time is spent waiting on servers. */
const NODE_WORKERS = 2;

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node', maxWorkers: NODE_WORKERS },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: ALONE,
          environment: 'node',
          maxWorkers: NODE_WORKERS,
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration-alone',
          include: ALONE,
          environment: 'node',
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          // The contract tests again, with DATABASE_URL and REDIS_URL set: one PostgreSQL and one Redis on loopback
          // for the run (test/helpers/shared-backends*.ts), a database and a key prefix per data directory.
          name: 'integration-shared',
          include: SHARED_BACKEND_CONTRACT,
          environment: 'node',
          env: { DTE_TEST_BACKEND: 'shared' },
          maxWorkers: NODE_WORKERS,
          globalSetup: ['test/helpers/shared-backends-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          // The extension and the console in a real headless Chromium (Debian's chromium package); builds both first.
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          environment: 'node',
          globalSetup: [
            'test/browser/global-setup.ts',
            'test/browser/ui-libraries-setup.ts',
            'test/browser/console-setup.ts',
          ],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
