import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}

/**
 * A webhook receiver on 127.0.0.1 (the server must allow private addresses: WEBHOOK_ALLOW_PRIVATE_ADDRESSES): records
 * each request, answers the next status of `statuses` (then 200).
 */
export async function startReceiver() {
  const received: ReceivedDelivery[] = [];
  const statuses: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.statusCode = statuses.shift() ?? 200;
      res.end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/dte`,
    port,
    received,
    statuses,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
