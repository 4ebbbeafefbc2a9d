import type { AccountService } from '../accounts/account-service';
import type { LoginThrottle, LoginThrottleLimits } from '../auth/login-throttle';
import { logFailures, type AuditLog } from '../audit/audit-log';
import { every, PURGE_INTERVAL_MS, type OpenedFeature } from '../lifecycle';
import type { Logger } from '../logger';
import { OidcProtocol, type OidcServerConfig } from './oidc-protocol';
import type { SsoProtocols } from './sso-auth-routes';
import type { SsoDirectory } from './sso-directory';
import type { OwnedSsoFlowStore, SsoFlowStore } from './sso-flow-store';
import { SamlProtocol } from './saml-protocol';
import { SsoSignInService } from './sso-sign-in';

/** Signing in by single sign-on (`runtime.ssoSignIn`): the protocols, the completion, and their limits. */
export interface SsoSignInRuntime {
  signIn: SsoSignInService;
  /** What GET /api/v1/auth/sso/start dispatches to; OpenID Connect's callback finishes in its protocol too. */
  protocols: SsoProtocols;
  /** What a flow's start keeps for its answer (the OIDC callback, the SAML ACS), on whichever instance it lands. */
  flows: SsoFlowStore;
  /** Starts per address and per client address. */
  starts: LoginThrottle;
  /** Callbacks per client address (each state once, so its own bucket never fills). */
  callbacks: LoginThrottle;
}

/**
 * Per 15 minutes: a practice behind one address signs its whole team in each morning (a start and a callback each),
 * while nobody can make the server knock on an identity provider's door without end. One address may start 10 times.
 */
export const SSO_LIMITS: LoginThrottleLimits = { perAccount: 10, perIp: 200, windowMs: 15 * 60_000 };

/** What single sign-on's sign-in is opened over: the account data (AccountData has it all). */
export interface SsoSignInData {
  accounts: AccountService;
  audit: AuditLog;
  config: OidcServerConfig;
  clock: () => Date;
  logger: Logger;
  storage: {
    ssoFlows(): Promise<OwnedSsoFlowStore>;
    loginThrottle(limits: LoginThrottleLimits, now: () => number): Promise<LoginThrottle>;
  };
}

/** Single sign-on's sign-in over the account data and the settings' directory; its limits counted where sign-ins are. */
export async function openSsoSignIn(
  data: SsoSignInData,
  directory: SsoDirectory,
  limits: LoginThrottleLimits = SSO_LIMITS,
): Promise<OpenedFeature<SsoSignInRuntime>> {
  const { storage, config, clock, logger } = data;
  const now = () => clock().getTime();
  const [flows, throttle] = await Promise.all([storage.ssoFlows(), storage.loginThrottle(limits, now)]);
  const oidc = new OidcProtocol({ config, flows, directory, now });
  const saml = new SamlProtocol(flows);
  const starts = throttle.scoped('sso-start');
  const callbacks = throttle.scoped('sso-callback');
  return {
    service: {
      signIn: new SsoSignInService({
        accounts: data.accounts,
        directory,
        audit: logFailures(data.audit, logger),
        trail: data.audit,
      }),
      protocols: { oidc, saml },
      flows,
      starts,
      callbacks,
    },
    jobs: [every('purge', PURGE_INTERVAL_MS, () => throttle.purge())],
    // The throttle's counter is closed by the storage that opened it (counters.ts), as the other throttles' are.
    closers: [],
  };
}
