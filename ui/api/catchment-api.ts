import { ClientCatchmentResponse } from '../../shared/api/catchment';
import { sessionCall } from './account-api';
import type { Fetch } from './server-request';
import type { CatchmentAnswer } from './account-result';

/** The whole catchment answer (its metadata says how fresh the data is), not just its `data`. */
function catchmentAnswer(body: unknown): CatchmentAnswer | null {
  const parsed = ClientCatchmentResponse.safeParse(body);
  return parsed.success ? { data: parsed.data.data, metadata: parsed.data.metadata } : null;
}

/**
 * The clinic's catchment over the cookie session (the options page's, through the background, and the console's):
 * read it, replace it, and its CSV.
 */
export const catchmentApi = {
  get: (f: Fetch, url: string) => sessionCall(f, url, '/api/v1/catchment', 'GET', catchmentAnswer),
  save: (f: Fetch, url: string, postcodes: string[]) =>
    sessionCall(f, url, '/api/v1/catchment', 'PUT', catchmentAnswer, { postcodes }),
  csv: (f: Fetch, url: string) =>
    sessionCall(
      f,
      url,
      '/api/v1/catchment?format=csv',
      'GET',
      (body) => (typeof body === 'string' ? body : null),
      undefined,
      'text',
    ),
};
