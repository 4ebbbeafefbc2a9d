import { mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';

/**
 * The extension's downloads for a practice's IT provider (server/console/extension-downloads.ts): the package
 * `npm run zip:extension` writes beside the built console (.output/), at one address whatever its version, and the
 * policy examples of docs/policies/.
 */
const ZIP_URL = '/console/downloads/extension-chrome.zip';
const POLICIES = path.resolve(import.meta.dirname, '../../../docs/policies');

let server: TestServer;
let output: string;

beforeAll(async () => {
  // .output/ as a build leaves it: the console in console/, the packages beside it.
  // Named .output as npm start's is: a dot-folder that Express's sendFile refuses unless it is the root.
  output = path.join(await tempDir('dte-output-'), '.output');
  await mkdir(path.join(output, 'console'), { recursive: true });
  await writeFile(path.join(output, 'console', 'index.html'), '<!doctype html><title>console</title>');
  server = await startTestServer({ config: { CONSOLE_DIR: path.join(output, 'console') } });
});

afterAll(async () => {
  await server?.close();
});

describe('with packages built', () => {
  const current = Buffer.from('PK\u0003\u0004 the current package');

  beforeAll(async () => {
    const older = path.join(output, 'disaster-telehealth-eligibility-0.0.9-chrome.zip');
    await writeFile(older, 'PK\u0003\u0004 an older package');
    await utimes(older, new Date('2026-01-01'), new Date('2026-01-01'));
    await writeFile(path.join(output, 'disaster-telehealth-eligibility-0.1.0-chrome.zip'), current);
    await writeFile(path.join(output, 'disaster-telehealth-eligibility-0.1.0-sources.zip'), 'PK sources');
    await writeFile(path.join(output, 'disaster-telehealth-eligibility-0.1.0-firefox.zip'), 'PK firefox');
  });

  it('serves the newest Chrome package as a download, revalidated each time', async () => {
    const res = await fetch(server.url + ZIP_URL);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename=disaster-telehealth-eligibility-0.1.0-chrome.zip',
    );
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(Number(res.headers.get('content-length'))).toBe(current.length);
    expect(Buffer.from(await res.arrayBuffer()).equals(current)).toBe(true);
  });

  it('answers HEAD with the package’s size, so the console can say it is there', async () => {
    const res = await fetch(server.url + ZIP_URL, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBe(current.length);
  });
});

describe('without a package', () => {
  beforeAll(async () => {
    for (const version of ['0.0.9', '0.1.0']) {
      await rm(path.join(output, `disaster-telehealth-eligibility-${version}-chrome.zip`), { force: true });
    }
  });

  it('says how to build one (404, plain text)', async () => {
    const res = await fetch(server.url + ZIP_URL);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.text()).toContain('npm run zip:extension');
  });
});

describe('the policy examples', () => {
  it.each(['chrome-windows.reg', 'edge-windows.reg', 'chrome-linux.json', 'google-admin-console.json'])(
    '%s is a download of the file in docs/policies/',
    async (name) => {
      const res = await fetch(`${server.url}/console/downloads/policies/${name}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename=${name}`);
      expect(await res.text()).toBe(await readFile(path.join(POLICIES, name), 'utf8'));
    },
  );

  it.each(['/console/downloads/policies/..%2f..%2fpackage.json', '/console/downloads/policies/missing.reg'])(
    '%s is not served',
    async (route) => {
      expect((await fetch(server.url + route)).status).toBe(404);
    },
  );
});
