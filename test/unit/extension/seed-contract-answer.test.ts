import { describe, expect, it } from 'vitest';
import { requestCheck } from '../../../extension/background/check-request';
import type { Fetch } from '../../../ui/api/server-request';
import type { CheckOutcome } from '../../../ui/result/outcome';
import { badgeView } from '../../../ui/result/badge-view';
import { renderResultView } from '../../../ui/result/result-view';
import { ClientCheckResponse } from '../../../ui/result/check-answer';
import { CheckResponse } from '../../../shared/api/check';
import { seedAnswer } from '../../browser/helpers/seed-server';
import { brisbaneResult, dom, partialAmberResult } from './fixtures';

const SERVER = 'https://eligibility.example.test';
const KEY = 'sk_live_0123456789abcdefABCDEF0123456789abcdef';

/** The extension's check against a server that answers `body` with 200. */
function check(body: unknown, postcode = '4000'): Promise<CheckOutcome> {
  const fetch: Fetch = async () =>
    new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  return requestCheck(fetch, SERVER, KEY, postcode);
}

function panel(outcome: CheckOutcome): HTMLElement {
  const { document } = dom('');
  return renderResultView(document, outcome, { copy: async () => true });
}

describe('an answer with only the first contract’s fields (SPEC.md Part A)', () => {
  it('is not what this server sends (the shared schema refuses it), yet the extension reads it', async () => {
    expect(CheckResponse.safeParse(seedAnswer('4000')).success).toBe(false);
    // The lenient parse keeps the answer as it came: nothing added, nothing dropped.
    for (const postcode of ['4000', '2480']) {
      expect(ClientCheckResponse.parse(seedAnswer(postcode))).toEqual(seedAnswer(postcode));
    }
    const outcome = await check(seedAnswer('4000'));
    expect(outcome.ok).toBe(true);
  });

  it('gives the badge its words: eligible or not, with the LGA', async () => {
    expect(badgeView(await check(seedAnswer('4000'))).label).toBe('Eligible · Brisbane');
    const lismore = await check(seedAnswer('2480'), '2480');
    expect(badgeView(lismore)).toMatchObject({ tone: 'red', label: 'Not eligible · Lismore' });
  });

  it('the panel shows the LGA and the data date, and no word for a field that is missing', async () => {
    const view = panel(await check(seedAnswer('4000')));
    expect(view.querySelector('.dte-location')!.textContent).toContain('Council area (LGA)Brisbane');
    // No source named and no staleness warning: the answer says neither.
    const meta = view.querySelector('.dte-meta')!.textContent;
    expect(meta).toMatch(/^Data last updated .+\.$/);
    expect(meta).not.toMatch(/ from |48 hours/);
    expect(view.textContent).not.toMatch(/undefined|null|NaN/);
  });

  it('a declaration without its instrument (added later) is shown without a note, the rest as it was', async () => {
    const view = panel(await check(seedAnswer('4000')));
    expect((seedAnswer('4000') as { data: { disasters: object[] } }).data.disasters[0]).not.toHaveProperty(
      'instrument',
    );
    const declaration = view.querySelector('.dte-declaration')!;
    expect(declaration.querySelector('.dte-declaration-instrument')).toBeNull();
    expect(declaration.querySelector('.dte-declaration-meta')!.textContent).toMatch(
      /^Disaster reference \(AGRN\) 1195 · /,
    );
    expect(declaration.textContent).not.toMatch(/undefined|null/);
  });

  it('several LGAs without the declarations’ LGAs or the coverage: no partial cover it cannot know', async () => {
    const full = partialAmberResult();
    const { coverage, ...summary } = full.data.summary;
    const disasters = full.data.disasters.map(({ lgas: _lgas, ...d }) => d);
    const body = {
      success: true,
      data: { ...full.data, summary, disasters },
      metadata: { last_updated: full.metadata.last_updated },
    };
    expect(badgeView(await check(body, '4055')).label).toBe(
      'Eligible (long-running) · Moreton Bay + 1 more council area',
    );
    // With the coverage, the partial cover is said, without the names it cannot know; with them, by name.
    const withCoverage = { ...body, data: { ...body.data, summary: { ...summary, coverage } } };
    expect(badgeView(await check(withCoverage, '4055')).label).toBe('Check council area · only some covered');
    expect(badgeView(partialAmberResult()).label).toBe('Check council area · Moreton Bay covered, Brisbane not');
  });

  it('a field that is there must still be right: only missing fields are forgiven', async () => {
    const full = brisbaneResult();
    const wrong = { success: true, data: { ...full.data, location: { ...full.data.location, lgas: 'Brisbane' } } };
    expect(await check({ ...wrong, metadata: full.metadata })).toMatchObject({ ok: false, problem: 'server_error' });
    const noLga = { success: true, data: { ...full.data, location: { postcode: '4000' } }, metadata: full.metadata };
    expect(await check(noLga)).toMatchObject({ ok: false, problem: 'server_error' });
  });
});
