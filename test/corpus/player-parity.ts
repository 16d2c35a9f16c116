import { copyFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { externalSources, resolveRequest, validateRenderRequest, type MediaInfo, type RenderRequest } from '../../composition/src/schema';
import { probeMedia } from '../../src/infra/media/probe';
import { RemotionRenderer } from '../../src/renders/engine/remotion-renderer';
import { frameAt } from '../helpers/media';
import { openPlayer } from '../helpers/player';
import type { TestApp } from '../helpers/test-app';
import { compareFrames, PARITY_CHANNEL_THRESHOLD, PARITY_MAX_SHARE, type FrameDifference } from './compare';
import { CORPUS_EXCLUSIONS, CORPUS_SIZE, type CorpusEntry } from './corpus';

/** One compared frame: the server's still against the browser <Player>'s. */
export interface FrameFigure extends FrameDifference {
  entry: string;
  frame: number;
  seconds: number;
  passes: boolean;
}

export interface PlayerParityRun {
  app: TestApp;
  corpus: CorpusEntry[];
  /** Fixture folder (what the media server serves) and how a fixture name becomes its URL. */
  fixtures: string;
  url: (name: string) => string;
  /** Where frames are written (server stills, player captures). */
  outputs: string;
  browserExecutable: string;
  /** Called after each frame, for progress output. */
  onFigure?: (figure: FrameFigure) => void;
}

/**
 * What a frontend gives the Player besides the request: each source's probed duration and size
 * (the same probe the worker runs on its copy), read here from the fixture files.
 */
export async function probedMedia(request: Record<string, unknown>, fixtures: string, url: (name: string) => string): Promise<Record<string, MediaInfo>> {
  const media: Record<string, MediaInfo> = {};
  for (const source of externalSources(request as RenderRequest)) {
    if (source.kind === 'lut') continue;
    const name = path.basename(new URL(source.url).pathname);
    if (url(name) !== source.url) throw new Error(`${source.url} is not a corpus fixture`);
    const info = await probeMedia(path.join(fixtures, name));
    if (!info) throw new Error(`could not probe ${name}`);
    media[source.url] = info;
  }
  return media;
}

const CONTENT_TYPES: Record<string, string> = { '.mp4': 'video/mp4', '.png': 'image/png', '.wav': 'audio/wav', '.cube': 'text/plain; charset=utf-8' };

/**
 * The server side: the render engine of the running app (its composition bundle, warm browser and
 * loopback media server, as RenderPipelineService uses them once a job's inputs are fetched and probed)
 * draws the chosen frames as lossless PNG at full size, so codec loss does not count as a
 * difference. `stem(frame)` is where each frame is written.
 */
export async function serverStills(app: TestApp, entry: CorpusEntry, media: Record<string, MediaInfo>, fixtures: string, stem: (frame: number) => string): Promise<void> {
  const parsed = validateRenderRequest(entry.request);
  if (!parsed.ok) throw new Error(`corpus request ${entry.name} is invalid: ${JSON.stringify(parsed.errors)}`);
  const request = parsed.value;
  const renderer = app.running.app.get(RemotionRenderer, { strict: false });
  await renderer.mediaServer.start();
  const sources = externalSources(request);
  const mounted = renderer.mediaServer.mount(
    sources.map((source) => {
      const file = path.join(fixtures, path.basename(new URL(source.url).pathname));
      return { file, contentType: CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream' };
    }),
  );
  try {
    const local = Object.fromEntries(sources.map((source, index) => [source.url, mounted.urls[index]]));
    const writes: Promise<void>[] = [];
    await renderer.stills({
      props: { request, media, sources: local, ...(entry.transcripts ? { transcripts: entry.transcripts } : {}) },
      resolved: resolveRequest(request, media, entry.transcripts),
      frames: entry.frames,
      imageFormat: 'png',
      scale: 1,
      onFrame: async (frame, image) => void writes.push(writeFile(stem(frame), image)),
      onProgress: () => undefined,
      signal: new AbortController().signal,
    });
    await Promise.all(writes);
  } finally {
    mounted.unmount();
  }
}

/**
 * Every corpus entry's frames drawn on the server and in the Player, compared. The two sides overlap: the server draws every entry's stills
 * in turn while the Player page opens and captures the entries the server has finished, so one
 * browser's waits for paints and settling are spent on the other's drawing.
 */
export async function runPlayerParity(run: PlayerParityRun): Promise<FrameFigure[]> {
  const stem = (entry: CorpusEntry, frame: number) => path.join(run.outputs, `${entry.name}-${frame}`);
  const media = run.corpus.map((entry) => probedMedia(entry.request, run.fixtures, run.url));
  const server: Promise<void>[] = [];
  let previous: Promise<void> = Promise.resolve();
  for (const [index, entry] of run.corpus.entries()) {
    previous = previous.then(async () => serverStills(run.app, entry, await media[index], run.fixtures, (frame) => `${stem(entry, frame)}-server.png`));
    server.push(previous);
  }
  // Every promise is awaited below; until then a failure must not count as unhandled.
  server.forEach((drawn) => drawn.catch(() => undefined));
  const figures: FrameFigure[] = [];
  const first = run.corpus[0];
  try {
    const player = await openPlayer({ request: first.request, media: await media[0], transcripts: first.transcripts }, CORPUS_SIZE, run.browserExecutable);
    try {
      for (const [index, entry] of run.corpus.entries()) {
        const fps = entry.request.frame_rate as number;
        if (index > 0) await player.show({ request: entry.request, media: await media[index], transcripts: entry.transcripts });
        for (const frame of entry.frames) copyFileSync(await player.frame(frame), `${stem(entry, frame)}-player.png`);
        await server[index];
        for (const frame of entry.frames) {
          const difference = compareFrames(await frameAt(`${stem(entry, frame)}-server.png`), await frameAt(`${stem(entry, frame)}-player.png`), PARITY_CHANNEL_THRESHOLD, entry.ignore);
          const figure = { entry: entry.name, frame, seconds: frame / fps, ...difference, passes: difference.overShare <= PARITY_MAX_SHARE };
          figures.push(figure);
          run.onFigure?.(figure);
        }
      }
    } finally {
      await player.close();
    }
  } finally {
    await Promise.allSettled(server);
  }
  return figures;
}

const percent = (share: number) => `${(share * 100).toFixed(3)} %`;

/** docs/parity.md: the method, the corpus, the per-frame figures and the exclusions. */
export function parityReport(corpus: CorpusEntry[], figures: FrameFigure[], measuredOn: string): string {
  const lines = [
    '# Preview = render parity',
    '',
    '<!-- Generated by `npm run parity:report` (test/render-parity.e2e-spec.ts with PARITY_REPORT set); do not edit by hand. -->',
    '',
    `The composition draws the same frames in a browser \`<Player>\` as on the server. Measured ${measuredOn}.`,
    '',
    '## Method',
    '',
    '- **Corpus** (`test/corpus/corpus.ts`): a few 320x180 requests of 1–1.5 s at 10 fps, each a grid of small',
    '  tiles, that together use every element type and feature: every shipped font, shapes, images,',
    '  video (trims, speed, speed ramps), audio and an audio-reactive group, backgrounds and gradients, the',
    '  look (colour fields, LUT, crop, borders, shadows, backdrop blur, masks, mattes, blend modes, every',
    '  effect), every motion preset, keyframes, groups, every text animation, every transition, motion',
    '  blur and the watermark. Media are made locally with ffmpeg (lavfi) and served on loopback.',
    '- **Server**: the running service\'s render engine (`RemotionRenderer`: its composition bundle, warm',
    '  Chromium and loopback media server, as the render pipeline uses them once inputs are fetched and',
    '  probed) draws the frames of each request in one pass, as lossless PNG at full size: the H.264 step',
    '  is left out so that codec loss does not count as a difference.',
    '- **Browser**: the composition package\'s `Main` in `@remotion/player` (props from `playerPropsFor`,',
    '  media probed like the worker does), in a page in the same Debian Chromium, fonts from the package',
    '  only, sources loaded from their URLs as a frontend would. Each frame is captured once the Player',
    '  is on it, not buffering, fonts and images loaded, and two captures in a row are equal.',
    `- **Measure**: a pixel differs when any channel differs by more than ${PARITY_CHANNEL_THRESHOLD}/255; a frame passes when at most`,
    `  ${PARITY_MAX_SHARE * 100} % of its pixels differ. "Max" is the largest channel difference in the frame.`,
    '- `npm run test -- test/render-parity.e2e-spec.ts` asserts it; `npm run parity:report` runs the same test',
    '  and writes this file.',
    '',
    '## Figures',
    '',
    '| Request | Frame (s) | Pixels over threshold | Max channel difference | Passes |',
    '|---|---|---|---|---|',
    ...figures.map((f) => `| ${f.entry} | ${f.frame} (${f.seconds.toFixed(1)}) | ${percent(f.overShare)} | ${f.maxDifference} | ${f.passes ? 'yes' : '**no**'} |`),
    '',
    '## What each request covers',
    '',
    ...corpus.map((entry) => `- **${entry.name}**: ${entry.covers}.`),
    '',
    '## Excluded',
    '',
    ...(CORPUS_EXCLUSIONS.length === 0
      ? ['Nothing: every feature is compared.']
      : CORPUS_EXCLUSIONS.map((exclusion) => `- **${exclusion.feature}**: ${exclusion.reason}`)),
    '',
  ];
  return lines.join('\n');
}
