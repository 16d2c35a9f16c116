// `npm run bench:motion`: renders motion-heavy compositions through the built service (API + warm
// worker in one process, real PostgreSQL, Debian Chromium) and prints wall time, frames per second
// and peak memory (summed RSS of the process tree): a 1080p30 10 s composition with 20 animated
// text elements and two transitions beside the same composition without motion, and motion blur
// at 4 and 8 samples beside no blur. Set DATABASE_URL to use a running PostgreSQL; otherwise the
// embedded one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { printTable, startBenchService, treeRssBytes } from './bench-service.mts';

const work = mkdtempSync(path.join(tmpdir(), 'bench-motion-'));
const service = await startBenchService({ name: 'motion', dataDir: path.join(work, 'data'), embeddedPgPort: '54358' });

async function render(request: { frame_rate: number }): Promise<{ frames: number; seconds: number; peakBytes: number }> {
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRssBytes(process.pid))), 100);
  const started = performance.now();
  try {
    const job = await service.render(request);
    return { frames: Math.round(job.output.duration * request.frame_rate), seconds: (performance.now() - started) / 1000, peakBytes: peak };
  } finally {
    clearInterval(sampler);
  }
}

const PRESETS = ['typewriter', 'word_pop', 'rise_words', 'fade_letters', 'slide_up_lines', 'drop_letters'];
const MOTIONS = ['slide', 'scale', 'spin', 'bounce', 'wipe', 'fade', 'pulse', 'wiggle', 'shake', 'zoom'];

/** 1080p30 10 s: three full-frame scenes joined by two transitions, 20 animated texts over them. */
function textScene(animated: boolean) {
  const texts = Array.from({ length: 20 }, (_, i) => ({
    type: 'text',
    text: `Animated caption number ${i + 1}`,
    x: `${10 + (i % 4) * 25}%`,
    y: `${8 + Math.floor(i / 4) * 19}%`,
    font_size: 44,
    font_weight: 700,
    ...(animated
      ? i % 2 === 0
        ? { animation_preset: PRESETS[(i / 2) % PRESETS.length] }
        : { motion: [{ type: MOTIONS[(i - 1) / 2 % MOTIONS.length], loop: true, duration: 2 }] }
      : {}),
  }));
  return {
    width: 1920, height: 1080, frame_rate: 30, duration: animated ? undefined : 10,
    elements: [
      { type: 'shape', id: 'one', track: 1, duration: 4, fill_color: '#1d4ed8' },
      { type: 'shape', id: 'two', track: 1, duration: 4, fill_color: '#9333ea' },
      { type: 'shape', id: 'three', track: 1, duration: 3, fill_color: '#0f766e' },
      ...texts,
    ],
    ...(animated
      ? { transitions: [{ type: 'cross_dissolve', from_id: 'one', to_id: 'two', duration: 0.5 }, { type: 'wipe_left', from_id: 'two', to_id: 'three', duration: 0.5 }] }
      : {}),
  };
}

/** 720p30 2 s: a few shapes moving fast, for motion blur. */
function blurScene(samples: number | null) {
  return {
    width: 1280, height: 720, frame_rate: 30, duration: 2, background_color: '#111111',
    ...(samples ? { motion_blur: { samples, shutter: 0.5 } } : {}),
    elements: [
      { type: 'shape', fill_color: '#facc15', x: '20%', y: '30%', width: 160, height: 160, motion: [{ type: 'spin', loop: true, duration: 0.5, easing: 'linear' }] },
      { type: 'shape', fill_color: '#f43f5e', x: '50%', y: '60%', width: 200, height: 80, motion: [{ type: 'slide', direction: 'right', loop: true, duration: 0.5, easing: 'linear' }] },
      { type: 'text', text: 'Motion blur', x: '70%', y: '30%', font_size: 96, fill_color: '#ffffff', motion: [{ type: 'shake', loop: true, duration: 0.3 }] },
    ],
  };
}

// Warm-up: the first job of a worker opens the browser and loads the bundle.
await render({ width: 64, height: 64, output_format: 'png', elements: [], frame_rate: 30 } as never);

const rows: [string, number, number, number][] = [];
for (const [label, request] of [
  ['1080p30 10 s, 20 texts and 3 scenes, no motion', textScene(false)],
  ['1080p30 10 s, 20 animated texts (presets, text animations), 2 transitions', textScene(true)],
  ['720p30 2 s, fast shapes, no motion blur', blurScene(null)],
  ['720p30 2 s, motion blur 4 samples', blurScene(4)],
  ['720p30 2 s, motion blur 8 samples', blurScene(8)],
] as const) {
  const result = await render(request as never);
  rows.push([label, result.seconds, result.frames / result.seconds, result.peakBytes]);
}
await service.close();
rmSync(work, { recursive: true, force: true });

const header = ['case', 'wall s', 'fps', 'peak memory MB'];
const lines = rows.map(([label, seconds, fps, peak]) => [label, seconds.toFixed(1), fps.toFixed(1), (peak / 1024 / 1024).toFixed(0)]);
printTable(header, lines);
process.exit(0);
