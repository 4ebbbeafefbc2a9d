import { CATCHMENT_ENDPOINTS, ClientCatchmentResponse } from '../../shared/api/catchment';
import { callEndpointAs, downloadCsv } from './endpoint-call';
import type { Fetch } from './server-request';
import type { CatchmentAnswer } from './account-result';

/**
 * The whole catchment answer (its metadata says how fresh the data is), not just its `data`; read with the clients'
 * schema, which does not require of the server the fields the pages do not show.
 */
function catchmentAnswer(body: unknown): CatchmentAnswer | null {
  const parsed = ClientCatchmentResponse.safeParse(body);
  return parsed.success ? { data: parsed.data.data, metadata: parsed.data.metadata } : null;
}

/**
 * The clinic's catchment over the cookie session (the options page's, through the background, and the console's):
 * read it, replace it, and its CSV.
 */
export const catchmentApi = {
  get: (f: Fetch, url: string) => callEndpointAs(f, url, CATCHMENT_ENDPOINTS.read, {}, catchmentAnswer),
  save: (f: Fetch, url: string, postcodes: string[]) =>
    callEndpointAs(f, url, CATCHMENT_ENDPOINTS.save, { body: { postcodes } }, catchmentAnswer),
  csv: (f: Fetch, url: string) => downloadCsv(f, url, CATCHMENT_ENDPOINTS.read, { format: 'csv' }),
};
