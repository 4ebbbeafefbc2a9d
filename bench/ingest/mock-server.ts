/** Serves the generated site from 127.0.0.1 in its own process (so the refresh being timed has the CPU to itself). */
import { startMockSite } from '../../test/fixtures/ingest/site';
import { generateSite } from './generate';

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 900);
  const padding = Number(process.argv[3] ?? 40_000);
  const rendering = process.argv[4] === 'script' ? 'script' : 'served';
  const site = generateSite(count);
  const mock = await startMockSite({
    declarations: site.declarations,
    pageSize: site.pageSize,
    drfaCsv: site.drfaCsv,
    listOptions: { padding, rendering },
    eventOptions: { padding },
  });
  process.stdout.write(
    JSON.stringify({ url: mock.url, drfaUrl: mock.drfaUrl, declarations: site.declarations.length }) + '\n',
  );
  process.on('SIGTERM', () => void mock.close().then(() => process.exit(0)));
}

void main();
