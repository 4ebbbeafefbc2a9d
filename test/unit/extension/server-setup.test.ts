import { describe, expect, it, vi } from 'vitest';
import { probeServer } from '../../../extension/background/server-probe';
import { notSavedNotice, savedNotice } from '../../../extension/entrypoints/options/save-notice';
import type { Fetch } from '../../../ui/api/server-request';

const SERVER = 'https://eligibility.example.test';

const answering = (response: () => Response | Promise<Response>) => vi.fn<Fetch>(async () => response());
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('probeServer (the options page saves a server URL only once it answers as this service)', () => {
  it('asks /healthz of the server, without a key or a cookie', async () => {
    const fetch = answering(() => json(200, { status: 'ok', last_updated: null }));
    expect(await probeServer(fetch, SERVER)).toBe('ok');
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe(`${SERVER}/healthz`);
    expect(init?.credentials).toBe('omit');
    expect(new Headers(init?.headers).has('x-api-key')).toBe(false);
  });

  it('takes a newer server that says more, and an older one that says less', async () => {
    const newer = { status: 'stale', last_updated: '2026-01-01T00:00:00.000Z', data_status: 'stale', readyz: true };
    expect(
      await probeServer(
        answering(() => json(200, newer)),
        SERVER,
      ),
    ).toBe('ok');
    expect(
      await probeServer(
        answering(() => json(200, { status: 'ok', last_updated: null })),
        SERVER,
      ),
    ).toBe('ok');
  });

  it('something that answers but is not this service: a web page, another JSON, a missing path', async () => {
    const page = () => new Response('<!doctype html><title>Clinic</title>', { status: 200 });
    expect(await probeServer(answering(page), SERVER)).toBe('not_this_service');
    expect(
      await probeServer(
        answering(() => json(200, { ok: true })),
        SERVER,
      ),
    ).toBe('not_this_service');
    expect(
      await probeServer(
        answering(() => new Response('not found', { status: 404 })),
        SERVER,
      ),
    ).toBe('not_this_service');
  });

  it('nothing answers: a network error, a timeout, a proxy whose server is down', async () => {
    const refused = answering(() => Promise.reject(new TypeError('Failed to fetch')));
    expect(await probeServer(refused, SERVER)).toBe('unreachable');
    const timeout = answering(() => Promise.reject(new DOMException('timed out', 'TimeoutError')));
    expect(await probeServer(timeout, SERVER)).toBe('unreachable');
    expect(
      await probeServer(
        answering(() => new Response('', { status: 502 })),
        SERVER,
      ),
    ).toBe('unreachable');
  });
});

describe('what Save says', () => {
  it('a server that did not answer as this one: not saved, and what to check', () => {
    expect(notSavedNotice('unreachable', SERVER)).toEqual({
      kind: 'error',
      text: expect.stringMatching(/^Not saved: eligibility\.example\.test did not answer\. Check the Server URL/),
    });
    expect(notSavedNotice('not_this_service', `${SERVER}/console`)?.text).toMatch(
      /^Not saved: eligibility\.example\.test answered, but it is not a disaster eligibility server\./,
    );
  });

  it('"Saved." only when nothing known stops the checks', () => {
    expect(savedNotice(true, SERVER, { checked: true, problem: null })).toEqual({ kind: 'ok', text: 'Saved.' });
    expect(savedNotice(true, null, { checked: false })).toEqual({ kind: 'ok', text: 'Saved.' });
    // The alerts could not be checked for a reason the popup says: the server and the key are not in doubt.
    expect(savedNotice(true, SERVER, { checked: true, problem: 'busy' })).toEqual({ kind: 'ok', text: 'Saved.' });
    const refused = savedNotice(true, SERVER, { checked: true, problem: 'invalid_key' });
    expect(refused).toEqual({ kind: 'error', text: expect.stringMatching(/^Saved, but the server did not accept/) });
    expect(refused!.text).toContain('Ask the practice manager or IT for the current key.');
    expect(savedNotice(true, SERVER, { checked: true, problem: 'subscription_inactive' })?.text).toMatch(
      /subscription is inactive/,
    );
    expect(savedNotice(false, SERVER, { checked: true, problem: 'no_permission' })?.text).toMatch(
      /^Saved, but the browser did not allow access to eligibility\.example\.test\./,
    );
  });
});
