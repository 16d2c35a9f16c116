import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PngDecoder, PngWriter } from './png-frames';

/** A 16×8 RGBA picture: a colour ramp with an alpha ramp, shifted by `seed`. */
function picture(seed: number): Buffer {
  const pixels = Buffer.alloc(16 * 8 * 4);
  for (let at = 0; at < pixels.length; at += 4) pixels.set([(at + seed) & 0xff, (at * 3 + seed) & 0xff, seed, (at / 4 + seed * 7) & 0xff], at);
  return pixels;
}

describe('PNG frames through ffmpeg', () => {
  let dir: string;
  beforeAll(async () => (dir = await mkdtemp(path.join(tmpdir(), 'png-frames-'))));
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes RGBA pictures as numbered PNGs and decodes them back byte for byte, in order', async () => {
    const signal = new AbortController().signal;
    const writer = new PngWriter(16, 8, path.join(dir, 'mixed-%06d.png'), signal);
    const pictures = [picture(1), picture(90), picture(200)];
    const files: string[] = [];
    for (const pixels of pictures) files.push(await writer.write(pixels));
    await writer.close();
    expect(files.map((file) => path.basename(file))).toEqual(['mixed-000000.png', 'mixed-000001.png', 'mixed-000002.png']);

    const pngs = await Promise.all(files.map((file) => readFile(file)));
    // Pulled: fed ahead, taken one by one (at most `keep` wait decoded).
    const decoder = new PngDecoder(16, 8, 'rgba', signal, undefined, 1);
    const feeding = (async () => {
      for (const png of pngs) await decoder.feed(png);
      decoder.end();
    })();
    const decoded = [await decoder.next(), await decoder.next(), await decoder.next()];
    await feeding;
    await decoder.close();
    expect(decoded.map((pixels, index) => pixels.equals(pictures[index]))).toEqual([true, true, true]);
    await expect(decoder.next()).rejects.toThrow('no more PNGs');

    // Pushed, the alpha plane only.
    const seen: Buffer[] = [];
    const alpha = new PngDecoder(16, 8, 'alpha', signal, (pixels) => seen.push(pixels));
    for (const png of pngs) await alpha.feed(png);
    await alpha.close();
    const plane = seen[0];
    expect(seen.length).toBe(3);
    expect([...plane.subarray(0, 4)]).toEqual([...[3, 7, 11, 15].map((at) => pictures[0][at])]);
  });

  it('refuses what is not a PNG, and fails on a damaged one', async () => {
    const signal = new AbortController().signal;
    const decoder = new PngDecoder(16, 8, 'rgba', signal);
    await expect(decoder.feed(Buffer.from('not a png at all'))).rejects.toThrow('not a PNG');
    const writer = new PngWriter(16, 8, path.join(dir, 'one-%06d.png'), signal);
    const file = await writer.write(picture(5));
    await writer.close();
    const png = await readFile(file);
    const damaged = Buffer.concat([png.subarray(0, 40), Buffer.alloc(64, 0x55)]);
    await decoder.feed(damaged);
    await expect(decoder.close()).rejects.toThrow();
    await expect(decoder.next()).rejects.toThrow();
  });
});
