import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvUrlFromCkanPackage, downloadDrfaCsv } from '../../../server/ingest/drfa-source';
import { IngestError } from '../../../server/ingest/errors';
import { PoliteFetcher } from '../../../server/http-client/fetcher';
import { ckanPackageJson } from '../../fixtures/ingest/site';

const PACKAGE = 'https://data.example/data/api/3/action/package_show?id=drfa-activation-history-by-lga';
const pkg = (resources: unknown[], success = true) => JSON.stringify({ success, result: { name: 'drfa', resources } });

describe('the DRFA CSV named by a CKAN package', () => {
  it('takes the newest CSV resource, not an older CSV or another format', () => {
    expect(csvUrlFromCkanPackage(ckanPackageJson('https://data.example/drfa-2026-01-30.csv'), PACKAGE)).toBe(
      'https://data.example/drfa-2026-01-30.csv',
    );
    const byFormatOnly = pkg([
      { format: 'csv', url: 'https://data.example/download?id=7', last_modified: '2026-01-01' },
    ]);
    expect(csvUrlFromCkanPackage(byFormatOnly, PACKAGE)).toBe('https://data.example/download?id=7');
  });

  it.each([
    ['not JSON', '<html>maintenance</html>', /is not JSON/],
    ['an unsuccessful answer', pkg([], false), /says success: false/],
    [
      'no CSV resource',
      pkg([{ format: 'XLSX', url: 'https://data.example/x.xlsx' }]),
      /lists no CSV resource \(1 resources\)/,
    ],
    [
      'a CSV resource that is not http(s)',
      pkg([{ format: 'CSV', url: 'ftp://data.example/x.csv' }]),
      /is not an http\(s\) URL/,
    ],
  ])('refuses %s as a changed source', (_name, body, message) => {
    let caught: unknown;
    try {
      csvUrlFromCkanPackage(body, PACKAGE);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(IngestError);
    expect((caught as IngestError).kind).toBe('structure');
    expect((caught as IngestError).message).toMatch(message);
  });
});

describe('downloadDrfaCsv', () => {
  const csv = '\uFEFFLocation_Name,Location_Type,Location_code\nAlbury,LGA,10050\n';
  let server: http.Server;
  let base = '';
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/pkg') res.end(ckanPackageJson(`${base}/files/drfa.csv`));
      else if (url.pathname === '/pkg-json-resource') res.end(pkg([{ format: 'CSV', url: `${base}/pkg` }]));
      else if (url.pathname === '/files/drfa.csv') res.end(csv);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const fetcher = () => new PoliteFetcher({ retries: 0, timeoutMs: 2_000 });

  it('follows a package URL to its CSV, and reads a CSV URL as it is', async () => {
    const text = csv.slice(1); // the byte-order mark is gone once decoded
    expect(await downloadDrfaCsv(`${base}/pkg`, fetcher())).toEqual({
      csvUrl: `${base}/files/drfa.csv`,
      packageUrl: `${base}/pkg`,
      text,
    });
    expect(await downloadDrfaCsv(`${base}/files/drfa.csv`, fetcher())).toEqual({
      csvUrl: `${base}/files/drfa.csv`,
      packageUrl: null,
      text,
    });
  });

  it('refuses a "CSV" resource that answers JSON instead of following packages forever', async () => {
    await expect(downloadDrfaCsv(`${base}/pkg-json-resource`, fetcher())).rejects.toThrow(
      /CSV resource \(.*\/pkg\) is JSON, not a CSV/,
    );
  });
});
