import { LINK_ENDPOINTS } from '../../../shared/api/invitations';
import type { ConsoleCalls } from '../console-calls';

/** The pages a link opens, signed out: what an invitation is for, accepting it, a password reset (and asking for one). */
export const linkApi = ({ signedOut }: ConsoleCalls) => ({
  lookupInvitation: (token: string) => signedOut(LINK_ENDPOINTS.lookupInvitation, { body: { token } }),
  acceptInvitation: (token: string, password: string) =>
    signedOut(LINK_ENDPOINTS.acceptInvitation, { body: { token, password } }),
  resetPassword: (token: string, password: string) =>
    signedOut(LINK_ENDPOINTS.resetPassword, { body: { token, password } }),
  requestPasswordReset: (email: string) => signedOut(LINK_ENDPOINTS.requestPasswordReset, { body: { email } }),
});
