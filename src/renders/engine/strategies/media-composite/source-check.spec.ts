import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { sourceProblem } from './source-check';

const run = promisify(execFile);

describe('sourceProblem', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'composite-sources-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /** Why a 64x36 clip made by ffmpeg with `extra` arguments cannot be composited; null when it can. */
  async function problemOf(name: string, extra: string[]) {
    const file = path.join(folder, `${name}.mp4`);
    await run('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=64x36:rate=30:duration=1', '-c:v', 'libx264', '-preset', 'ultrafast', ...extra, file]);
    return sourceProblem(file, new AbortController().signal);
  }

  it('takes 8-bit 4:2:0 TV-range sources, BT.709 or untagged', async () => {
    expect(await problemOf('untagged', ['-pix_fmt', 'yuv420p'])).toBeNull();
    expect(await problemOf('bt709', ['-pix_fmt', 'yuv420p', '-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709'])).toBeNull();
  });

  it('leaves other sources to the browser, saying why', async () => {
    expect(await problemOf('bt601', ['-pix_fmt', 'yuv420p', '-colorspace', 'bt470bg'])).toBe('color space bt470bg (only BT.709 or untagged)');
    expect(await problemOf('full-range', ['-pix_fmt', 'yuvj420p'])).toContain('pixel format yuvj420p');
    expect(await problemOf('full-chroma', ['-pix_fmt', 'yuv444p'])).toContain('pixel format yuv444p');
    expect(await sourceProblem(path.join(folder, 'missing.mp4'), new AbortController().signal)).toContain('could not be probed');
  });
});
