import { ContractError } from '../contract-error';
import type { AlongsideWrite, DocumentStore } from '../storage/document-store';
import type { SsoFile, SsoSettingsRecord } from './sso-records';
import type { SsoRepository } from './sso-repository';

const sameDeparture = (organisationId: string, email: string) => (d: SsoFile['departures'][number]) =>
  d.organisation_id === organisationId && d.email === email;

/**
 * DATA_DIR/sso.json: every organisation's settings and the team's departures as one document, each change one update
 * of it. A domain's one organisation is judged inside the update, on the freshest content, so two owners claiming it
 * at once cannot both have it.
 */
export class DocumentSso implements SsoRepository {
  constructor(private readonly store: DocumentStore<SsoFile>) {}

  async get(organisationId: string): Promise<SsoSettingsRecord | null> {
    const found = this.store.current.settings.find((s) => s.organisation_id === organisationId);
    return found ? structuredClone(found) : null;
  }

  async byDomain(domain: string): Promise<SsoSettingsRecord | null> {
    const found = this.store.current.settings.find((s) => s.domains.includes(domain));
    return found ? structuredClone(found) : null;
  }

  put(record: SsoSettingsRecord, alongside?: AlongsideWrite): Promise<SsoSettingsRecord | null> {
    return this.store.update(
      (draft) => {
        const taken = draft.settings.some(
          (s) => s.organisation_id !== record.organisation_id && s.domains.some((d) => record.domains.includes(d)),
        );
        if (taken) throw new ContractError('sso_domain_taken');
        const index = draft.settings.findIndex((s) => s.organisation_id === record.organisation_id);
        const before = index < 0 ? null : draft.settings[index]!;
        if (index < 0) draft.settings.push(structuredClone(record));
        else draft.settings[index] = structuredClone(record);
        return before;
      },
      () => alongside,
    );
  }

  remove(
    organisationId: string,
    alongside?: (removed: SsoSettingsRecord) => AlongsideWrite,
  ): Promise<SsoSettingsRecord | null> {
    return this.store.update(
      (draft) => {
        const found = draft.settings.find((s) => s.organisation_id === organisationId) ?? null;
        if (found) draft.settings = draft.settings.filter((s) => s !== found);
        return found;
      },
      (removed) => (removed && alongside ? alongside(removed) : undefined),
    );
  }

  departed(organisationId: string, email: string, at: Date): AlongsideWrite {
    return {
      write: async () => {
        await this.store.update((draft) => {
          draft.departures = draft.departures.filter((d) => !sameDeparture(organisationId, email)(d));
          draft.departures.push({ organisation_id: organisationId, email, removed_at: at.toISOString() });
        });
      },
    };
  }

  rejoined(organisationId: string, email: string): AlongsideWrite {
    return {
      write: async () => {
        if (!this.store.current.departures.some(sameDeparture(organisationId, email))) return;
        await this.store.update((draft) => {
          draft.departures = draft.departures.filter((d) => !sameDeparture(organisationId, email)(d));
        });
      },
    };
  }

  async wasRemoved(organisationId: string, email: string): Promise<boolean> {
    return this.store.current.departures.some(sameDeparture(organisationId, email));
  }
}
