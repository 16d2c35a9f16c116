import { readdir, readFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers the scheduling priority of every process this one started, and theirs (Chromium's
 * zygotes and renderers, Remotion's encoder, our ffmpeg), so that on a shared machine the API
 * and PostgreSQL win the CPU over renders (record 0128). Remotion spawns its processes itself, so
 * the tree is swept from /proc rather than set at each spawn; a process named postgres (the
 * embedded database) and what it started are left alone. Linux only; elsewhere a sweep finds nothing.
 */
export class ChildPriority {
  private timer: NodeJS.Timeout | null = null;
  private sweeping = false;

  constructor(
    private readonly niceness: number,
    private readonly root = process.pid,
  ) {}

  /** Sweeps now and then every `everyMs`, until stop(). */
  start(everyMs = 1000): void {
    if (this.niceness <= 0 || this.timer) return;
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One pass over the tree; returns how many processes it lowered. */
  async sweep(): Promise<number> {
    if (this.sweeping) return 0;
    this.sweeping = true;
    let lowered = 0;
    try {
      const pending = await childrenOf(this.root);
      while (pending.length > 0) {
        const pid = pending.pop()!;
        const name = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
        if (name === '' || name === 'postgres' || name === 'postmaster') continue;
        try {
          if (getPriority(pid) < this.niceness) {
            setPriority(pid, this.niceness);
            lowered++;
          }
        } catch {
          continue; // gone since it was listed
        }
        pending.push(...(await childrenOf(pid)));
      }
    } finally {
      this.sweeping = false;
    }
    return lowered;
  }
}

/** The children of every thread of `pid` (/proc/PID/task/TID/children). */
async function childrenOf(pid: number): Promise<number[]> {
  const threads = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const lists = await Promise.all(threads.map((tid) => readFile(`/proc/${pid}/task/${tid}/children`, 'utf8').catch(() => '')));
  return lists.flatMap((list) => list.split(' ').filter(Boolean).map(Number));
}

/**
 * Lowers this process's own priority, every thread of it (Linux sets niceness per thread; threads
 * started later inherit it from the thread that starts them), so that it and everything it starts
 * yield the CPU: the `all` role's worker process does this first thing (record 0129).
 */
export function lowerThisProcess(niceness: number): void {
  if (niceness <= 0) return;
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${process.pid}/task`);
  } catch {
    threads = [String(process.pid)];
  }
  for (const tid of threads) {
    try {
      if (getPriority(Number(tid)) < niceness) setPriority(Number(tid), niceness);
    } catch {
      continue; // a thread that has ended since it was listed
    }
  }
}
