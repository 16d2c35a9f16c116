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

/** A read of one job going to the database, which concurrent misses of the same job join. */
interface Flight {
  workspaceId: string;
  kind: JobKind;
  generation: number;
  /** The job changed while it was read: answered, not kept, and not joined any more. */
  stale: boolean;
  view: Promise<JobView>;
}

/**
 * The presented Job objects of this process's recent reads (record 0133), so an unchanged job's
 * `GET` needs no statement. Keyed by id (ids are unique), an entry answers only its own workspace and
 * kind: another workspace's id is not found. It serves only while JobChangeListener listens for the `job_changed` notifications a
 * trigger on `jobs` sends for every update and delete (other processes' writes); writes of this
 * process drop their entries synchronously (JobRepository). A read that overlapped a change of its
 * job (or of all jobs), or ran while a transaction of this process that wrote jobs was open, is
 * answered but not kept. Concurrent misses of one job share one read, so a job polled by many
 * clients costs one statement per change, not one per client.
 */
export class JobReadCache {
  private readonly entries = new Map<string, Entry>();
  private readonly flights = new Map<string, Flight>();
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

  /**
   * A copy of the job's presented view: kept, or from the read of it in flight, or read by `load`
   * and kept unless its job (or all jobs) changed meanwhile. `load` throws as the read would (404).
   */
  async read(workspaceId: string, kind: JobKind, id: string, load: () => Promise<JobView>): Promise<JobView> {
    const kept = this.get(workspaceId, kind, id);
    if (kept) return kept;
    const joined = this.flights.get(id);
    if (joined && joined.workspaceId === workspaceId && joined.kind === kind) return structuredClone(await joined.view);
    const flight: Flight = { workspaceId, kind, generation: this.generation, stale: false, view: load() };
    // Another workspace's read of the same id neither joins nor displaces the one in flight.
    const shared = !joined;
    if (shared) this.flights.set(id, flight);
    try {
      const view = await flight.view;
      if (shared && !flight.stale) this.store(flight.generation, workspaceId, kind, id, view);
      return structuredClone(view);
    } finally {
      if (this.flights.get(id) === flight) this.flights.delete(id);
    }
  }

  private store(generation: number, workspaceId: string, kind: JobKind, id: string, view: JobView): void {
    if (!this.listening || this.openWrites > 0 || generation !== this.generation) return;
    this.entries.delete(id);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, { workspaceId, kind, view: structuredClone(view), storedAt: this.now() });
  }

  /** A job changed (or may have): its entry goes, and its read in flight neither keeps its answer nor is joined. */
  invalidate(id: string): void {
    this.entries.delete(id);
    const flight = this.flights.get(id);
    if (flight) {
      flight.stale = true;
      this.flights.delete(id);
    }
  }

  /** Jobs changed that are not named (a batch's followers, a workspace's waiting jobs): everything goes. */
  clear(): void {
    this.everything();
    this.entries.clear();
  }

  /** A transaction of this process wrote jobs: nothing is kept until it commits or rolls back. */
  writeOpened(): void {
    this.openWrites++;
    this.everything();
  }

  writeClosed(): void {
    this.openWrites = Math.max(0, this.openWrites - 1);
    this.everything();
  }

  /** Any job may have changed: no read in flight keeps its answer or is joined. */
  private everything(): void {
    this.generation++;
    for (const flight of this.flights.values()) flight.stale = true;
    this.flights.clear();
  }

  /** Serves only while listening: notifications missed while not listening could leave stale entries. */
  setListening(listening: boolean): void {
    this.listening = listening;
    this.clear();
  }
}
