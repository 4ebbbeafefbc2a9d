import type { AccountService } from '../accounts/account-service';
import { logFailures, type AuditLog } from '../audit/audit-log';
import type { Logger } from '../logger';
import { SamlProtocol } from './saml-protocol';
import type { SsoDirectory } from './sso-directory';
import type { SsoFlowStore } from './sso-flow-store';
import { SsoSignInService } from './sso-sign-in';

/** SAML 2.0 sign-in as the server has it (`runtime.saml`). */
export interface SamlRuntime {
  /** What GET /api/v1/auth/sso/start dispatches a SAML connection to. */
  protocol: SamlProtocol;
  /** Where the ACS finds the AuthnRequest a response answers, and the assertions already accepted. */
  flows: SsoFlowStore;
  /** The end every single sign-on shares. */
  completion: SsoSignInService;
}

/** What SAML opens over: the account data's (by its own interface, so runtime-types can name SamlRuntime). */
export interface SamlData {
  storage: { ssoFlows(): Promise<SsoFlowStore> };
  accounts: AccountService;
  audit: AuditLog;
  logger: Logger;
}

/** SAML over the shared flow store (the registry opens it once and closes it) and the settings' directory. */
export async function openSaml(data: SamlData, directory: SsoDirectory): Promise<SamlRuntime> {
  const flows = await data.storage.ssoFlows();
  return {
    protocol: new SamlProtocol(flows),
    flows,
    completion: new SsoSignInService({
      accounts: data.accounts,
      directory,
      audit: logFailures(data.audit, data.logger),
      trail: data.audit,
    }),
  };
}
