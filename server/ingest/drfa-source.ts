import { IngestError } from './errors';
import type { PoliteFetcher } from '../http-client/fetcher';

/**
 * data.gov.au's CKAN description of NEMA's "DRFA Activation History by LGA", the declarations' second source. The
 * CSV's own file name changes with each NEMA update; the package's resource list always points at the current one.
 */
export const DRFA_PACKAGE_URL = 'https://data.gov.au/data/api/3/action/package_show?id=drfa-activation-history-by-lga';

export interface DrfaDownload {
  /** The CSV's URL: the configured one, or the one the CKAN package named. */
  csvUrl: string;
  /** The package URL the CSV was found through, when it was. */
  packageUrl: string | null;
  text: string;
}

interface CkanResource {
  url?: unknown;
  format?: unknown;
  mimetype?: unknown;
  name?: unknown;
  last_modified?: unknown;
  metadata_modified?: unknown;
  created?: unknown;
}

/** A CKAN action answer starts with a JSON object; a CSV never does. */
function looksLikeJson(text: string): boolean {
  return /^\uFEFF?\s*\{/.test(text);
}

const isCsv = (r: CkanResource) =>
  String(r.format ?? '')
    .trim()
    .toLowerCase() === 'csv' ||
  /csv/i.test(String(r.mimetype ?? '')) ||
  /\.csv(?:$|[?#])/i.test(String(r.url ?? ''));

const modified = (r: CkanResource) => String(r.last_modified ?? r.metadata_modified ?? r.created ?? '');

/**
 * The CSV resource's URL from a CKAN `package_show` answer. Several CSVs: the most recently modified one (NEMA may
 * leave an older file beside the current one). Anything else is a changed source: a structure IngestError.
 */
export function csvUrlFromCkanPackage(json: string, packageUrl: string): string {
  let body: { success?: unknown; result?: { resources?: unknown } };
  try {
    body = JSON.parse(json.replace(/^\uFEFF/, '')) as typeof body;
  } catch (err) {
    throw new IngestError(
      'structure',
      `the DRFA package description (${packageUrl}) is not JSON: ${(err as Error).message}`,
    );
  }
  if (body.success !== true) {
    throw new IngestError(
      'structure',
      `the DRFA package description (${packageUrl}) says success: ${String(body.success)}`,
    );
  }
  const resources = Array.isArray(body.result?.resources) ? (body.result.resources as CkanResource[]) : [];
  const csvs = resources.filter((r) => r && typeof r === 'object' && typeof r.url === 'string' && isCsv(r));
  if (csvs.length === 0) {
    throw new IngestError(
      'structure',
      `the DRFA package (${packageUrl}) lists no CSV resource (${resources.length} resources)`,
    );
  }
  const newest = [...csvs].sort((a, b) => modified(b).localeCompare(modified(a)))[0]!;
  let url: URL;
  try {
    url = new URL(String(newest.url), packageUrl);
  } catch {
    throw new IngestError('structure', `the DRFA package's CSV resource has no usable URL ("${String(newest.url)}")`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new IngestError('structure', `the DRFA package's CSV resource is not an http(s) URL (${url.href})`);
  }
  return url.href;
}

/**
 * DRFA_CSV_URL, read either way it may be given: a CKAN package URL (whose CSV resource is then fetched) or the
 * CSV itself. Which one it is comes from the answer, not the URL's shape, so a mirror or a local file server works.
 */
export async function downloadDrfaCsv(
  url: string,
  fetcher: PoliteFetcher,
  signal?: AbortSignal,
): Promise<DrfaDownload> {
  const first = await fetcher.text(url, {
    accept: 'application/json,text/csv;q=0.9,text/plain;q=0.8,*/*;q=0.5',
    signal,
  });
  if (!looksLikeJson(first)) return { csvUrl: url, packageUrl: null, text: first };
  const csvUrl = csvUrlFromCkanPackage(first, url);
  const text = await fetcher.text(csvUrl, { accept: 'text/csv,text/plain;q=0.9,*/*;q=0.5', signal });
  if (looksLikeJson(text)) {
    throw new IngestError('structure', `the DRFA package's CSV resource (${csvUrl}) is JSON, not a CSV`);
  }
  return { csvUrl, packageUrl: url, text };
}
