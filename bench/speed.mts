// `npm run bench:speed`: the render paths of issue 16, before/after in one run. The built service
// (API + warm worker in one process, real PostgreSQL, Debian Chromium) renders each case over
// HTTP, once with every frame drawn by the browser ("before": RENDER_HOLD_FRAMES off) and once as
// shipped ("after"); a held case also once with RENDER_BLEND_FADES off ("after, fades drawn": each
// fading frame drawn, as the held path did before blending). Prints wall time (submit → completed), × real time, CPU seconds of the whole
// process tree (Node, Chromium, ffmpeg), the path taken, frames drawn and blended, the held path's
// stage seconds (draw / audio / encode), and the ratios to "before". Set DATABASE_URL to use a running PostgreSQL; otherwise the embedded one.
// A held case also renders "after, every frame encoded" (RENDER_SKIP_PICTURES off: x264 encodes
// every output frame with the preset's own settings) and, for the quality column, once more at
// x264 CRF 1 as the reference each variant's PSNR is measured against (ffmpeg's psnr filter, the
// average over all frames and the worst frame's).
// The sound case renders a short held slideshow twice, its sound once by Remotion's audio pass in
// the browser ("before": RENDER_MIX_SOUND off) and once mixed by ffmpeg ("after"), and prints the
// audio stage seconds of each (jobs.diagnostics.stage_seconds.audio).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { printTable, serveFiles, startBenchService, treeCpuSeconds } from './bench-service.mts';

const only = process.argv.slice(2);

const work = mkdtempSync(path.join(tmpdir(), 'bench-speed-'));
const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);

// Fixtures: ten detailed 1080p pictures and 30 s of music-like sound.
for (let i = 0; i < 10; i++) {
  ffmpeg('-f', 'lavfi', '-i', 'testsrc2=s=1920x1080', '-vf', `hue=h=${i * 36},format=rgb24`, '-frames:v', '1', '-q:v', '2', path.join(work, `photo${i}.jpg`));
}
ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=330:duration=30', '-f', 'lavfi', '-i', 'sine=frequency=495:duration=30', '-filter_complex', 'amix=inputs=2', path.join(work, 'music.wav'));

const files = await serveFiles(work);
const filesUrl = files.url;
const service = await startBenchService({ name: 'speed', dataDir: path.join(work, 'data'), embeddedPgPort: '54358' });
const { call, config } = service;
const db = new pg.Client({ connectionString: service.databaseUrl });
await db.connect();
// BENCH_SPEED_PRESETS=veryfast,superfast: the compared cases also as shipped with these x264 presets.
const x264Presets = (process.env.BENCH_SPEED_PRESETS ?? '').split(',').filter(Boolean);

/** The artifact of a completed render job, downloaded into the work folder. */
async function download(id: string, name: string): Promise<string> {
  const link = await call('GET', `/v1/renders/${id}/download`);
  const file = path.join(work, `${name}.mp4`);
  writeFileSync(file, Buffer.from(await (await fetch(link.body.url, { headers: { connection: 'close' } })).arrayBuffer()));
  return file;
}

/** PSNR of `file` against `reference` (same frames): the average over the frames and the worst frame's, in dB. */
function psnr(file: string, reference: string): string {
  const stats = path.join(work, 'psnr.log');
  execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-i', reference, '-lavfi', `[0:v][1:v]psnr=stats_file=${stats}`, '-f', 'null', '-']);
  const values = execFileSync('cat', [stats]).toString().trim().split('\n').map((line) => Number(/psnr_avg:([\d.]+|inf)/.exec(line)?.[1].replace('inf', '99')));
  return `${(values.reduce((sum, value) => sum + value, 0) / values.length).toFixed(1)} / ${Math.min(...values).toFixed(1)}`;
}

async function renderThroughService(request: object) {
  const submitted = await call('POST', '/v1/renders', request);
  if (submitted.status !== 202) throw new Error(JSON.stringify(submitted.body));
  for (;;) {
    const job = (await call('GET', `/v1/renders/${submitted.body.id}`)).body;
    if (job.status === 'completed') {
      const { rows } = await db.query('SELECT diagnostics FROM jobs WHERE id = $1', [job.id]);
      return {
        id: job.id as string,
        seconds: job.output.duration as number,
        megabytes: (job.output.size_bytes as number) / 1048576,
        diagnostics: rows[0].diagnostics as {
          render_path: string; frames_drawn: number; frames_blended?: number; frames_skipped?: number; frames_faded?: number; sound_path?: string; stage_seconds?: { draw: number; audio: number; encode: number };
        },
      };
    }
    if (job.status === 'failed' || job.status === 'cancelled') throw new Error(JSON.stringify(job.error));
    await new Promise((r) => setTimeout(r, 50));
  }
}

const slideshow = {
  width: 1920, height: 1080, frame_rate: 30,
  elements: [
    ...Array.from({ length: 10 }, (_, i) => ({ type: 'image', id: `p${i}`, track: 1, duration: i === 0 || i === 9 ? 3.25 : 3.5, source_url: `${filesUrl}/photo${i}.jpg` })),
    ...Array.from({ length: 10 }, (_, i) => ({
      type: 'text', text: `Slide ${i + 1}: a title over the picture`, time: i * 3 + 0.25, duration: 2.5, fade_in_duration: 0.4, fade_out_duration: 0.4,
      x: '50%', y: '85%', width: '80%', font_size: 64, font_family: 'Montserrat', fill_color: '#ffffff', x_alignment: 'center',
      background_color: '#00000099', background_x_padding: 24, background_y_padding: 12,
    })),
    { type: 'audio', source_url: `${filesUrl}/music.wav`, volume: 0.5 },
  ],
  transitions: Array.from({ length: 9 }, (_, i) => ({ type: 'cross_dissolve', from_id: `p${i}`, to_id: `p${i + 1}`, duration: 0.5 })),
};

/** The slideshow's first ten seconds: four pictures, their titles, the music. */
const slideshowShort = {
  ...slideshow,
  duration: 10,
  elements: slideshow.elements.filter((e) => !('id' in e) || Number(e.id!.slice(1)) < 4).filter((e) => e.type !== 'text' || (e as { time: number }).time < 10),
  transitions: slideshow.transitions.slice(0, 3),
};

const presets = ['fade_letters', 'word_pop', 'typewriter', 'rise_words'];
const textHeavy = {
  width: 1920, height: 1080, frame_rate: 30, duration: 10, background_gradient: 'linear-gradient(90deg, #1d4ed8, #9333ea)',
  elements: Array.from({ length: 20 }, (_, i) => ({
    type: 'text', text: `Animated line ${i + 1} moving all the time`, x: `${10 + (i % 4) * 25}%`, y: `${8 + Math.floor(i / 4) * 18}%`, font_size: 40,
    motion: [{ type: 'wiggle', loop: true }], ...(i % 2 ? { animation_preset: presets[i % presets.length] } : {}),
  })),
};

const stillScene = {
  width: 1920, height: 1080, output_format: 'png',
  background_gradient: 'linear-gradient(90deg, #1d4ed8, #9333ea)',
  elements: [
    { type: 'shape', x: '70%', y: '50%', width: '20%', height: '20%', fill_color: '#ef4444' },
    { type: 'image', source_url: `${filesUrl}/photo0.jpg`, x: '30%', y: '50%', width: '40%', height: '40%' },
    { type: 'text', text: 'Render service benchmark', x: '50%', y: '85%', font_size: 72, fill_color: '#ffffff' },
  ],
};

const cases: [string, object, boolean][] = [
  ['slideshow 30 s 1080p30, 10 pictures, titles, dissolves, music', slideshow, true],
  ['text-heavy animation 10 s 1080p30 (every frame changes)', textHeavy, true],
  ['png still 1080p (warm worker)', stillScene, false],
];

// Warm-up: the first job of a worker opens the browser and loads the bundle; inputs get copied once.
await renderThroughService({ width: 64, height: 64, output_format: 'png', elements: [] });
await renderThroughService({ ...slideshow, width: 320, height: 180, elements: slideshow.elements.map((e) => (e.type === 'text' ? { ...e, font_size: 12 } : e)) });

const load = loadavg()[0];
const rows: string[][] = [];
const soundRows: string[][] = [];
const soundLabel = 'sound of a held slideshow 10 s 1080p30';
if (!only.length || only.some((word) => soundLabel.includes(word))) {
  const runs: { audio: number; wall: number; path: string }[] = [];
  for (const mix of [false, true]) {
    config.render.mixSound = mix;
    const started = performance.now();
    const result = await renderThroughService(slideshowShort);
    runs.push({ audio: result.diagnostics.stage_seconds?.audio ?? NaN, wall: (performance.now() - started) / 1000, path: result.diagnostics.sound_path ?? '–' });
  }
  runs.forEach((r, i) => {
    soundRows.push([
      `${soundLabel} — ${i === 0 ? 'before' : 'after'}`,
      r.path, r.audio.toFixed(2), r.wall.toFixed(1), i === 1 ? `${(r.audio / runs[0].audio).toFixed(3)} / ${(r.wall / runs[0].wall).toFixed(2)}` : '',
    ]);
    console.error(`done: ${soundRows.at(-1)!.join(' | ')}`);
  });
  config.render.mixSound = true;
}
for (const [label, request, compare] of cases) {
  if (only.length && !only.some((word) => label.includes(word))) continue;
  const runs: { wall: number; cpu: number; path: string; drawn: number; blended: number; skipped: number; faded: number; stages: string; media: number; megabytes: number; label: string; file: string }[] = [];
  const shipped = config.render.x264Preset;
  // BENCH_SPEED_SHIPPED_ONLY=true: the compared cases as shipped only (still against the CRF 1 reference).
  const shippedOnly = process.env.BENCH_SPEED_SHIPPED_ONLY === 'true';
  const variants = compare && !shippedOnly
    ? [
      { hold: false, blend: true, skip: true, preset: shipped, label: ' — before' },
      { hold: true, blend: false, skip: false, preset: shipped, label: ' — after, fades drawn, every frame encoded' },
      { hold: true, blend: true, skip: false, preset: shipped, label: ' — after, every frame encoded' },
      { hold: true, blend: true, skip: true, preset: shipped, label: ' — after' },
      ...x264Presets.map((preset) => ({ hold: true, blend: true, skip: true, preset, label: ` — after, x264 ${preset}` })),
    ]
    : [{ hold: true, blend: true, skip: true, preset: shipped, label: compare ? ' — after' : '' }];
  let reference: string | null = null;
  if (compare) {
    config.render.x264Crf = 1;
    reference = await download((await renderThroughService(request)).id, 'reference');
    config.render.x264Crf = 18;
  }
  for (const { hold, blend, skip, preset, label: variant } of variants) {
    config.render.holdFrames = hold;
    config.render.blendFades = blend;
    config.render.skipPictures = skip;
    config.render.x264Preset = preset;
    const cpuBefore = treeCpuSeconds(process.pid);
    const started = performance.now();
    const result = await renderThroughService(request);
    const wall = (performance.now() - started) / 1000;
    const stages = result.diagnostics.stage_seconds;
    runs.push({
      wall, cpu: treeCpuSeconds(process.pid) - cpuBefore, path: result.diagnostics.render_path, drawn: result.diagnostics.frames_drawn,
      blended: result.diagnostics.frames_blended ?? 0, skipped: result.diagnostics.frames_skipped ?? 0, faded: result.diagnostics.frames_faded ?? 0,
      stages: stages ? `${stages.draw} / ${stages.audio} / ${stages.encode}` : '–', media: result.seconds, megabytes: result.megabytes, label: variant,
      file: reference ? await download(result.id, `run${runs.length}`) : '',
    });
    const r = runs.at(-1)!;
    rows.push([
      `${label}${r.label}`,
      r.wall.toFixed(1), r.media ? (r.media / r.wall).toFixed(2) : '–', r.cpu.toFixed(1), r.megabytes.toFixed(1), reference ? psnr(r.file, reference) : '–',
      r.path, String(r.drawn), String(r.blended), String(r.skipped), String(r.faded), r.stages,
      runs.length > 1 ? `${(r.wall / runs[0].wall).toFixed(2)} / ${(r.cpu / runs[0].cpu).toFixed(2)}` : '',
    ]);
    console.error(`done: ${rows.at(-1)!.join(' | ')}`); // long runs: each row as soon as it is measured
  }
}
config.render.blendFades = true;
config.render.skipPictures = true;
config.render.x264Preset = 'medium';
await db.end();
await service.close();
files.close();
rmSync(work, { recursive: true, force: true });

const header = ['case', 'wall s', '× real time', 'CPU s', 'MB', 'PSNR avg / worst dB', 'path', 'frames drawn', 'frames blended', 'frames skipped', 'frames faded', 'draw / audio / encode s', 'to before: wall / CPU'];
console.log(`load average at start: ${load.toFixed(1)} (${new Date().toISOString()})`);
printTable(header, rows);
if (soundRows.length) {
  console.log('');
  printTable(['case', 'sound path', 'audio stage s', 'render wall s', 'after/before audio / wall'], soundRows);
}
process.exit(0);
