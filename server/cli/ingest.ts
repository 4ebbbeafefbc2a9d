import { parseArgs } from 'node:util';
import { ConfigError, fatalLine, loadProcessConfig } from '../config';
import { DEFAULT_FETCHER_OPTIONS } from '../http-client/fetcher';
import { runDryRun, runRefresh, type RefreshResult } from '../ingest/refresh';
import { formatFailure, formatSummary, progressReporter } from '../ingest/report';
import { createLogger } from '../logger';
import { openRuntime } from '../runtime';

const USAGE = `Usage: npm run ingest [-- options]

Refreshes the disaster declarations in DATA_DIR now from DISASTERASSIST_BASE_URL and DRFA_CSV_URL. A running
server picks the new data up within a second. A refresh is all or nothing: on any failure the last good data and
its last_updated stay, the reason is printed and the exit code is 1. When the list page's HTML has no rows (the
live site draws them with a script), the list is read in a headless Chromium (CHROMIUM_PATH or Debian's).

Options:
  --dry-run            read and check everything, print what a refresh would change, store nothing;
                       exit 1 when a refresh would be refused
  --max-invalid N      leave out up to N declarations whose event page cannot be read (default 0)
  --concurrency N      requests in flight at once (default ${DEFAULT_FETCHER_OPTIONS.concurrency})
  --timeout-ms N       time allowed for each request (default ${DEFAULT_FETCHER_OPTIONS.timeoutMs})
  --retries N          retries of a failed request (default ${DEFAULT_FETCHER_OPTIONS.retries})
  --retry-delay-ms N   first back-off before a retry, doubled each time, with jitter (default ${DEFAULT_FETCHER_OPTIONS.retryBaseMs})
  --json               print the summary as JSON
  --quiet              no progress output
  -h, --help           this text

Exit codes: 0 refreshed, 1 refresh refused (data kept), 2 usage or configuration error.`;

function count(value: string | undefined, name: string, min: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[0-9]+$/.test(value) || Number(value) < min) {
    throw new Error(`--${name} must be a whole number of at least ${min}`);
  }
  return Number(value);
}

interface IngestArgs {
  dryRun: boolean;
  json: boolean;
  quiet: boolean;
  maxInvalid: number;
  fetcher: { concurrency: number; timeoutMs: number; retries: number; retryBaseMs: number };
}

/** The command line read, or the exit code when there is nothing to run (help, or a usage error printed). */
function readArgs(argv: string[]): IngestArgs | number {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      options: {
        'dry-run': { type: 'boolean' },
        'max-invalid': { type: 'string' },
        concurrency: { type: 'string' },
        'timeout-ms': { type: 'string' },
        retries: { type: 'string' },
        'retry-delay-ms': { type: 'string' },
        json: { type: 'boolean' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
    if (values.help) {
      process.stdout.write(USAGE + '\n');
      return 0;
    }
    const option = (name: string) => values[name] as string | undefined;
    const defaults = DEFAULT_FETCHER_OPTIONS;
    return {
      dryRun: values['dry-run'] === true,
      json: values.json === true,
      quiet: values.quiet === true,
      maxInvalid: count(option('max-invalid'), 'max-invalid', 0, 0),
      fetcher: {
        concurrency: count(option('concurrency'), 'concurrency', 1, defaults.concurrency),
        timeoutMs: count(option('timeout-ms'), 'timeout-ms', 1, defaults.timeoutMs),
        retries: count(option('retries'), 'retries', 0, defaults.retries),
        retryBaseMs: count(option('retry-delay-ms'), 'retry-delay-ms', 0, defaults.retryBaseMs),
      },
    };
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
}

async function main(argv: string[]): Promise<number> {
  const args = readArgs(argv);
  if (typeof args === 'number') return args;
  // Standard output is the summary. The stores are opened by the refresh's first use of them: a dry run only reads.
  const runtime = await openRuntime(loadProcessConfig(), {
    purpose: 'ingest',
    logger: createLogger('warn', process.stderr),
  });
  const progress = progressReporter(process.stderr, args.quiet || args.json);
  // SIGTERM or Ctrl-C cancels the refresh: it writes nothing, and the browser (if one was started) is closed.
  const cancel = new AbortController();
  const onSignal = () => cancel.abort();
  process.once('SIGTERM', onSignal).once('SIGINT', onSignal);
  const { refreshSettings } = runtime;
  const result = await (args.dryRun ? runDryRun : runRefresh)({
    ...refreshSettings,
    fetcher: { ...args.fetcher, ...refreshSettings.fetcher },
    trigger: 'cli',
    maxInvalidRecords: args.maxInvalid,
    onProgress: (p) => progress.update(p),
    signal: cancel.signal,
  });
  progress.stop();
  await runtime.close();
  report(result, args);
  return result.ok ? 0 : 1;
}

function report(result: RefreshResult, args: IngestArgs): void {
  if (args.json) {
    const body = result.ok
      ? { ok: true, ...result.summary }
      : {
          ok: false,
          dry_run: args.dryRun,
          kind: result.error.kind,
          message: result.error.message,
          details: result.error.details,
          last_updated: result.lastUpdated,
        };
    process.stdout.write(JSON.stringify(body, null, 2) + '\n');
  } else if (result.ok) process.stdout.write(formatSummary(result.summary) + '\n');
  else process.stderr.write(formatFailure(result, args.dryRun) + '\n');
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(fatalLine(err, 'Error') + '\n');
    process.exit(err instanceof ConfigError ? 2 : 1);
  },
);
