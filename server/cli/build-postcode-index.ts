import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseCorrespondenceCsv, type ParsedCorrespondence } from '../postcodes/correspondence';
import { bundleProblem, encodeBundledCorrespondence, MIN_BUNDLE_POSTCODES } from '../postcodes/correspondence-bundle';

const BUNDLED_FILE = fileURLToPath(new URL('../postcodes/bundled/abs-postcode-lga.json', import.meta.url));

const USAGE = `Usage: npm run data:postcodes -- <correspondence.csv> [options]

Rebuilds the bundled postcode → LGA index (${shown(BUNDLED_FILE)}), the server's default
postcode → LGA source, from an ABS population-weighted postcode → LGA correspondence CSV: the 2018 layout
(POSTCODE_2018 or postcode, LGA_CODE_2018, LGA_NAME_2018, RATIO) or the 2021+ one (POA_CODE_2021,
LGA_CODE_2023/_2024, LGA_NAME_…, RATIO_FROM_TO). Commit the rewritten file: npm start builds it into the server.

Options:
  --out FILE           write here instead of the bundled file
  --min-postcodes N    refuse a file with fewer postcodes (default ${MIN_BUNDLE_POSTCODES})
  -h, --help           this text

Exit codes: 0 written, 1 input refused (nothing written), 2 usage error.`;

/** A path inside the working directory relative to it, any other in full. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') ? relative : file;
}

/** "Postcode 2018 → LGA 2018 (2018 layout)" */
function editionText(p: ParsedCorrespondence): string {
  const from = p.layout === '2018' ? 'Postcode' : 'POA';
  return `${from} ${p.postcodeEdition ?? '(edition not named)'} → LGA ${p.lgaEdition ?? '(edition not named)'} (${p.layout} layout)`;
}

async function main(argv: string[]): Promise<number> {
  let parsedArgs;
  try {
    parsedArgs = parseArgs({
      args: argv,
      options: { out: { type: 'string' }, 'min-postcodes': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsedArgs;
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  const minText = values['min-postcodes'];
  if (positionals.length !== 1 || (minText !== undefined && !/^[0-9]+$/.test(minText))) {
    const why =
      positionals.length !== 1 ? 'give exactly one correspondence CSV' : '--min-postcodes must be a whole number';
    process.stderr.write(`${why}\n\n${USAGE}\n`);
    return 2;
  }
  const input = path.resolve(positionals[0]!);
  const out = path.resolve(values.out ?? BUNDLED_FILE);

  let text: string;
  try {
    text = await readFile(input, 'utf8');
  } catch (err) {
    process.stderr.write(`Refused: ${input} could not be read: ${(err as Error).message}\n`);
    return 1;
  }
  let parsed: ParsedCorrespondence;
  try {
    parsed = parseCorrespondenceCsv(text);
  } catch (err) {
    process.stderr.write(`Refused: ${input} is not an ABS postcode → LGA correspondence: ${(err as Error).message}\n`);
    return 1;
  }
  const problem = bundleProblem(parsed, { minPostcodes: minText === undefined ? undefined : Number(minText) });
  if (problem) {
    process.stderr.write(`Refused: ${input}: ${problem}\n`);
    return 1;
  }

  const json = encodeBundledCorrespondence(parsed, path.basename(input));
  const { postcode_count, row_count, lgas, attribution } = JSON.parse(json) as {
    postcode_count: number;
    row_count: number;
    lgas: unknown[];
    attribution: string;
  };
  // Renamed into place, so the server never starts on a half-written index.
  const partial = `${out}.${process.pid}.tmp`;
  await writeFile(partial, json);
  await rename(partial, out);
  const skipped = parsed.skipped > 0 ? `, ${parsed.skipped} unreadable rows skipped` : '';
  process.stdout.write(
    `Wrote ${shown(out)} (${(Buffer.byteLength(json) / 1024).toFixed(1)} kB): ` +
      `${postcode_count} postcodes, ${row_count} rows, ${lgas.length} LGAs, ${editionText(parsed)}${skipped}.\n` +
      `${attribution}\n`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`Could not build the postcode index: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
