import { parseArgs } from 'node:util';
import { ConfigError, fatalLine, loadProcessConfig } from '../config';
import { DEFAULT_FETCHER_OPTIONS } from '../http-client/fetcher';
import { runDryRun, runRefresh } from '../ingest/refresh';
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

class UsageError extends Error {}

function count(value: string | undefined, name: string, min: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[0-9]+$/.test(value) || Number(value) < min) {
    throw new UsageError(`--${name} must be a whole number of at least ${min}`);
  }
  return Number(value);
}

async function main(argv: string[]): Promise<number> {
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
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  let fetcher;
  let maxInvalid;
  try {
    maxInvalid = count(values['max-invalid'] as string | undefined, 'max-invalid', 0, 0);
    fetcher = {
      concurrency: count(
        values.concurrency as string | undefined,
        'concurrency',
        1,
        DEFAULT_FETCHER_OPTIONS.concurrency,
      ),
      timeoutMs: count(values['timeout-ms'] as string | undefined, 'timeout-ms', 1, DEFAULT_FETCHER_OPTIONS.timeoutMs),
      retries: count(values.retries as string | undefined, 'retries', 0, DEFAULT_FETCHER_OPTIONS.retries),
      retryBaseMs: count(
        values['retry-delay-ms'] as string | undefined,
        'retry-delay-ms',
        0,
        DEFAULT_FETCHER_OPTIONS.retryBaseMs,
      ),
    };
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }

  // Standard output is the summary; the refresh itself opens the declarations (a dry run must not even create them).
  const runtime = await openRuntime(loadProcessConfig(), {
    purpose: 'ingest',
    logger: createLogger('warn', process.stderr),
  });

  const json = values.json === true;
  const dryRun = values['dry-run'] === true;
  const progress = progressReporter(process.stderr, values.quiet === true || json);
  // SIGTERM or Ctrl-C cancels the refresh: it writes nothing, and the browser (if one was started) is closed.
  const cancel = new AbortController();
  const onSignal = () => cancel.abort();
  process.once('SIGTERM', onSignal).once('SIGINT', onSignal);
  const { refreshSettings } = runtime;
  const result = await (dryRun ? runDryRun : runRefresh)({
    ...refreshSettings,
    fetcher: { ...fetcher, ...refreshSettings.fetcher },
    trigger: 'cli',
    maxInvalidRecords: maxInvalid,
    onProgress: (p) => progress.update(p),
    signal: cancel.signal,
  });
  progress.stop();
  await runtime.close();
  if (json) {
    process.stdout.write(
      JSON.stringify(
        result.ok
          ? { ok: true, ...result.summary }
          : {
              ok: false,
              dry_run: dryRun,
              kind: result.error.kind,
              message: result.error.message,
              details: result.error.details,
              last_updated: result.lastUpdated,
            },
        null,
        2,
      ) + '\n',
    );
  } else if (result.ok) process.stdout.write(formatSummary(result.summary) + '\n');
  else process.stderr.write(formatFailure(result, dryRun) + '\n');
  return result.ok ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(fatalLine(err, 'Error') + '\n');
    process.exit(err instanceof ConfigError ? 2 : 1);
  },
);
