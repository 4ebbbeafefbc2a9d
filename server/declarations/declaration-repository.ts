import type { Declaration, RelatedDeclaration } from '../../shared/domain/declaration';
import type { LgaRef } from '../../shared/domain/lga';
import { DeclarationIndex } from './declaration-index';
import type { DeclarationStore } from './declaration-records';

/** Read side of the declarations: the index is rebuilt whenever the file changes (an ingest, here or in the CLI). */
export class DeclarationRepository {
  private index: DeclarationIndex;
  private revision = 0;

  constructor(readonly store: DeclarationStore) {
    this.index = new DeclarationIndex(store.current.declarations);
    store.onChange((data) => {
      this.index = new DeclarationIndex(data.declarations);
      this.revision++;
    });
  }

  /**
   * When this process's ingest schedule will next try to bring data (null: a refresh is under way), once the schedule
   * has started and told it; undefined before that, or in a process that runs none.
   */
  nextRefreshAttempt: () => Date | null | undefined = () => undefined;

  /** Changes whenever the declarations do, so answers computed from them can be cached until then. */
  get version(): number {
    return this.revision;
  }

  /** Time of the last successful refresh, null before the first. */
  get lastUpdated(): string | null {
    return this.store.current.last_updated;
  }

  get count(): number {
    return this.store.current.declarations.length;
  }

  /** The declaration with this AGRN (ended ones included), if the data has it. */
  get(agrn: string): Declaration | undefined {
    return this.index.get(agrn);
  }

  /** Every declaration the data holds, in the store's order. */
  all(): readonly Declaration[] {
    return this.store.current.declarations;
  }

  /** The title of the declaration with this AGRN ("" when the data has none). */
  titleOf(agrn: string): string {
    return this.index.get(agrn)?.title ?? '';
  }

  related(lgas: readonly LgaRef[]): RelatedDeclaration[] {
    return this.index.related(lgas);
  }
}
