import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/**
 * Drives POST `path` on `url` with autocannon for a bounded time, cycling through the JSON `bodies` with the given
 * key. Loopback only: `url` is one of our own child servers.
 */
export async function loadPosts(options: {
  url: string;
  path: string;
  apiKey: string;
  bodies: readonly string[];
  connections: number;
  seconds: number;
  /** Headers over the JSON body's and the key's (an MCP client's Accept and Authorization). */
  headers?: Record<string, string>;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: `${options.url}${options.path}`,
    connections: options.connections,
    duration: options.seconds,
    requests: options.bodies.map((body) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': options.apiKey, ...options.headers },
      body,
    })),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/** Drives `POST /api/v1/check-postcode` on `url`, cycling through `postcodes` (see loadPosts). */
export function loadCheck(options: {
  url: string;
  apiKey: string;
  postcodes: readonly string[];
  connections: number;
  seconds: number;
}): Promise<LoadResult> {
  const { postcodes, ...rest } = options;
  const bodies = postcodes.map((postcode) => JSON.stringify({ postcode }));
  return loadPosts({ ...rest, path: '/api/v1/check-postcode', bodies });
}
