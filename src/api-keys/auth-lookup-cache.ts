/**
 * Successful key lookups, held for a few seconds so that a client polling a job does not cost a
 * database round trip per request for its key (record 0127). Entries are keyed by the key's
 * SHA-256 digest, never the plaintext. `invalidate()` (called whenever a key or workspace changes in
 * this process, and again when that transaction commits) drops everything: an entry is stored only
 * if no invalidation happened while it was being loaded, so a lookup that raced a change is never
 * kept. Other processes see a change within `ttlMs`.
 */
export class AuthLookupCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The cached value, or `load()`'s; a value `keep` refuses (or null) is returned but not cached. */
  async lookup(digest: string, load: () => Promise<T | null>, keep: (value: T) => boolean = () => true): Promise<T | null> {
    if (this.ttlMs <= 0) return load();
    const entry = this.entries.get(digest);
    if (entry && entry.expiresAt > this.now()) return entry.value;
    if (entry) this.entries.delete(digest);
    const generation = this.generation;
    const value = await load();
    if (value !== null && keep(value) && generation === this.generation) {
      // Oldest first in a Map: dropping the first key bounds memory against many distinct keys.
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(digest, { value, expiresAt: this.now() + this.ttlMs });
    }
    return value;
  }

  invalidate(): void {
    this.generation++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
