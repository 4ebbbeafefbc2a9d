import type { AlongsideWrite } from '../storage/document-store';
import type { SsoSettingsRecord } from './sso-records';

/**
 * Where the organisations' single sign-on settings and the team's departures are kept: DATA_DIR/sso.json for one
 * instance (DocumentSso), or PostgreSQL's rows for every instance (PostgresSso), read on each call, so that a change
 * made on one instance holds on all of them at once.
 */
export interface SsoRepository {
  get(organisationId: string): Promise<SsoSettingsRecord | null>;
  /** The settings of the organisation that claims `domain` (lower case), if any. */
  byDomain(domain: string): Promise<SsoSettingsRecord | null>;
  /**
   * Saves the organisation's settings in place of any it had, with `alongside` (their audit event) written in the same
   * transaction. Throws ContractError('sso_domain_taken') when another organisation claims one of the domains — also
   * when it claimed it a moment ago, on another instance. Answers the settings there were before.
   */
  put(record: SsoSettingsRecord, alongside?: AlongsideWrite): Promise<SsoSettingsRecord | null>;
  /** Removes the organisation's settings and its domains' claims, with `alongside`; answers what there was. */
  remove(
    organisationId: string,
    alongside?: (removed: SsoSettingsRecord) => AlongsideWrite,
  ): Promise<SsoSettingsRecord | null>;
  /** The write that records `email`'s removal from the organisation, for the removal's own transaction. */
  departed(organisationId: string, email: string, at: Date): AlongsideWrite;
  /** The write that forgets it, for the transaction of their accepting a new invitation. */
  rejoined(organisationId: string, email: string): AlongsideWrite;
  /** Whether `email` was removed from the organisation and has not rejoined since. */
  wasRemoved(organisationId: string, email: string): Promise<boolean>;
}
