import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/**
 * Drives `POST /api/v1/check-postcode` on `url` with autocannon for a bounded time, cycling through `postcodes`
 * with the given key. Loopback only: `url` is one of our own child servers.
 */
export async function loadCheck(options: {
  url: string;
  apiKey: string;
  postcodes: readonly string[];
  connections: number;
  seconds: number;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: `${options.url}/api/v1/check-postcode`,
    connections: options.connections,
    duration: options.seconds,
    requests: options.postcodes.map((postcode) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': options.apiKey },
      body: JSON.stringify({ postcode }),
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
