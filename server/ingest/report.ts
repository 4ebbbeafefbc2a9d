import cliProgress from 'cli-progress';
import type { RefreshProgress, RefreshResult, RefreshSummary } from './refresh';

export interface ProgressReporter {
  update(progress: RefreshProgress): void;
  stop(): void;
}

/**
 * Progress of `npm run ingest`: a bar on a terminal (declarations parsed of those listed so far, list pages
 * fetched), plain lines otherwise (a log file, CI), never both.
 */
export function progressReporter(stream: NodeJS.WritableStream & { isTTY?: boolean }, quiet = false): ProgressReporter {
  if (quiet) return { update: () => undefined, stop: () => undefined };
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: 'Refreshing [{bar}] {value}/{total} declarations parsed | {pages} list pages fetched | {phase}',
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(p) {
        if (!started) {
          bar.start(Math.max(1, p.listed), 0, { pages: 0, phase: p.phase });
          started = true;
        }
        bar.setTotal(Math.max(1, p.listed));
        bar.update(p.eventPagesParsed, { pages: p.listPages, phase: p.phase });
      },
      stop: () => {
        if (started) bar.stop();
      },
    };
  }
  let pages = 0;
  let parsedStep = 0;
  let phase = '';
  let path: string | null = null;
  return {
    update(p) {
      if (p.listPath !== path) {
        path = p.listPath;
        if (path === 'browser') stream.write('the list page as served has no rows: reading the list in Chromium\n');
      }
      if (p.listPages > pages) {
        pages = p.listPages;
        stream.write(`list page ${pages} fetched: ${p.listed} declarations listed so far\n`);
      }
      const step = Math.floor(p.eventPagesParsed / 100);
      if (step > parsedStep) {
        parsedStep = step;
        stream.write(`${p.eventPagesParsed} of ${p.listed} declarations parsed\n`);
      }
      if (p.phase !== phase) {
        phase = p.phase;
        if (phase !== 'fetching') stream.write(`${p.eventPagesParsed} of ${p.listed} declarations parsed; ${phase}\n`);
      }
    },
    stop: () => undefined,
  };
}

function list(agrns: string[], max = 20): string {
  if (agrns.length === 0) return '';
  const shown = agrns.slice(0, max).join(', ');
  return `: ${shown}${agrns.length > max ? `, … (${agrns.length - max} more)` : ''}`;
}

const LIST_PATHS = {
  html: 'read from the HTML as served',
  browser: 'read as rendered by Chromium (the served HTML has no rows)',
} as const;

/** The summary printed after a successful refresh, or after a dry run (what a refresh would store). */
export function formatSummary(s: RefreshSummary): string {
  const lines = [
    s.dry_run
      ? `Dry run: a refresh would succeed (${(s.duration_ms / 1000).toFixed(1)} s, ${s.requests} requests); nothing was stored.`
      : `Refresh succeeded in ${(s.duration_ms / 1000).toFixed(1)} s (${s.requests} requests); last_updated is now ${s.finished_at}.`,
    `  DisasterAssist: ${s.list_pages} list pages ${LIST_PATHS[s.list_path]}, ${s.listed} declarations listed, ${s.event_pages} event pages parsed.`,
    s.drfa
      ? `  DRFA CSV: ${s.drfa.activations} AGRNs from ${s.drfa.lga_rows} LGA rows (${s.drfa.sal_rows} suburb rows ignored); ` +
        `${s.csv_only_included.length} not on DisasterAssist yet included, ${s.csv_only_skipped} older ones left out.\n` +
        `    read from ${s.drfa.csv_url}${s.drfa.package_url ? ` (the CSV resource of ${s.drfa.package_url})` : ''}`
      : '  DRFA CSV: not used (DRFA_CSV_URL=none); LGA codes come from name matching only.',
    `  Stored declarations: ${s.stored}${s.dry_run ? ' after the refresh' : ''}.`,
    `  ${s.dry_run ? 'Would add' : 'Added'} ${s.added.length}${list(s.added)}`,
    `  ${s.dry_run ? 'Would change' : 'Changed'} ${s.changed.length}${list(s.changed)}`,
    `  ${s.dry_run ? 'Would end' : 'Ended'} ${s.ended.length}${list(s.ended)}`,
    `  Unmatched LGA names ${s.unmatched.length}${list(s.unmatched.map((u) => `${u.name} (${u.state ?? '?'}, AGRN ${u.agrn})`))}`,
  ];
  if (s.invalid.length > 0) {
    lines.push(
      `  Skipped invalid records ${s.invalid.length}:`,
      ...s.invalid.map((p) => `    AGRN ${p.agrn}: ${p.reason}`),
    );
  }
  if (s.warnings.length > 0) {
    lines.push(`  Warnings ${s.warnings.length}:`, ...s.warnings.slice(0, 30).map((w) => `    ${w}`));
    if (s.warnings.length > 30) lines.push(`    … ${s.warnings.length - 30} more in ingest-state.json and the logs`);
  }
  return lines.join('\n');
}

/** The message printed when a refresh is refused (or a dry run finds it would be). */
export function formatFailure(result: Extract<RefreshResult, { ok: false }>, dryRun = false): string {
  const kept = dryRun
    ? 'Dry run: nothing was stored; a refresh now would be refused the same way.'
    : result.lastUpdated
      ? `The last good data (last_updated ${result.lastUpdated}) is kept unchanged.`
      : 'No data has been stored yet: checks keep answering 503 data_unavailable.';
  const details = result.error.details.slice(0, 20).map((d) => `  ${d}`);
  if (result.error.details.length > 20) details.push(`  … ${result.error.details.length - 20} more`);
  return [
    `${dryRun ? 'Dry run: refresh would fail' : 'Refresh failed'} (${result.error.kind}): ${result.error.message}`,
    ...details,
    kept,
  ].join('\n');
}
