import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON lines, on stdout unless told otherwise. Anything that could carry a secret is redacted in case a caller ever
 * logs it by mistake. Stdout is written asynchronously: under load the lines queued behind a write in flight go out
 * together instead of one blocking write per request, and when idle a line still goes out at once. pino flushes
 * what is queued when the process exits.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['password', '*.password', 'api_key', '*.api_key', 'headers["x-api-key"]', '*.headers["x-api-key"]', 'headers.cookie', '*.headers.cookie'],
        censor: '[redacted]',
      },
    },
    (destination as pino.DestinationStream | undefined) ?? pino.destination({ dest: 1, sync: false }),
  );
}

/**
 * The logger of the per-request lines: the same destination and level, without redaction. Those lines hold only
 * fixed fields that never carry a secret (method, path, status, duration, key id), and redaction doubled their cost.
 */
export function requestLineLogger(logger: Logger): Logger {
  const destination = (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym];
  return pino({ level: logger.level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}
