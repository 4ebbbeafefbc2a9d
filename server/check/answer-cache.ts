/**
 * Serialised answers (`data` of a check response) by postcode, suburb and day. An answer depends only on those and
 * on the declarations, so it is computed and turned into JSON once per declarations version, not per request.
 * Bounded in bytes: the least recently used answers go first once `maxChars` is reached.
 */
export class AnswerCache {
  private readonly entries = new Map<string, string>();
  private chars = 0;
  private version: string | number | undefined;

  constructor(private readonly maxChars = 8 * 1024 * 1024) {}

  get(version: string | number, key: string, compute: () => string): string {
    if (version !== this.version) {
      this.entries.clear();
      this.chars = 0;
      this.version = version;
    }
    let json = this.entries.get(key);
    if (json !== undefined) {
      // Re-inserting keeps the Map in least-recently-used order.
      this.entries.delete(key);
      this.entries.set(key, json);
      return json;
    }
    json = compute();
    this.entries.set(key, json);
    this.chars += json.length;
    for (const [oldKey, old] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.entries.delete(oldKey);
      this.chars -= old.length;
    }
    return json;
  }

  get size(): number {
    return this.entries.size;
  }
}
