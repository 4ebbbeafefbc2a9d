import { describe, expect, it } from 'vitest';
import { CatchmentResponse } from '../../../shared/api/catchment';
import { startServerProcess, type ServerProcess } from '../../helpers/spawn-server';
import { tempDir } from '../../helpers/temp-dir';
import { seedAccount, startTestServer } from '../../helpers/test-server';
import { SessionClient } from '../auth/session-client';

const KILLS = 8;
/**
 * How much longer than a start over an untouched DATA_DIR a start after kill -9 may take. Process start itself (tsx
 * compiling the server, the postcode index) takes 1.5–3 s here and varies by a second or so; a lock left without its
 * owner record was waited out for its 10 s staleness on top. The margin leaves room for a loaded machine (CI runs
 * other test files beside this one) and still tells those 10 s apart.
 */
const EXTRA_START_MS = 6_000;

/** A distinct list for every save: which of 12 postcodes are in it follows the bits of `n`. */
const listFor = (n: number) =>
  Array.from({ length: 12 }, (_, bit) => String(2000 + bit * 10)).filter((_, bit) => ((n + 1) >> bit) & 1);

async function timedStart(dataDir: string): Promise<{ server: ServerProcess; url: string; ms: number }> {
  const started = Date.now();
  const { server, url } = await startServerProcess({ DATA_DIR: dataDir });
  return { server, url, ms: Date.now() - started };
}

async function savedList(client: SessionClient): Promise<string[]> {
  const res = await client.get('/api/v1/catchment');
  expect(res.status).toBe(200);
  return CatchmentResponse.parse(await res.json()).data.postcodes.map((p) => p.postcode);
}

describe('the server killed with SIGKILL while it saves catchments (JSON files)', () => {
  it(
    `starts again within ${EXTRA_START_MS} ms of a clean start, with the last acknowledged save, ${KILLS} kills out of ${KILLS}`,
    async () => {
      const dataDir = await tempDir('dte-kill-writes-');
      const setup = await startTestServer({ dataDir });
      const clinic = await seedAccount(setup.runtime, { withKey: false });
      await setup.close();

      const first = await timedStart(dataDir);
      const cleanStartMs = first.ms;
      let { server, url } = first;
      const restarts: number[] = [];
      let saves = 0;
      try {
        for (let round = 0; round < KILLS; round++) {
          const client = new SessionClient(url);
          expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
          let acknowledged: string[] | null = null;
          let inFlight: string[] | null = null;
          let stop = false;
          // Saves one after another until the kill; each answered 200 is durable, the one in flight may or may not be.
          const writer = (async () => {
            while (!stop) {
              const list = listFor(saves++);
              inFlight = list;
              try {
                const res = await client.request('PUT', '/api/v1/catchment', { body: { postcodes: list } });
                if (res.status !== 200) throw new Error(`save answered ${res.status}: ${await res.text()}`);
                acknowledged = list;
              } catch (err) {
                if (stop) return; // the connection died with the server
                throw err;
              }
            }
          })();
          await new Promise((r) => setTimeout(r, 100 + Math.random() * 500));
          stop = true;
          await server.kill(); // SIGKILL to the process group
          await writer;
          expect(acknowledged, 'at least one save answered before the kill').not.toBeNull();

          const again = await timedStart(dataDir);
          restarts.push(again.ms);
          ({ server, url } = again);
          const reader = new SessionClient(url);
          expect((await reader.login(clinic.email, clinic.password)).status).toBe(200);
          expect([acknowledged, inFlight]).toContainEqual(await savedList(reader));
        }
      } finally {
        await server.kill();
      }
      console.log(
        `clean start ${cleanStartMs} ms; restarts after kill -9 (ms): ${restarts.join(', ')}; ${saves} saves`,
      );
      expect(
        restarts.filter((ms) => ms > cleanStartMs + EXTRA_START_MS),
        `clean start ${cleanStartMs} ms, restarts (ms): ${restarts.join(', ')}`,
      ).toEqual([]);
    },
    KILLS * 25_000,
  );
});
