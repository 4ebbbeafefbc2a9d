import type { Endpoint } from '../../shared/api/endpoint';
import type { AccountResult } from '../../ui/api/account-result';
import type { EndpointData, EndpointRequest } from '../../ui/api/endpoint-call';
import type { Fetch } from '../../ui/api/server-request';

/** A call of an endpoint on the console's own origin, its answer read with the endpoint's schema. */
export type ConsoleCall = <E extends Endpoint>(
  endpoint: E,
  request?: EndpointRequest<E>,
) => Promise<AccountResult<EndpointData<E>>>;

/** What each page group's API module (pages/<page>/<page>-api.ts) calls the server with. */
export interface ConsoleCalls {
  /** Signed in: an answer that says the session ended or the role changed is also told to the console's watch. */
  signedIn: ConsoleCall;
  /** Signed out (sign-up, the pages a link opens): there is no session to watch. */
  signedOut: ConsoleCall;
  fetch: Fetch;
}

/** Same origin: the paths alone, so the session cookie and the Origin rules apply as they do to any page of the site. */
export const HERE = '';
