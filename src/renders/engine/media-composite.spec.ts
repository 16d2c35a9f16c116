import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { resolveRequest, type MediaInfo, type RenderRequest } from '../../../composition/src/schema';
import { chooseMediaComposite, libyuvBt709Cube } from './media-composite';
import { planOutput } from './output-formats';

const run = promisify(execFile);

/** The cube's map at one 8-bit Y, U, V (trilinear over its 2x2x2 corners), clamped and rounded like lut3d's output. */
function convert(cube: string, y: number, u: number, v: number): number[] {
  const rows = cube.trim().split('\n').slice(1).map((line) => line.split(' ').map(Number));
  const [r, g, b] = [v / 255, y / 255, u / 255];
  const out = [0, 0, 0];
  // .cube order: red fastest, then green, then blue.
  for (let bi = 0; bi < 2; bi++) for (let gi = 0; gi < 2; gi++) for (let ri = 0; ri < 2; ri++) {
    const weight = (ri ? r : 1 - r) * (gi ? g : 1 - g) * (bi ? b : 1 - b);
    const row = rows[bi * 4 + gi * 2 + ri];
    for (let channel = 0; channel < 3; channel++) out[channel] += weight * row[channel];
  }
  return out.map((value) => Math.min(255, Math.max(0, Math.round(value * 255))));
}

describe('libyuvBt709Cube', () => {
  it('converts as Chromium drew these colour-bar pixels (PNG stills of a <Video>), blue clamped to 2.0', () => {
    const cube = libyuvBt709Cube();
    // Y, U, V of the source → RGB the page drew (swscale's BT.709 gives 0, 11, 199 for the blue bar).
    const drawn: [number[], number[]][] = [
      [[35, 212, 114], [0, 11, 190]],
      [[84, 184, 198], [205, 30, 191]],
      [[65, 100, 212], [208, 19, 1]],
      [[180, 128, 128], [191, 191, 191]],
      [[162, 44, 142], [195, 181, 2]],
    ];
    for (const [[y, u, v], rgb] of drawn) {
      const converted = convert(cube, y, u, v);
      expect({ yuv: [y, u, v], close: converted.every((value, channel) => Math.abs(value - rgb[channel]) <= 1), converted }).toMatchObject({ yuv: [y, u, v], close: true });
    }
  });
});

describe('chooseMediaComposite', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'composite-sources-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /** A 64x36 clip filling a 64x36 canvas (1:1), its file made by ffmpeg with `extra` arguments. */
  async function choose(name: string, extra: string[]) {
    const file = path.join(folder, `${name}.mp4`);
    await run('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=64x36:rate=30:duration=1', '-c:v', 'libx264', '-preset', 'ultrafast', ...extra, file]);
    const url = `https://example.com/${name}.mp4`;
    const request: RenderRequest = { width: 64, height: 36, elements: [{ type: 'video', source_url: url }] };
    const media: Record<string, MediaInfo> = { [url]: { duration: 1, width: 64, height: 36, has_video: true, has_audio: false } };
    const props = { request, media, sources: { [url]: `http://127.0.0.1/${name}` } };
    const args = { props, resolved: resolveRequest(request, media), plan: planOutput('mp4', false), outputPath: '', onProgress: () => undefined, signal: new AbortController().signal };
    return chooseMediaComposite(args, (local) => (local.endsWith(name) ? file : null));
  }

  it('takes 8-bit 4:2:0 TV-range sources, BT.709 or untagged', async () => {
    expect(await choose('untagged', ['-pix_fmt', 'yuv420p'])).toMatchObject({ ok: true });
    expect(await choose('bt709', ['-pix_fmt', 'yuv420p', '-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709'])).toMatchObject({ ok: true });
  });

  it('leaves other sources to the browser, saying why', async () => {
    expect(await choose('bt601', ['-pix_fmt', 'yuv420p', '-colorspace', 'bt470bg'])).toEqual({ ok: false, reason: 'video element 0: color space bt470bg (only BT.709 or untagged)' });
    expect(await choose('full-range', ['-pix_fmt', 'yuvj420p'])).toMatchObject({ ok: false, reason: expect.stringContaining('pixel format yuvj420p') });
    expect(await choose('full-chroma', ['-pix_fmt', 'yuv444p'])).toMatchObject({ ok: false, reason: expect.stringContaining('pixel format yuv444p') });
  });
});
