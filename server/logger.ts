import { pino, type Logger } from 'pino';
import { stdoutLogDestination } from './log-destination';

export type { Logger };

/**
 * JSON lines, on stdout unless told otherwise. Anything that could carry a secret is redacted in case a caller ever
 * logs it by mistake. Stdout is written in batches and never waited for (see log-destination.ts): a line is out
 * within a fraction of a second, and whatever is queued is written when the process exits; lines that a stopped
 * reader leaves no room for are dropped and counted rather than allowed to hold the process.
 */
/** What every line carries besides its own fields: level and ISO time, no pid or hostname. */
const LINE_FORMAT = { base: undefined, timestamp: pino.stdTimeFunctions.isoTime };

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      ...LINE_FORMAT,
      redact: {
        paths: [
          'password',
          '*.password',
          'api_key',
          '*.api_key',
          'headers["x-api-key"]',
          '*.headers["x-api-key"]',
          'headers.cookie',
          '*.headers.cookie',
        ],
        censor: '[redacted]',
      },
    },
    (destination as pino.DestinationStream | undefined) ?? stdoutLogDestination(),
  );
}

/**
 * The logger of the per-request lines: the same destination and level, without redaction. Those lines hold only
 * fixed fields that never carry a secret (method, path, status, duration, key id), and redaction doubled their cost.
 */
export function requestLineLogger(logger: Logger): Logger {
  const destination = (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym];
  return pino({ level: logger.level, ...LINE_FORMAT }, destination);
}
