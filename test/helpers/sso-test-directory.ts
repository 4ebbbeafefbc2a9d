import type { SsoConnection, SsoDirectory } from '../../server/sso/sso-directory';

/**
 * An SsoDirectory held in the test (no settings API): the connections it is given, and the people marked removed. For
 * the tests of sign-in's completion, which need an organisation's settings but not the way an owner makes them.
 */
export class TestSsoDirectory implements SsoDirectory {
  readonly connections: SsoConnection[] = [];
  readonly removed = new Set<string>();

  async forDomain(domain: string): Promise<SsoConnection | undefined> {
    return this.connections.find((c) => c.domains.includes(domain));
  }

  async forOrganisation(organisationId: string): Promise<SsoConnection | undefined> {
    return this.connections.find((c) => c.organisationId === organisationId);
  }

  async wasRemoved(organisationId: string, email: string): Promise<boolean> {
    return this.removed.has(`${organisationId} ${email}`);
  }
}
