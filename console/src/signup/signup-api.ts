import { SIGNUP_ENDPOINTS, type SignupRequest } from '../../../shared/api/signup';
import type { ConsoleCalls } from '../console-calls';

/** Sign-up (public): whether it is offered, creating an organisation, the e-mail link, and a new link on demand. */
export const signupApi = ({ signedIn, signedOut }: ConsoleCalls) => ({
  signupSettings: () => signedOut(SIGNUP_ENDPOINTS.settings),
  signup: (request: SignupRequest) => signedOut(SIGNUP_ENDPOINTS.signup, { body: request }),
  verifyEmail: (token: string) => signedOut(SIGNUP_ENDPOINTS.verifyEmail, { body: { token } }),
  /** 202 a new link (or none: no e-mail on this server); 200 when the address was confirmed meanwhile. */
  resendVerification: () => signedIn(SIGNUP_ENDPOINTS.resendVerification),
});
