import { afterEach, describe, expect, it } from 'vitest';
import { IngestError } from '../../../server/ingest/errors';
import type { RefreshOptions, RefreshResult } from '../../../server/ingest/refresh';
import { startIngestService, type IngestService } from '../../../server/ingest/service';
import { createLogger } from '../../../server/logger';
import type { DeclarationStore } from '../../../server/declarations/declaration-records';
import { jsonStorage } from '../../helpers/json-storage';

const logger = createLogger('silent');
const store = {} as DeclarationStore;
const ok = { ok: true, summary: {} } as RefreshResult;
const failed: RefreshResult = {
  ok: false,
  error: new IngestError('network', 'down'),
  lastUpdated: null,
  durationMs: 1,
};

let service: IngestService | null = null;
afterEach(async () => {
  await service?.stop();
  service = null;
});

/** Never opened: the refresh is the test's. */
const storage = jsonStorage('/nonexistent');

function start(
  results: RefreshResult[],
  schedule = '0 3 * * *',
  extra: { beforeScheduledRun?: () => Promise<void>; declarations?: DeclarationStore } = {},
) {
  const calls: RefreshOptions[] = [];
  service = startIngestService({
    schedule,
    storage,
    baseUrl: 'http://127.0.0.1:9',
    declarations: extra.declarations ?? store,
    logger,
    retryAfterFailure: { first: 30, max: 60 },
    ...extra,
    refresh: async (options) => {
      calls.push(options);
      await new Promise((r) => setTimeout(r, 10));
      return results.shift() ?? ok;
    },
  });
  return { service, calls };
}

// A bound for a busy machine only: the conditions hold within milliseconds (the schedule's within a second) when idle.
const waitFor = async (predicate: () => boolean, ms = 20_000) => {
  const until = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('ingest scheduling in the server', () => {
  it('refreshes on demand with the configured sources, and joins a run already in progress', async () => {
    const { service, calls } = start([ok]);
    const [a, b] = await Promise.all([service.runNow('startup'), service.runNow('startup')]);
    expect(a).toBe(b);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ baseUrl: 'http://127.0.0.1:9', trigger: 'startup' });
    // Into the stores the service was given (the registry's), never stores of its own.
    expect(calls[0]!.storage).toBe(storage);
    expect(calls[0]!.fetcher!.userAgent).toMatch(/^Mozilla/);
  });

  it('runs on the cron schedule (Australia/Sydney) and renews the postcode correspondence then', async () => {
    let renewed = 0;
    // The hook the server renews the postcode correspondence with (server/runtime.ts).
    const { service, calls } = start([], '* * * * * *', { beforeScheduledRun: async () => void renewed++ });
    expect(service.nextRun()!.getTime() - Date.now()).toBeLessThanOrEqual(1_000);
    await waitFor(() => calls.length >= 1);
    expect(calls[0]!.trigger).toBe('schedule');
    expect(renewed).toBeGreaterThanOrEqual(1);
  });

  it('schedules daily by default: the next run is within a day', () => {
    const { service } = start([]);
    const next = service.nextRun()!.getTime() - Date.now();
    expect(next).toBeGreaterThan(0);
    expect(next).toBeLessThanOrEqual(24 * 3600_000 + 3600_000);
  });

  it('retries a failed refresh after a growing delay until one succeeds', async () => {
    const { service, calls } = start([failed, failed, ok]);
    await service.runNow('startup');
    await waitFor(() => calls.length >= 3);
    await new Promise((r) => setTimeout(r, 150));
    expect(calls).toHaveLength(3);
    expect(calls.slice(1).map((c) => c.trigger)).toEqual(['schedule', 'schedule']);
  });

  const busy: RefreshResult = {
    ok: false,
    error: new IngestError('busy', 'another refresh'),
    lastUpdated: null,
    durationMs: 0,
  };

  it('when another process holds the refresh lock, looks again later and does not refresh if that one stored data', async () => {
    const declarations = { current: { last_updated: null as string | null } } as unknown as DeclarationStore;
    const { service, calls } = start([busy], undefined, { declarations });
    await service.runNow('startup');
    // The other process stores its data before our second look.
    (declarations.current as { last_updated: string | null }).last_updated = new Date(Date.now() + 1000).toISOString();
    await new Promise((r) => setTimeout(r, 150));
    expect(calls).toHaveLength(1);
  });

  it('when the process that held the lock stored nothing (it died), refreshes itself at the second look', async () => {
    const declarations = { current: { last_updated: null } } as unknown as DeclarationStore;
    const { service, calls } = start([busy, ok], undefined, { declarations });
    await service.runNow('startup');
    await waitFor(() => calls.length >= 2);
    await new Promise((r) => setTimeout(r, 100));
    expect(calls).toHaveLength(2);
  });

  it('stops the schedule and cancels a running refresh', async () => {
    const { service, calls } = start([failed]);
    const run = service.runNow('startup');
    await service.stop();
    await run;
    expect(calls[0]!.signal!.aborted).toBe(true);
    expect(service.nextRun()).toBeNull();
    await new Promise((r) => setTimeout(r, 100));
    expect(calls).toHaveLength(1);
  });
});
