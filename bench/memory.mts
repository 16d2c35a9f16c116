// `npm run bench:memory`: peak memory of a 1080p30 10 s render (gradient, shape, 1080p clip, logo,
// fading text: bench/render.mts's first case) through the built service (API + warm worker in one
// process, real PostgreSQL, Debian Chromium), submitted over HTTP. Peak memory is the summed RSS
// of the service's process tree (Node, Chromium's processes, ffmpeg), sampled every 100 ms, as
// bench:render measures it; beside it, the same peak split by process kind, the wall time and the
// CPU seconds of the tree (steadier than wall time on a shared machine).
// Renders the case twice: right after a video warm-up, and right after a png still (as
// bench:render's warm-up), when the worker's warm still tab has been opened. Chromium flags can be
// tried without code changes through CHROMIUM_EXECUTABLE (a wrapper script adding them). Set
// DATABASE_URL to use a running PostgreSQL; otherwise the embedded one.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { printTable, processTree, rssBytes, serveFiles, standardScene, startBenchService, treeCpuSeconds, writeStandardSceneMedia } from './bench-service.mts';

const work = mkdtempSync(path.join(tmpdir(), 'bench-memory-'));
writeStandardSceneMedia(work);
const files = await serveFiles(work);
const filesUrl = files.url;

/** What a process is, for the split: Node, a Chromium process by its --type, ffmpeg, other. */
function kindOf(pid: number): string {
  if (pid === process.pid) return 'node';
  try {
    // Chromium rewrites its children's command lines into one space-separated string.
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    const name = path.basename(cmdline.split(' ')[0]);
    if (/chrom/i.test(name)) return `chromium ${/--type=(\S+)/.exec(cmdline)?.[1] ?? 'browser'}`;
    if (name.includes('ffmpeg') || name.includes('ffprobe')) return 'ffmpeg';
    return name || 'other';
  } catch {
    return 'gone';
  }
}

/** RSS (bytes) of a process and all its descendants, by kind, from /proc. */
function treeRss(pid: number): Map<string, number> {
  const byKind = new Map<string, number>();
  for (const current of processTree(pid)) {
    const kind = kindOf(current);
    if (kind === 'gone') continue;
    byKind.set(kind, (byKind.get(kind) ?? 0) + rssBytes(current));
    byKind.set(`${kind} #`, (byKind.get(`${kind} #`) ?? 0) + 1);
  }
  return byKind;
}
const total = (byKind: Map<string, number>) => [...byKind].reduce((sum, [kind, value]) => (kind.endsWith(' #') ? sum : sum + value), 0);

const service = await startBenchService({ name: 'memory', dataDir: path.join(work, 'data'), embeddedPgPort: '54356' });
const renderThroughService = (request: object) => service.render(request);

const scene = standardScene(filesUrl);

// Warm-up: the first job opens the browser and loads the bundle; the clip is copied into storage.
await renderThroughService({ ...scene, width: 320, height: 180, duration: 1 });
const load = loadavg()[0];
const rows: string[][] = [];
const kinds = new Set<string>();
const peaks: Map<string, number>[] = [];
for (const stillFirst of [false, true]) {
  if (stillFirst) await renderThroughService({ width: 64, height: 64, output_format: 'png', elements: [] });
  let peak = new Map<string, number>();
  const sampler = setInterval(() => {
    const now = treeRss(process.pid);
    if (total(now) > total(peak)) peak = now;
  }, 100);
  const cpuBefore = treeCpuSeconds(process.pid);
  const started = performance.now();
  await renderThroughService(scene);
  const wall = (performance.now() - started) / 1000;
  const cpu = treeCpuSeconds(process.pid) - cpuBefore;
  clearInterval(sampler);
  peak.forEach((_, kind) => kind.endsWith(' #') || kinds.add(kind));
  peaks.push(peak);
  rows.push([`1080p30 10 s mp4, ${stillFirst ? 'after a png still' : 'after a video'}`, wall.toFixed(1), cpu.toFixed(1), (total(peak) / 1048576).toFixed(0)]);
  console.error(`done: ${rows.at(-1)!.join(' | ')}`);
}
await service.close();
files.close();
rmSync(work, { recursive: true, force: true });

const kindList = [...kinds].sort();
const header = ['case', 'wall s', 'CPU s', 'peak MB', ...kindList.map((k) => `${k} MB (processes)`)];
const lines = rows.map((row, i) => [...row, ...kindList.map((k) => `${((peaks[i].get(k) ?? 0) / 1048576).toFixed(0)} (${peaks[i].get(`${k} #`) ?? 0})`)]);
console.log(`load average at start: ${load.toFixed(1)} (${new Date().toISOString()}); peak = summed RSS of the process tree, split at the peak sample`);
printTable(header, lines);
process.exit(0);
