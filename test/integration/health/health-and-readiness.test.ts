import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../../shared/api/envelope';
import { Health, Readiness } from '../../../shared/api/health';
import { startTestServer, type TestServer } from '../../helpers/test-server';

/**
 * /healthz (liveness) and /readyz (readiness) through a fresh install's life: before the first refresh, after it, and
 * two days later without another. /healthz is 200 throughout and says which; /readyz is 503 only while no check can
 * be answered.
 */
let server: TestServer;
let now = new Date('2026-03-02T00:00:00.000Z');

beforeAll(async () => {
  server = await startTestServer({ declarations: false, clock: () => now });
});
afterAll(() => server?.close());

async function health(): Promise<Health> {
  const res = await fetch(`${server.url}/healthz`);
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return Health.parse(await res.json());
}

async function readiness(): Promise<Response> {
  const res = await fetch(`${server.url}/readyz`);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return res;
}

describe('a fresh install, before its first refresh', () => {
  it('is alive, and /healthz says the data is unavailable', async () => {
    expect(await health()).toMatchObject({ status: 'unavailable', data_status: 'unavailable', last_updated: null });
  });

  it('is not ready: /readyz answers 503 data_unavailable with Retry-After', async () => {
    const res = await readiness();
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(ErrorEnvelope.parse(await res.json()).error).toEqual({
      code: 'data_unavailable',
      message: 'Disaster data is not available yet',
    });
  });
});

describe('after a refresh', () => {
  const refreshed = now.toISOString();
  beforeAll(async () => {
    await server.runtime.declarations.store.update((file) => {
      file.last_updated = refreshed;
    });
  });

  it('/healthz says ok and /readyz is 200', async () => {
    expect(await health()).toMatchObject({ status: 'ok', data_status: 'available', last_updated: refreshed });
    const res = await readiness();
    expect(res.status).toBe(200);
    expect(Readiness.parse(await res.json())).toEqual({
      status: 'ready',
      last_updated: refreshed,
      data_status: 'available',
    });
  });

  it('49 hours on without another: /healthz says stale, and /readyz stays 200 (stale checks are still answered)', async () => {
    now = new Date(now.getTime() + 49 * 3600_000);
    expect(await health()).toMatchObject({ status: 'stale', data_status: 'stale', last_updated: refreshed });
    const res = await readiness();
    expect(res.status).toBe(200);
    expect(Readiness.parse(await res.json())).toMatchObject({ status: 'ready', data_status: 'stale' });
  });
});

it('documents /readyz in the OpenAPI document, without credentials', async () => {
  const doc = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as {
    paths: Record<string, { get?: { security?: unknown; responses: Record<string, unknown> } }>;
  };
  expect(doc.paths['/readyz']?.get?.security).toEqual([]);
  expect(Object.keys(doc.paths['/readyz']!.get!.responses).sort()).toEqual(['200', '503']);
});
