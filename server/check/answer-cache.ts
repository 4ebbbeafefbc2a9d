/** What the cache holds: anything that knows its size in bytes (a Buffer, an encoded answer). */
export interface Sized {
  readonly byteLength: number;
}

/**
 * Encoded check responses by postcode, suburb and day. A response depends only on those and on the data (its
 * version, when it was last updated and whether that is stale), so it is computed and turned into JSON once per data
 * version, not per request.
 * Bounded in bytes: the least recently used answers go first once `maxBytes` is reached.
 */
export class AnswerCache<T extends Sized = Buffer> {
  private readonly entries = new Map<string, T>();
  private bytes = 0;
  private version: string | number | undefined;

  constructor(private readonly maxBytes = 8 * 1024 * 1024) {}

  get(version: string | number, key: string, compute: () => T): T {
    if (version !== this.version) {
      this.entries.clear();
      this.bytes = 0;
      this.version = version;
    }
    let answer = this.entries.get(key);
    if (answer !== undefined) {
      // Re-inserting keeps the Map in least-recently-used order.
      this.entries.delete(key);
      this.entries.set(key, answer);
      return answer;
    }
    answer = compute();
    this.entries.set(key, answer);
    this.bytes += answer.byteLength;
    for (const [oldKey, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.bytes -= old.byteLength;
    }
    return answer;
  }

  get size(): number {
    return this.entries.size;
  }
}
