// `npm run gallery`: renders every entry of docs/gallery/requests/*.json through the service's own
// engine (the built RemotionRenderer: the same bundle, browser flags and media server as a worker)
// into small PNGs in docs/gallery/, and rewrites docs/gallery/index.md.
//
// An entry file: { "title": string, "times": number[], "request": <render request>, "transcripts"?: words
// of each caption source, seconds, as the worker resolves them before rendering }. One time →
// one PNG; several → a contact sheet with each frame labelled by its time. With "video": true the
// request is rendered once as an mp4 (whichever video path the worker takes) and the frames are
// decoded from the file: what a viewer's player shows. URLs under
// https://gallery.local/ name the fixtures below (made here with ffmpeg, so nothing binary is
// committed besides the pictures); any other URL is loaded as given.
// Usage: npm run gallery [-- name-filter]   (needs `npm run build` first)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.resolve(import.meta.dirname, '..');
const { loadConfig } = require(path.join(root, 'dist/src/config/app-config.js'));
const { RemotionRenderer } = require(path.join(root, 'dist/src/renders/engine/remotion-renderer.js'));
const { planOutput } = require(path.join(root, 'dist/src/renders/engine/output-formats.js'));
const { probeMedia } = require(path.join(root, 'dist/src/infra/media/probe.js'));
const { catalogueFamiliesOf, catalogueFamily, externalSources, resolveRequest, validateRenderRequest } = require(path.join(root, 'dist/composition/src/schema/index.js'));
const { fontFacesOfCss } = require(path.join(root, 'dist/src/fonts/font-css.js'));

const GALLERY = path.join(root, 'docs/gallery');
const REQUESTS = path.join(GALLERY, 'requests');
const FIXTURE_HOST = 'https://gallery.local/';
const filter = process.argv[2] ?? '';

const work = mkdtempSync(path.join(tmpdir(), 'gallery-'));
const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);

/** The fixtures entries may name under https://gallery.local/. */
function makeFixtures(): Record<string, { file: string; contentType: string }> {
  const file = (name: string) => path.join(work, name);
  // A colourful 3 s clip: colour bars, gradients, moving parts.
  ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=30:duration=3', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p',
    '-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709', file('clip.mp4'));
  // A "photo": smooth hues over a dark-to-light ramp, so every colour operation shows.
  ffmpeg('-f', 'lavfi', '-i', 'gradients=size=640x360:c0=0x1e3c72:c1=0xf5af19:c2=0xe94057:c3=0x2a9d8f:nb_colors=4:type=radial:seed=7',
    '-frames:v', '1', file('photo.png'));
  ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=1:duration=1', '-frames:v', '1', file('bars.png'));
  ffmpeg('-f', 'lavfi', '-i', 'color=c=0x00000000:s=64x64,format=rgba', '-frames:v', '1', file('clear.png'));
  // A 33-point 3D LUT that inverts colours, and a warm 1D curve.
  writeFileSync(file('invert.cube'), cube3d(17, (r, g, b) => [1 - r, 1 - g, 1 - b], 'Invert'));
  writeFileSync(file('warm.cube'), cube3d(17, (r, g, b) => [Math.min(1, r * 1.1 + 0.04), g, b * 0.85], 'Warm'));
  // A beat: a 220 Hz tone sounding for the first quarter of every half second (audio-reactive entries).
  ffmpeg('-f', 'lavfi', '-i', "sine=frequency=220:sample_rate=48000:duration=3,volume=eval=frame:volume='4*lt(mod(t,0.5),0.25)'", '-c:a', 'aac', file('beat.m4a'));
  // A spoken line (espeak-ng) and a soft chord under it (waveform entries).
  execFileSync('espeak-ng', ['-s', '150', '-w', file('voice.wav'), 'Welcome back to the show. Today: sound that mixes itself.']);
  ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=110:sample_rate=48000:duration=4', '-f', 'lavfi', '-i', 'sine=frequency=165:sample_rate=48000:duration=4',
    '-f', 'lavfi', '-i', 'sine=frequency=220:sample_rate=48000:duration=4', '-filter_complex', 'amix=inputs=3,volume=0.6', file('chord.wav'));
  return {
    'voice.wav': { file: file('voice.wav'), contentType: 'audio/wav' },
    'chord.wav': { file: file('chord.wav'), contentType: 'audio/wav' },
    'clip.mp4': { file: file('clip.mp4'), contentType: 'video/mp4' },
    'photo.png': { file: file('photo.png'), contentType: 'image/png' },
    'bars.png': { file: file('bars.png'), contentType: 'image/png' },
    'clear.png': { file: file('clear.png'), contentType: 'image/png' },
    'invert.cube': { file: file('invert.cube'), contentType: 'text/plain' },
    'warm.cube': { file: file('warm.cube'), contentType: 'text/plain' },
    'beat.m4a': { file: file('beat.m4a'), contentType: 'audio/mp4' },
  };
}

function cube3d(size: number, map: (r: number, g: number, b: number) => number[], title: string): string {
  const lines = [`TITLE "${title}"`, `LUT_3D_SIZE ${size}`];
  for (let b = 0; b < size; b += 1) {
    for (let g = 0; g < size; g += 1) {
      for (let r = 0; r < size; r += 1) lines.push(map(r / (size - 1), g / (size - 1), b / (size - 1)).map((v) => v.toFixed(6)).join(' '));
    }
  }
  return `${lines.join('\n')}\n`;
}

interface Entry {
  title: string;
  times: number[];
  request: Record<string, unknown>;
  transcripts?: Record<string, { text: string; start: number; end: number }[]>;
  video?: boolean;
}

// No database here, so no Prometheus registry: video renders report their timing to nobody.
const renderer = new RemotionRenderer(loadConfig(), { videoRendered: () => undefined });
const fixtures = makeFixtures();
await renderer.warmUp();
const mounted = renderer.mediaServer.mount(Object.values(fixtures));
const fixtureUrl = Object.fromEntries(Object.keys(fixtures).map((name, index) => [name, mounted.urls[index]]));

const names = readdirSync(REQUESTS).filter((name) => name.endsWith('.json')).sort();
const listed: { name: string; title: string; times: number[] }[] = [];
let failures = 0;
for (const name of names) {
  const base = name.slice(0, -'.json'.length);
  const entry = JSON.parse(readFileSync(path.join(REQUESTS, name), 'utf8')) as Entry;
  listed.push({ name: base, title: entry.title, times: entry.times });
  if (filter && !base.includes(filter)) continue;
  try {
    await renderEntry(base, entry);
    console.log(`rendered ${base}`);
  } catch (error) {
    failures += 1;
    console.error(`${base}: ${(error as Error).message}`);
  }
}
writeIndex(listed);
mounted.unmount();
await renderer.onModuleDestroy();
rmSync(work, { recursive: true, force: true });
process.exit(failures > 0 ? 1 : 0);

/**
 * Google Fonts families an entry uses, as the service gets them: the @fontsource package from the
 * npm registry (`npm pack`), every woff2 face served to the renderer like a fixture.
 */
function catalogueFaces(request: { elements?: unknown[] }): { family: string; weight: string; style: string; unicode_range: string; url: string }[] {
  return catalogueFamiliesOf(request).flatMap((family: string) => {
    const id = catalogueFamily(family).id;
    const dir = path.join(work, 'fonts', id);
    mkdirSync(dir, { recursive: true });
    const tarball = execFileSync('npm', ['pack', `@fontsource/${id}`, '--silent', '--pack-destination', dir], { encoding: 'utf8' }).trim().split('\n').pop()!;
    execFileSync('tar', ['-xzf', path.join(dir, tarball), '-C', dir]);
    const sheets = readdirSync(path.join(dir, 'package')).filter((file) => /^\d{3}(-italic)?\.css$/.test(file));
    return sheets.flatMap((sheet) =>
      fontFacesOfCss(readFileSync(path.join(dir, 'package', sheet), 'utf8')).map((face: { family: string; weight: string; style: string; unicodeRange: string; file: string }) => {
        const [url] = renderer.mediaServer.mount([{ file: path.join(dir, 'package', 'files', face.file), contentType: 'font/woff2' }]).urls;
        return { family: face.family, weight: face.weight, style: face.style, unicode_range: face.unicodeRange, url };
      }),
    );
  });
}

async function renderEntry(base: string, entry: Entry): Promise<void> {
  const parsed = validateRenderRequest({ output_format: 'png', ...entry.request });
  if (!parsed.ok) throw new Error(`invalid request: ${JSON.stringify(parsed.errors)}`);
  const request = parsed.value;
  const media: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  for (const source of externalSources(request)) {
    if (!source.url.startsWith(FIXTURE_HOST)) continue;
    const fixture = source.url.slice(FIXTURE_HOST.length);
    if (!fixtures[fixture]) throw new Error(`no fixture ${fixture}`);
    sources[source.url] = fixtureUrl[fixture];
    if (!fixture.endsWith('.cube')) media[source.url] = await probeMedia(fixtures[fixture].file);
  }
  const fontFaces = catalogueFaces(request);
  const props = { request, media, sources, transcripts: entry.transcripts ?? {}, ...(fontFaces.length > 0 ? { fontFaces } : {}) };
  const frames: string[] = [];
  if (entry.video) {
    const resolved = resolveRequest(request, media, entry.transcripts ?? {});
    const video = path.join(work, `${base}.mp4`);
    await renderer.render({
      props,
      resolved,
      plan: planOutput('mp4', false),
      outputPath: video,
      signal: new AbortController().signal,
      onProgress: () => undefined,
    });
    for (const [index, time] of entry.times.entries()) {
      const frame = Math.min(resolved.durationInFrames - 1, Math.round(time * resolved.fps));
      frames.push(path.join(work, `${base}-${index}.png`));
      ffmpeg('-i', video, '-vf', `select=eq(n\\,${frame})`, '-frames:v', '1', frames[index]);
    }
  }
  for (const [index, time] of (entry.video ? [] : entry.times).entries()) {
    const transcripts = entry.transcripts ?? {};
    const resolved = resolveRequest(request, media, transcripts);
    const outputPath = path.join(work, `${base}-${index}.png`);
    await renderer.render({
      props: { ...props, transcripts },
      resolved,
      plan: planOutput('png', request.alpha ?? false),
      outputPath,
      signal: new AbortController().signal,
      onProgress: () => undefined,
      stillFrame: Math.min(resolved.durationInFrames - 1, Math.round(time * resolved.fps)),
    });
    frames.push(outputPath);
  }
  const target = path.join(GALLERY, `${base}.png`);
  if (frames.length === 1) {
    ffmpeg('-i', frames[0], '-vf', 'scale=w=min(iw\\,480):h=-2', target);
  } else {
    // Each frame scaled to 240 px wide, its time written under it, side by side.
    const inputs = frames.flatMap((file) => ['-i', file]);
    const labelled = frames.map((_, i) =>
      `[${i}:v]scale=240:-2,pad=iw:ih+22:0:0:0x202020,drawtext=text='t = ${entry.times[i]} s':x=(w-tw)/2:y=h-17:fontsize=13:fontcolor=white[f${i}]`).join(';');
    const stack = `${frames.map((_, i) => `[f${i}]`).join('')}hstack=inputs=${frames.length}`;
    ffmpeg(...inputs, '-filter_complex', `${labelled};${stack}`, target);
  }
}

function writeIndex(entries: { name: string; title: string; times: number[] }[]): void {
  const lines = [
    '# Gallery',
    '',
    'One picture per drawn feature, rendered by `npm run gallery` through the service\'s own engine from the',
    'request in `requests/<name>.json` (fixtures: a test-pattern clip `clip.mp4`, a gradient `photo.png`, colour',
    'bars `bars.png`, a transparent `clear.png` and LUTs `invert.cube`, `warm.cube`, made by the script). Several times make a contact sheet.',
    '',
  ];
  for (const entry of entries) {
    lines.push(`## ${entry.title}`, '', `![${entry.title}](${entry.name}.png)`, '', `Request: [requests/${entry.name}.json](requests/${entry.name}.json)` +
      (entry.times.length > 1 ? `; frames at ${entry.times.join(', ')} s.` : `; frame at ${entry.times[0]} s.`), '');
  }
  mkdirSync(GALLERY, { recursive: true });
  writeFileSync(path.join(GALLERY, 'index.md'), `${lines.join('\n')}`);
}
