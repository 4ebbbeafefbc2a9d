import type { RequestListener } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An app of a test's own, served on an ephemeral loopback port: its base URL, and a close that ends every connection. */
export async function serveOnLoopback(app: RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(app);
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
