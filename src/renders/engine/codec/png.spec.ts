import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { decodeRgbaPng, encodeRgbaPng, mixRgba, type RgbaPicture } from './png';

const run = promisify(execFile);

/** A 64x36 RGBA test pattern with an alpha ramp, encoded by ffmpeg with the given row filter. */
async function ffmpegPng(prediction: string, format = 'rgba'): Promise<Buffer> {
  const { stdout } = await run(
    'ffmpeg',
    ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=s=64x36', '-vf', `format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='X*4',format=${format}`, '-frames:v', '1', '-pred', prediction, '-f', 'image2pipe', '-c:v', 'png', '-'],
    { encoding: 'buffer' },
  );
  return stdout as unknown as Buffer;
}

/** What ffmpeg decodes a PNG to, as RGBA bytes. */
async function ffmpegRgba(png: Buffer): Promise<Buffer> {
  const child = run('ffmpeg', ['-v', 'error', '-f', 'image2pipe', '-c:v', 'png', '-i', '-', '-f', 'rawvideo', '-pix_fmt', 'rgba', '-'], { encoding: 'buffer' });
  child.child.stdin!.end(png);
  return (await child).stdout as unknown as Buffer;
}

const picture = (width: number, height: number, rgba: number[]): RgbaPicture => ({
  width,
  height,
  pixels: Buffer.from(Array.from({ length: width * height }, () => rgba).flat()),
});

describe('PNG pictures of a transparent layer', () => {
  it('decodes every row filter, RGB and RGBA, to the bytes ffmpeg decodes', async () => {
    for (const [prediction, format] of [['none', 'rgba'], ['sub', 'rgba'], ['up', 'rgba'], ['avg', 'rgba'], ['paeth', 'rgba'], ['mixed', 'rgba'], ['mixed', 'rgb24']]) {
      const png = await ffmpegPng(prediction, format);
      const decoded = await decodeRgbaPng(png);
      expect({ prediction, format, size: [decoded?.width, decoded?.height], same: decoded?.pixels.equals(await ffmpegRgba(png)) }).toEqual({ prediction, format, size: [64, 36], same: true });
    }
    expect(await decodeRgbaPng(Buffer.from('not a png'))).toBeNull();
  });

  it('encodes a PNG that ffmpeg reads back byte for byte', async () => {
    const decoded = (await decodeRgbaPng(await ffmpegPng('paeth')))!;
    expect((await ffmpegRgba(await encodeRgbaPng(decoded))).equals(decoded.pixels)).toBe(true);
  });

  it('mixes in premultiplied colour: a fading white stays white, its alpha scales', () => {
    const clear = picture(2, 1, [0, 0, 0, 0]);
    const white = picture(2, 1, [255, 255, 255, 255]);
    expect([...mixRgba([{ picture: clear, weight: 0.5 }, { picture: white, weight: 0.5 }]).pixels.subarray(0, 4)]).toEqual([255, 255, 255, 128]);
    // Half-transparent red over nothing, faded to 40 %: still red, alpha 0.4 · 128.
    const red = picture(2, 1, [255, 0, 0, 128]);
    expect([...mixRgba([{ picture: clear, weight: 0.6 }, { picture: red, weight: 0.4 }]).pixels.subarray(0, 4)]).toEqual([255, 0, 0, 51]);
    // Two opaque colours: the plain weighted mix.
    const blue = picture(2, 1, [0, 0, 200, 255]);
    expect([...mixRgba([{ picture: red, weight: 0 }, { picture: blue, weight: 0.25 }, { picture: white, weight: 0.75 }]).pixels.subarray(0, 4)]).toEqual([191, 191, 241, 255]);
    // Nothing drawn anywhere: transparent.
    expect([...mixRgba([{ picture: clear, weight: 1 }]).pixels]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });
});
