import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { IngestError } from '../../../server/ingest/errors';
import type { RefreshProgress, RefreshSummary } from '../../../server/ingest/refresh';
import { formatFailure, formatSummary, progressReporter } from '../../../server/ingest/report';

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk.toString('utf8'));
        done();
      },
    }),
    { isTTY, columns: 120, cursorTo: () => true, clearLine: () => true, moveCursor: () => true },
  );
  return { stream, text: () => chunks.join('') };
}

const steps: RefreshProgress[] = [
  { phase: 'fetching', listPages: 0, listed: 0, eventPagesParsed: 0, listPath: null },
  { phase: 'fetching', listPages: 0, listed: 0, eventPagesParsed: 0, listPath: 'browser' },
  { phase: 'fetching', listPages: 1, listed: 25, eventPagesParsed: 0, listPath: 'browser' },
  { phase: 'fetching', listPages: 2, listed: 50, eventPagesParsed: 10, listPath: 'browser' },
  ...Array.from({ length: 200 }, (_, i): RefreshProgress => ({
    phase: 'fetching',
    listPages: 9,
    listed: 225,
    eventPagesParsed: 11 + i,
    listPath: 'browser',
  })),
  { phase: 'merging', listPages: 9, listed: 225, eventPagesParsed: 225, listPath: 'browser' },
  { phase: 'writing', listPages: 9, listed: 225, eventPagesParsed: 225, listPath: 'browser' },
];

describe('progress of npm run ingest', () => {
  it('prints plain lines when not on a terminal: list pages, every 100 declarations, each phase', () => {
    const { stream, text } = sink(false);
    const progress = progressReporter(stream);
    steps.forEach((p) => progress.update(p));
    progress.stop();
    expect(text()).toBe(
      [
        'the list page as served has no rows: reading the list in Chromium',
        'list page 1 fetched: 25 declarations listed so far',
        'list page 2 fetched: 50 declarations listed so far',
        'list page 9 fetched: 225 declarations listed so far',
        '100 of 225 declarations parsed',
        '200 of 225 declarations parsed',
        '225 of 225 declarations parsed; merging',
        '225 of 225 declarations parsed; writing',
        '',
      ].join('\n'),
    );
  });

  it('draws a bar of declarations parsed and list pages fetched on a terminal', () => {
    const { stream, text } = sink(true);
    const progress = progressReporter(stream);
    steps.forEach((p) => progress.update(p));
    progress.stop();
    expect(text()).toMatch(/Refreshing \[[█░]+\] 225\/225 declarations parsed \| 9 list pages fetched \| writing/);
    expect(text()).not.toContain('list page 1 fetched');
  });

  it('prints nothing with --quiet', () => {
    const { stream, text } = sink(true);
    const progress = progressReporter(stream, true);
    steps.forEach((p) => progress.update(p));
    progress.stop();
    expect(text()).toBe('');
  });
});

describe('summary and failure messages', () => {
  const summary: RefreshSummary = {
    started_at: '2026-03-01T00:00:00.000Z',
    finished_at: '2026-03-01T00:00:09.000Z',
    duration_ms: 9_100,
    dry_run: false,
    list_path: 'browser',
    list_pages: 38,
    listed: 900,
    event_pages: 900,
    drfa: {
      csv_url: 'https://data.example/drfa-2026-01-30.csv',
      package_url: 'https://data.example/api/3/action/package_show?id=drfa',
      activations: 819,
      lga_rows: 5859,
      sal_rows: 134,
      skipped_rows: 0,
    },
    stored: 905,
    added: ['1301', '1302'],
    changed: Array.from({ length: 25 }, (_, i) => String(1000 + i)),
    ended: ['1001'],
    unmatched: [{ agrn: '1216', state: 'NSW', name: 'Clarence Vale' }],
    csv_only_included: ['1303'],
    csv_only_skipped: 40,
    invalid: [],
    warnings: ['AGRN 1195: DRFA CSV row Murray (56230) is not in QLD; ignored'],
    requests: 941,
  };

  it('says what changed', () => {
    const text = formatSummary(summary);
    expect(text).toContain('Refresh succeeded in 9.1 s (941 requests); last_updated is now 2026-03-01T00:00:09.000Z.');
    expect(text).toContain(
      'DisasterAssist: 38 list pages read as rendered by Chromium (the served HTML has no rows), 900 declarations listed, 900 event pages parsed.',
    );
    expect(text).toContain(
      'DRFA CSV: 819 AGRNs from 5859 LGA rows (134 suburb rows ignored); 1 not on DisasterAssist yet included, 40 older ones left out.\n' +
        '    read from https://data.example/drfa-2026-01-30.csv (the CSV resource of https://data.example/api/3/action/package_show?id=drfa)',
    );
    expect(text).toContain('Added 2: 1301, 1302\n');
    expect(text).toContain(
      'Changed 25: 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 1015, 1016, 1017, 1018, 1019, … (5 more)',
    );
    expect(text).toContain('Ended 1: 1001');
    expect(text).toContain('Unmatched LGA names 1: Clarence Vale (NSW, AGRN 1216)');
    expect(text).toContain('Warnings 1:\n    AGRN 1195: DRFA CSV row Murray (56230) is not in QLD; ignored');
    expect(formatSummary({ ...summary, drfa: null })).toContain('DRFA CSV: not used (DRFA_CSV_URL=none)');
    expect(formatSummary({ ...summary, list_path: 'html' })).toContain(
      'DisasterAssist: 38 list pages read from the HTML as served, 900',
    );
  });

  it('says what a dry run would change, and that nothing was stored', () => {
    const text = formatSummary({ ...summary, dry_run: true });
    expect(text).toMatch(/^Dry run: a refresh would succeed \(9\.1 s, 941 requests\); nothing was stored\.\n/);
    expect(text).toContain('Stored declarations: 905 after the refresh.');
    expect(text).toContain('Would add 2: 1301, 1302\n');
    expect(text).toContain('Would end 1: 1001');
    const error = new IngestError('thin', 'only 3 declarations read');
    expect(formatFailure({ ok: false, error, lastUpdated: null, durationMs: 5 }, true)).toBe(
      'Dry run: refresh would fail (thin): only 3 declarations read\nDry run: nothing was stored; a refresh now would be refused the same way.',
    );
  });

  it('says why a refresh failed and that the data is kept', () => {
    const error = new IngestError('invalid_records', '2 declarations could not be read', ['AGRN 1: a', 'AGRN 2: b']);
    expect(formatFailure({ ok: false, error, lastUpdated: '2026-03-01T00:00:09.000Z', durationMs: 5 })).toBe(
      'Refresh failed (invalid_records): 2 declarations could not be read\n  AGRN 1: a\n  AGRN 2: b\nThe last good data (last_updated 2026-03-01T00:00:09.000Z) is kept unchanged.',
    );
    expect(formatFailure({ ok: false, error, lastUpdated: null, durationMs: 5 })).toMatch(
      /No data has been stored yet: checks keep answering 503 data_unavailable\.$/,
    );
  });
});
