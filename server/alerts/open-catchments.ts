import { CatchmentService } from '../catchment/catchment-service';
import { openCatchmentStore, type CatchmentStore } from '../catchment/catchment-store';
import type { DeclarationRepository } from '../declarations/declaration-repository';
import type { Logger } from '../logger';
import type { PostcodeIndex } from '../postcodes/postcode-index';
import type { Database } from '../storage/postgres/database';
import { AlertsService } from './alerts-service';

/** What the catchments are opened over: the data a server process has already opened. */
export interface CatchmentsRuntimeData {
  dataDir: string;
  clock: () => Date;
  logger: Logger;
  /** DATABASE_URL's database; null = DATA_DIR/catchments.json. */
  database: Database | null;
  declarations: DeclarationRepository;
}

/**
 * The catchments and their alerts, on catchments.json or PostgreSQL's catchment tables. A refresh is processed into
 * alerts whenever the declarations change — the server's own refresh, `npm run ingest` or another instance's (picked
 * up by the declaration store's watch) — and once at start-up; processing is idempotent (AlertsService).
 */
export async function openCatchments(data: CatchmentsRuntimeData, postcodes: PostcodeIndex) {
  const { dataDir, clock, logger, database, declarations } = data;
  let store: CatchmentStore;
  if (database) {
    const { openPostgresCatchmentStore } = await import('../catchment/postgres-catchment-store');
    store = await openPostgresCatchmentStore(database);
  } else {
    store = await openCatchmentStore(dataDir, (err) =>
      logger.error({ err }, 'could not reload catchments.json changed by another process'),
    );
  }
  store.watch();
  const sources = { postcodes, declarations, titleOf: (agrn: string) => declarations.titleOf(agrn) };
  const catchments = new CatchmentService({ store, sources, clock });
  const alerts = new AlertsService({ store, sources, clock, logger });
  const stopListening = declarations.store.onChange(() => alerts.schedule());
  alerts.schedule();
  return {
    catchments,
    alerts,
    async closeCatchments() {
      stopListening();
      await alerts.settled();
      await store.close();
    },
  };
}
