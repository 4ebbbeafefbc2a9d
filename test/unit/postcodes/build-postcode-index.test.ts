import { execFile } from 'node:child_process';
import { access, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBundledCorrespondence } from '../../../server/postcodes/correspondence-bundle';
import { REPO_ROOT, TSX } from '../../helpers/child-env';
import { tempDir } from '../../helpers/temp-dir';
import { ATTRIBUTION_2018, SMALL_2018, SMALL_2021 } from './correspondence-csv';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run data:postcodes -- …args` as npm runs it. Every test passes --out: the bundled file is never touched. */
function dataPostcodes(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      TSX,
      [path.join(REPO_ROOT, 'server/cli/build-postcode-index.ts'), ...args],
      { cwd: REPO_ROOT, timeout: 20_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

async function csv(dir: string, name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

// Concurrent: each test spawns tsx (about a second) in its own temp directory.
describe.concurrent('npm run data:postcodes', { timeout: 30_000 }, () => {
  it('builds the index from the 2018 layout, says what it wrote, and writes the same bytes again', async () => {
    const dir = await tempDir();
    const input = await csv(dir, 'abs-2018.csv', SMALL_2018);
    const out = path.join(dir, 'index.json');
    const run = await dataPostcodes([input, '--out', out, '--min-postcodes', '3']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^Wrote .*index\.json \([0-9.]+ kB\): 3 postcodes, 6 rows, 6 LGAs, Postcode 2018 → LGA 2018 \(2018 layout\)\.\n/,
    );
    expect(run.stdout).toContain(`\n${ATTRIBUTION_2018}\n`);
    const first = await readFile(out, 'utf8');
    const bundle = decodeBundledCorrespondence(JSON.parse(first));
    expect(bundle.metadata).toMatchObject({ builtFrom: 'abs-2018.csv', postcodeCount: 3, rowCount: 6 });
    expect(bundle.rows.filter((r) => r.postcode === '2350')).toEqual([
      { postcode: '2350', lga_code: '10130', lga_name: 'Armidale Regional (A)', ratio: 0.946597 },
      { postcode: '2350', lga_code: '17650', lga_name: 'Uralla (A)', ratio: 0.053403 },
    ]);
    await dataPostcodes([input, '--out', out, '--min-postcodes', '3']);
    expect(await readFile(out, 'utf8')).toBe(first);
  });

  it('builds the index from the 2021+ layout (POA 2021 → LGA 2023)', async () => {
    const dir = await tempDir();
    const out = path.join(dir, 'index.json');
    const run = await dataPostcodes([
      await csv(dir, 'poa-2021-lga-2023.csv', SMALL_2021),
      '--out',
      out,
      '--min-postcodes=2',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '2 postcodes, 4 rows, 4 LGAs, POA 2021 → LGA 2023 (2021+ layout), 1 unreadable rows skipped.',
    );
    expect(run.stdout).toContain(
      'Postal Area 2021 to Local Government Area 2023 correspondence (population weighted), © Commonwealth of Australia, CC BY 4.0',
    );
    const bundle = decodeBundledCorrespondence(JSON.parse(await readFile(out, 'utf8')));
    expect(bundle.rows.find((r) => r.postcode === '2350')).toEqual({
      postcode: '2350',
      lga_code: '10180',
      lga_name: 'Armidale',
      ratio: 0.95,
    });
  });

  it.each([
    [
      'a file that is not a correspondence',
      'postcode,suburb\n2350,Armidale\n',
      [],
      /^Refused: .*bad\.csv is not an ABS postcode → LGA correspondence: no LGA_CODE_…, LGA_NAME_…, RATIO or RATIO_FROM_TO column/,
    ],
    [
      'a slice of a correspondence',
      SMALL_2018,
      [],
      /^Refused: .*bad\.csv: only 3 postcodes \(at least 2000 expected of a national correspondence; --min-postcodes lowers that\)\n$/,
    ],
    [
      'the LGA → postcode direction',
      'LGA_CODE_2023,LGA_NAME_2023,POA_CODE_2021,RATIO_FROM_TO\n10180,Armidale,2350,0.9\n10180,Armidale,2351,0.1\n17650,Uralla,2350,0.4\n17650,Uralla,2358,0.6\n',
      ['--min-postcodes', '1'],
      /^Refused: .*bad\.csv: the ratios of 3 of 3 postcodes do not add up to 1/,
    ],
  ])('refuses %s with exit 1 and one line, writing nothing', async (_name, text, extra, message) => {
    const dir = await tempDir();
    const out = path.join(dir, 'index.json');
    const run = await dataPostcodes([await csv(dir, 'bad.csv', text), '--out', out, ...extra]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stdout).toBe('');
    expect(await exists(out)).toBe(false);
  });

  it('refuses a missing file with exit 1, and a call without one file with exit 2 and the usage', async () => {
    const dir = await tempDir();
    const missing = await dataPostcodes([path.join(dir, 'nope.csv'), '--out', path.join(dir, 'index.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Refused: .*nope\.csv could not be read: ENOENT/);
    const usage = await dataPostcodes(['--out', path.join(dir, 'index.json')]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(
      /^give exactly one correspondence CSV\n\nUsage: npm run data:postcodes -- <correspondence\.csv>/,
    );
  });
});
