import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the other host received it: all of it, so a key or a password in any part shows. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A clinic's server that answers every request with a redirect (`status`, changeable) to the same path on another
 * host, and that other host, which records what reaches it and answers as this service's /healthz would (an answer
 * that must never be taken for the clinic's). Both on loopback, ephemeral ports.
 */
export interface RedirectingServers {
  /** The redirecting server's base URL (http://127.0.0.1:<port>). */
  url: string;
  status: number;
  /** What reached the other host. */
  received: ReceivedRequest[];
  close(): Promise<void>;
}

function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    );
  });
}

export async function startRedirectingServers(status = 307): Promise<RedirectingServers> {
  const received: ReceivedRequest[] = [];
  const other = await listen((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res
        .writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' })
        .end(JSON.stringify({ status: 'ok', last_updated: null }));
    });
  });
  const servers: RedirectingServers = {
    url: '',
    status,
    received,
    async close() {
      for (const { server } of [clinic, other]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
  const clinic = await listen((req, res) => {
    req.resume();
    res.writeHead(servers.status, { location: `${other.url}${req.url ?? '/'}` }).end();
  });
  servers.url = clinic.url;
  return servers;
}

/** The requests that reached the other host carrying `secrets` (a key, a password) anywhere. */
export function leaked(received: readonly ReceivedRequest[], secrets: readonly string[]): ReceivedRequest[] {
  return received.filter((r) => secrets.some((s) => JSON.stringify(r.headers).includes(s) || r.body.includes(s)));
}
