import type { AlongsideWrite } from './document-store';

/** Several writes as one alongside an update, in order, in its transaction (those undefined skipped). */
export function alongsideAll(...writes: (AlongsideWrite | undefined)[]): AlongsideWrite {
  return {
    async write(transaction) {
      for (const write of writes) await write?.write(transaction);
    },
  };
}
