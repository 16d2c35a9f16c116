// `npm run bench:engine`: issue 32's table. The built service (API + warm worker in one process,
// real PostgreSQL, Debian Chromium) renders each scene over HTTP, and right after it the machine's
// ffmpeg renders a hand-written filter graph of the same content (x264 medium, CRF 18, AAC): the
// floor. Prints wall time (submit → completed), the path the plan took, frames drawn, and the ratio
// to its floor (pairs in turn, so load moves both); the alpha and gif rows print × real time.
// The typewritten title's floor is drawn with a fade (drawtext has no per-letter reveal): the same
// work for ffmpeg, a text drawn on every frame.
// The texts row (20 animated text elements, two scene transitions, no media) is compared with the
// same composition (the service's bundle, the same input props) rendered by a plain renderMedia()
// with Remotion's defaults in a child process (bench/baseline/render-plain.mts): × faster than it.
// BENCH_ENGINE_SECONDS (default 10), BENCH_ENGINE_WIDTH × BENCH_ENGINE_HEIGHT (default 1920×1080)
// shrink it for a quick check; case names as arguments (or BENCH_ENGINE_ONLY=standard,moving,cover,
// texts,webm,mov,gif) pick cases. BENCH_ENGINE_ALSO=browser,held_frames also renders each case with
// that strategy forced (RENDER_STRATEGY, where it can draw the case), a row each, before the planner's
// (the plain renderMedia baseline runs once, with the planner's row; BENCH_ENGINE_NO_PLAIN skips it).
// Set DATABASE_URL to use a running PostgreSQL; otherwise the embedded one. Needs a quiet machine.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { printTable, root, serveFiles, startBenchService } from './bench-service.mts';

const seconds = Number(process.env.BENCH_ENGINE_SECONDS ?? 10);
const W = Number(process.env.BENCH_ENGINE_WIDTH ?? 1920);
const H = Number(process.env.BENCH_ENGINE_HEIGHT ?? 1080);
const only = [...process.argv.slice(2), ...(process.env.BENCH_ENGINE_ONLY ?? '').split(',')].filter(Boolean);
const px = (fraction: number, of: number) => 2 * Math.round((fraction * of) / 2);

const work = mkdtempSync(path.join(tmpdir(), 'bench-engine-'));
const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
const clip = path.join(work, 'clip.mp4');
const square = path.join(work, 'square.mp4');
const logo = path.join(work, 'logo.png');
const bt709 = ['-pix_fmt', 'yuv420p', '-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709'];
ffmpeg('-f', 'lavfi', '-i', `testsrc2=size=${W}x${H}:rate=30:duration=${seconds}`, '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`, '-c:v', 'libx264', '-preset', 'veryfast', ...bt709, '-c:a', 'aac', '-shortest', clip);
ffmpeg('-f', 'lavfi', '-i', `testsrc2=size=${H}x${H}:rate=30:duration=${seconds}`, '-c:v', 'libx264', '-preset', 'veryfast', ...bt709, square);
ffmpeg('-f', 'lavfi', '-i', 'color=c=orange:s=200x200', '-frames:v', '1', logo);
const files = await serveFiles(work);
const url = files.url;

const gradient = 'linear-gradient(90deg, #1d4ed8, #9333ea)';
const fontSize = Math.round(H / 15);
const box = { type: 'shape', shape: 'rectangle', x: '70%', y: '50%', width: '20%', height: '20%', fill_color: '#ef4444' };
const video = { type: 'video', source_url: `${url}/clip.mp4`, x: '35%', y: '50%', width: '50%', height: '50%', out_point: seconds };
const image = { type: 'image', source_url: `${url}/logo.png`, x: '10%', y: '15%', width: '10%', height: '18%' };
const title = { type: 'text', text: 'Render service benchmark', x: '50%', y: '85%', width: '80%', height: '12%', font_size: fontSize, fill_color: '#ffffff' };
const scene = (elements: object[], extra: object = {}) => ({ width: W, height: H, duration: seconds, frame_rate: 30, background_gradient: gradient, elements, ...extra });

// The floors: the same layout in ffmpeg's filters (positions as the composition resolves them).
const font = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
const [bw, bh] = [px(0.2, W), px(0.2, H)];
const background = `gradients=s=${W}x${H}:c0=0x1d4ed8:c1=0x9333ea:x0=0:y0=${H / 2}:x1=${W}:y1=${H / 2}:d=${seconds}:r=30`;
const text = (alpha: string) => `drawtext=fontfile=${font}:text='Render service benchmark':fontsize=${fontSize}:fontcolor=white:x=(w-tw)/2:y=${px(0.85, H)}-th/2:alpha='${alpha}'`;
const clipAndLogo = (below: string) =>
  `[0:v]scale=${px(0.5, W)}:${px(0.5, H)}[clip];[${below}][clip]overlay=x=${px(0.1, W)}:y=${px(0.25, H)}[c1];[1:v]scale=${px(0.1, W)}:${px(0.18, H)}[logo];[c1][logo]overlay=x=${px(0.05, W)}:y=${px(0.06, H)}`;
const FLOORS: Record<string, { inputs: string[]; graph: string; audio: boolean }> = {
  standard: {
    inputs: [clip, logo],
    graph: `${background}[bg];[bg]drawbox=x=${px(0.6, W)}:y=${px(0.4, H)}:w=${bw}:h=${bh}:color=0xef4444:t=fill[b1];${clipAndLogo('b1')}[c2];[c2]${text('min(1,t)')}[v]`,
    audio: true,
  },
  moving: {
    inputs: [clip, logo],
    graph: `${background}[bg];color=c=0xef4444:s=${bw}x${bh}:r=30:d=${seconds},format=rgba,rotate=a=2*PI*t/${seconds}:c=none[box];[bg][box]overlay=x=${px(0.6, W)}:y=${px(0.4, H)}[b1];${clipAndLogo('b1')}[c2];[c2]${text('min(1,t)')}[v]`,
    audio: true,
  },
  cover: {
    inputs: [square],
    graph: `${background}[bg];[0:v]scale=${px(1000 / 1920, W)}:${px(1000 / 1920, W)},crop=${px(1000 / 1920, W)}:${px(400 / 1080, H)}[clip];[bg][clip]overlay=x=(W-w)/2:y=(H-h)/2[v]`,
    audio: false,
  },
};

// Three scenes on a track (solid boards, a cross-dissolve and a wipe between them), each with its
// texts entering one after another 0.1 s apart once the scene is in: 7, 7 and 6 texts, the entrances
// taking turns among motions (slide, scale, fade) and text animations (rise_words, word_pop, typewriter).
const SCENES = [{ id: 'scene0', duration: seconds * 0.35, fill: '#1e3a8a' }, { id: 'scene1', duration: seconds * 0.4, fill: '#581c87' }, { id: 'scene2', duration: seconds * 0.35, fill: '#064e3b' }];
const transition = Math.min(0.5, seconds * 0.05);
const sceneStarts = [0, seconds * 0.35 - transition, seconds * 0.75 - 2 * transition];
const ENTRANCES: object[] = [
  { motion: [{ type: 'slide', direction: 'left', duration: 0.5 }] }, { animation_preset: 'rise_words' }, { motion: [{ type: 'scale', duration: 0.4 }] },
  { animation_preset: 'word_pop' }, { motion: [{ type: 'fade', duration: 0.5 }] }, { animation_preset: 'typewriter' },
];
const texts = Array.from({ length: 20 }, (_, i) => {
  const sceneIndex = i < 7 ? 0 : i < 14 ? 1 : 2;
  const j = i - [0, 7, 14][sceneIndex];
  const shown = sceneStarts[sceneIndex] + (sceneIndex === 0 ? 0 : transition);
  const end = sceneStarts[sceneIndex] + SCENES[sceneIndex].duration - (sceneIndex === 2 ? 0 : transition);
  const time = shown + 0.2 + 0.1 * j;
  return {
    type: 'text', text: j === 0 ? `Part ${sceneIndex + 1}: what the service does` : `Point ${j}, said in a few words`, time, duration: end - time,
    x: '50%', y: `${12 + j * 12}%`, font_size: Math.round(H / (j === 0 ? 14 : 22)), font_weight: j === 0 ? 700 : 400, fill_color: '#ffffff', ...ENTRANCES[i % ENTRANCES.length],
  };
});
const textsRequest = {
  width: W, height: H, duration: seconds, frame_rate: 30, background_color: '#000000',
  elements: [...SCENES.map(({ id, duration, fill }) => ({ type: 'shape', id, track: 1, duration, x: 0, y: 0, x_anchor: 0, y_anchor: 0, width: '100%', height: '100%', fill_color: fill })), ...texts],
  transitions: [{ type: 'cross_dissolve', from_id: 'scene0', to_id: 'scene1', duration: transition }, { type: 'wipe_left', from_id: 'scene1', to_id: 'scene2', duration: transition }],
};

const CASES: { name: string; label: string; request: object; realTime?: boolean; plain?: boolean }[] = [
  { name: 'standard', label: 'standard scene (clip, shape, image, fading title)', request: scene([box, video, image, { ...title, fade_in_duration: 1 }]) },
  { name: 'moving', label: 'the same, title typewritten, shape spinning', request: scene([{ ...box, motion: [{ type: 'spin', duration: seconds, easing: 'linear' }] }, video, image, { ...title, animation_preset: 'typewriter' }]) },
  { name: 'texts', label: '20 animated texts, two scene transitions, no media', request: textsRequest, plain: true },
  { name: 'cover', label: 'a clip cover-fitted into a box of another shape', request: scene([{ type: 'video', source_url: `${url}/square.mp4`, x: '50%', width: px(1000 / 1920, W), height: px(400 / 1080, H), out_point: seconds }]) },
  ...(['webm', 'mov'] as const).map((format) => ({
    name: format, label: `${Math.min(5, seconds)} s ${format} with alpha`, realTime: true,
    request: { width: W, height: H, duration: Math.min(5, seconds), frame_rate: 30, output_format: format, alpha: true, elements: [{ ...box, motion: [{ type: 'spin', loop: true, duration: 1, easing: 'linear' }] }, { ...title, fade_in_duration: 1 }] },
  })),
  { name: 'gif', label: `${seconds} s ${Math.round((H * 2) / 3)}p gif`, realTime: true, request: { ...scene([{ ...box, motion: [{ type: 'spin', duration: seconds, easing: 'linear' }] }, { ...title, fade_in_duration: 1 }]), width: px(2 / 3, W), height: px(2 / 3, H), output_format: 'gif' } },
];

function floor(name: string): Promise<number> {
  const { inputs, graph, audio } = FLOORS[name];
  const args = ['-v', 'error', '-y', ...inputs.flatMap((input) => (input.endsWith('.png') ? ['-loop', '1', '-i', input] : ['-i', input])), '-filter_complex', graph, '-map', '[v]',
    ...(audio ? ['-map', '0:a', '-c:a', 'aac'] : []), '-t', String(seconds), '-c:v', 'libx264', '-preset', 'medium', '-crf', '18', '-pix_fmt', 'yuv420p', path.join(work, `floor-${name}.mp4`)];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', args, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('exit', (code) => (code === 0 ? resolve((performance.now() - started) / 1000) : reject(new Error(`floor ${name}: ffmpeg exited ${code}`))));
  });
}

/** The same composition through a plain renderMedia() in a child process: its seconds (selectComposition and renderMedia). */
function plainRenderMedia(name: string, request: object, browserExecutable: string): Promise<number> {
  const propsFile = path.join(work, `${name}-props.json`);
  writeFileSync(propsFile, JSON.stringify({ request, media: {}, sources: {} }));
  const args = [path.join(root, 'bench/baseline/render-plain.mts'), path.join(root, 'dist/composition-bundle'), 'Main', propsFile, path.join(work, `plain-${name}.mp4`), browserExecutable];
  return new Promise((resolve, reject) => {
    let out = '';
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!).seconds) : reject(new Error(`plain renderMedia ${name}: exited ${code}`))));
  });
}

const service = await startBenchService({ name: 'engine', dataDir: path.join(work, 'data'), embeddedPgPort: '54362', env: { RENDER_REUSE: 'false' } });
const db = new pg.Client({ connectionString: service.databaseUrl });
await db.connect();
await service.render({ width: 64, height: 64, output_format: 'png', elements: [] }); // warm-up: browser and bundle
const load = loadavg()[0];
const rows: string[][] = [];
const also = (process.env.BENCH_ENGINE_ALSO ?? '').split(',').filter(Boolean);
const runs = CASES.filter((c) => only.length === 0 || only.includes(c.name)).flatMap((c) => [
  ...also.map((strategy) => ({ ...c, strategy, label: `${c.label} (${strategy} forced)` })),
  { ...c, strategy: null as string | null },
]);
for (const { name, label, request, realTime, plain, strategy } of runs) {
  service.config.render.strategy = strategy as typeof service.config.render.strategy;
  const started = performance.now();
  const job = await service.render(request);
  const wall = (performance.now() - started) / 1000;
  const { diagnostics } = (await db.query('SELECT diagnostics FROM jobs WHERE id = $1', [job.id])).rows[0];
  const duration = (request as { duration: number }).duration;
  const floorWall = realTime || plain ? null : await floor(name);
  // Forced rows are compared with the planner's row of the same case, which has the baseline.
  const plainWall = plain && strategy === null && !process.env.BENCH_ENGINE_NO_PLAIN ? await plainRenderMedia(name, request, service.config.render.browserExecutable) : null;
  rows.push([label, wall.toFixed(1), diagnostics.render_path, String(diagnostics.frames_drawn), floorWall === null ? '–' : floorWall.toFixed(1),
    floorWall === null ? '–' : `${(wall / floorWall).toFixed(2)}×`, realTime ? `${(duration / wall).toFixed(2)}×` : '–',
    plainWall === null ? '–' : plainWall.toFixed(1), plainWall === null ? '–' : `${(plainWall / wall).toFixed(2)}×`]);
  console.error(`done: ${rows.at(-1)!.join(' | ')}`);
  // Where the time went: the pipeline's stages (queue, inputs, draw, store) and the strategy's.
  console.error(`  ${name}: pipeline ${JSON.stringify(diagnostics.pipeline_seconds)}, stages ${JSON.stringify(diagnostics.stage_seconds ?? null)}`);
}
await db.end();
await service.close();
files.close();
rmSync(work, { recursive: true, force: true });
console.log(`${W}x${H}, 30 fps, ${seconds} s; load average at start ${load.toFixed(1)} (${new Date().toISOString()})`);
printTable(['scene', 'wall s', 'path', 'frames drawn', 'floor s', 'vs the floor', '× real time', 'plain renderMedia s', '× faster than it'], rows);
process.exit(0);
