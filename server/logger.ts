import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON lines on stdout. Anything that could carry a secret is redacted in case a caller ever logs it by mistake. */
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
    destination as pino.DestinationStream | undefined,
  );
}
