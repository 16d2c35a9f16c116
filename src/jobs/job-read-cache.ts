import type { JobKind } from './job.entity';
import type { JobView } from './job.view';

/**
 * An entry lives this long at most: far inside its signed `output.url`'s 24 h
 * (OUTPUT_URL_TTL_SECONDS), and the bound on staleness if notifications stop without the
 * listening connection failing (a network partition that TCP has not noticed yet).
 */
export const JOB_READ_CACHE_MAX_AGE_MS = 10_000;
/** At most this many presented jobs per process; the oldest is dropped first. */
export const JOB_READ_CACHE_MAX_ENTRIES = 10_000;

interface Entry {
  workspaceId: string;
  kind: JobKind;
  view: JobView;
  storedAt: number;
}

/** What a read noted before it went to the database: it may keep its answer only if nothing changed since. */
export interface ReadTicket {
  generation: number;
}

/**
 * The presented Job objects of this process's recent reads (record 0133), so an unchanged job's
 * `GET` needs no statement. Keyed by id (ids are unique), an entry answers only its own workspace and
 * kind: another workspace's id is not found. It serves only while JobChangeListener listens for the `job_changed` notifications a
 * trigger on `jobs` sends for every update and delete (other processes' writes); writes of this
 * process drop their entries synchronously (JobRepository). A read that overlapped any change, or
 * ran while a transaction of this process that wrote jobs was open, is answered but not kept.
 */
export class JobReadCache {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;
  private openWrites = 0;
  private listening = false;

  constructor(
    private readonly maxAgeMs = JOB_READ_CACHE_MAX_AGE_MS,
    private readonly maxEntries = JOB_READ_CACHE_MAX_ENTRIES,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.listening;
  }

  get size(): number {
    return this.entries.size;
  }

  /** A copy of the presented job, or null (not kept, too old, or the cache is not listening). */
  get(workspaceId: string, kind: JobKind, id: string): JobView | null {
    if (!this.listening) return null;
    const entry = this.entries.get(id);
    if (!entry) return null;
    if (this.now() - entry.storedAt > this.maxAgeMs) {
      this.entries.delete(id);
      return null;
    }
    // Another workspace's (or kind's) id is not found here, as in the database.
    if (entry.workspaceId !== workspaceId || entry.kind !== kind) return null;
    // Each request gets its own object: nothing downstream can change what the next one sees.
    return structuredClone(entry.view);
  }

  begin(): ReadTicket {
    return { generation: this.generation };
  }

  /** Keeps `view` unless anything changed since `ticket`, a write of this process is still open, or the cache is not listening. */
  store(ticket: ReadTicket, workspaceId: string, kind: JobKind, id: string, view: JobView): void {
    if (!this.listening || this.openWrites > 0 || ticket.generation !== this.generation) return;
    this.entries.delete(id);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, { workspaceId, kind, view: structuredClone(view), storedAt: this.now() });
  }

  /** A job changed (or may have): its entries go, and reads in flight do not keep what they read. */
  invalidate(id: string): void {
    this.generation++;
    this.entries.delete(id);
  }

  /** Jobs changed that are not named (a batch's followers, a workspace's waiting jobs): everything goes. */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  /** A transaction of this process wrote jobs: nothing is kept until it commits or rolls back. */
  writeOpened(): void {
    this.openWrites++;
    this.generation++;
  }

  writeClosed(): void {
    this.openWrites = Math.max(0, this.openWrites - 1);
    this.generation++;
  }

  /** Serves only while listening: notifications missed while not listening could leave stale entries. */
  setListening(listening: boolean): void {
    this.listening = listening;
    this.clear();
  }
}
