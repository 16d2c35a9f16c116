/**
 * Successful key lookups, held for a few seconds so that a client polling a job does not cost a
 * database round trip per request for its key (record 0127). Entries are keyed by the key's
 * SHA-256 digest, never the plaintext. `invalidate()` (called whenever a key or workspace changes in
 * this process, and again when that transaction commits) drops everything: an entry is stored only
 * if no invalidation happened while it was being loaded, so a lookup that raced a change is never
 * kept. Other processes see a change within `ttlMs`. Concurrent misses of one key share one load,
 * so an entry's expiry under a steady poll costs one lookup, not one per request in flight.
 */
export class AuthLookupCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();
  private readonly loading = new Map<string, { generation: number; value: Promise<T | null> }>();
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
    const pending = this.loading.get(digest);
    if (pending && pending.generation === this.generation) return pending.value;
    const flight = { generation: this.generation, value: load() };
    this.loading.set(digest, flight);
    try {
      const value = await flight.value;
      if (value !== null && keep(value) && flight.generation === this.generation) {
        // Oldest first in a Map: dropping the first key bounds memory against many distinct keys.
        if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
        this.entries.set(digest, { value, expiresAt: this.now() + this.ttlMs });
      }
      return value;
    } finally {
      if (this.loading.get(digest) === flight) this.loading.delete(digest);
    }
  }

  /** Something changed: no entry is served, and no load in flight is joined or kept. */
  invalidate(): void {
    this.generation++;
    this.entries.clear();
    this.loading.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
