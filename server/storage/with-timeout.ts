/**
 * `work` within `ms`, else an Error: what keeps a shared store that hangs (Redis, PostgreSQL) from hanging requests.
 * node-redis's own command timeout stops at the socket (a command written to a Redis that hangs waits for ever), and a
 * pool may wait long for a connection, hence the race; a reply that comes later is dropped.
 */
export async function withTimeout<T>(work: () => Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no reply within ${ms} ms`)), ms);
  });
  const pending = work();
  // A reply after the timeout (or an error) must not become an unhandled rejection.
  pending.catch(() => undefined);
  try {
    return await Promise.race([pending, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
