/**
 * Polls `probe` until it returns a value other than undefined/null/false, or fails after `timeoutMs`.
 * Tests use it instead of fixed sleeps: it returns as soon as the condition holds, and the bound makes it fail.
 */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  {
    timeoutMs = 2_000,
    intervalMs = 25,
    what = 'condition',
  }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<{ value: T; elapsedMs: number }> {
  const started = Date.now();
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return { value, elapsedMs: Date.now() - started };
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() - started > timeoutMs) {
      const why = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
