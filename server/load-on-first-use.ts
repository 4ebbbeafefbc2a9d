/**
 * A library loaded by its first use instead of at start (a dynamic import): what an instance never uses — single
 * sign-on, MCP — then costs it no memory. A failed load is tried again by the next use.
 */
export function loadOnFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    }));
}
