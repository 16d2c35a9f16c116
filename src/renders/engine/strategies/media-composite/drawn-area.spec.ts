import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DrawnArea } from './drawn-area';

const run = promisify(execFile);

/** A 320x180 transparent PNG with boxes (not overlapping) of the given alpha ([x, y, width, height, alpha]), encoded by ffmpeg with the given row filter. */
async function png(boxes: number[][], prediction: string): Promise<Buffer> {
  const inside = boxes.map(([x, y, width, height, alpha]) => `between(X,${x},${x + width - 1})*between(Y,${y},${y + height - 1})*${alpha}`);
  const alpha = inside.join('+');
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=black:s=320x180,format=rgba', '-vf', `geq=r='X':g='Y':b=40:a='${alpha}'`, '-frames:v', '1', '-pred', prediction, '-f', 'image2pipe', '-c:v', 'png', '-'], {
    encoding: 'buffer',
  });
  return stdout as unknown as Buffer;
}

describe('DrawnArea', () => {
  it('finds the rows and columns with pixels in PNGs of every row filter', async () => {
    for (const prediction of ['none', 'sub', 'up', 'avg', 'paeth', 'mixed']) {
      const area = new DrawnArea(320, 180, new AbortController().signal);
      await area.add(await png([[10, 20, 30, 5, 255], [200, 22, 3, 1, 128]], prediction));
      await area.finish();
      expect({ prediction, bands: area.bands(0) }).toEqual({ prediction, bands: [{ x: 10, y: 20, width: 193, height: 5 }] });
      expect({ prediction, bands: area.bands(0, 10).length }).toEqual({ prediction, bands: 1 });
    }
  });

  it('counts every pixel of a PNG without alpha', async () => {
    const { stdout } = await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=red:s=320x180', '-frames:v', '1', '-pix_fmt', 'rgb24', '-f', 'image2pipe', '-c:v', 'png', '-'], { encoding: 'buffer' });
    const area = new DrawnArea(320, 180, new AbortController().signal);
    await area.add(stdout as unknown as Buffer);
    await area.finish();
    expect(area.bands()).toEqual([{ x: 0, y: 0, width: 320, height: 180 }]);
  });

  it('merges frames into bands of rows, joining close runs and limiting their number', async () => {
    const area = new DrawnArea(320, 180, new AbortController().signal);
    await area.add(await png([[10, 10, 20, 10, 255]], 'mixed'));
    await area.add(await png([[100, 25, 20, 10, 255], [50, 150, 10, 10, 1]], 'mixed'));
    await area.finish();
    expect(area.bands()).toEqual([
      { x: 10, y: 10, width: 110, height: 25 },
      { x: 50, y: 150, width: 10, height: 10 },
    ]);
    expect(area.bands(2)).toEqual([
      { x: 10, y: 10, width: 20, height: 10 },
      { x: 100, y: 25, width: 20, height: 10 },
      { x: 50, y: 150, width: 10, height: 10 },
    ]);
    expect(area.bands(2, 1)).toEqual([{ x: 10, y: 10, width: 110, height: 150 }]);
  });

  it('counts the whole canvas when a frame is not a PNG it reads', async () => {
    const area = new DrawnArea(320, 180, new AbortController().signal);
    await area.add(Buffer.from('not a png'));
    await area.finish();
    expect(area.bands()).toEqual([{ x: 0, y: 0, width: 320, height: 180 }]);
  });
});

describe('DrawnArea with a damaged PNG', () => {
  it('counts the whole canvas when ffmpeg cannot decode a frame', async () => {
    const good = await png([[10, 10, 20, 10, 255]], 'mixed');
    const damaged = Buffer.concat([good.subarray(0, 60), Buffer.alloc(200, 0x55)]);
    const area = new DrawnArea(320, 180, new AbortController().signal);
    await area.add(good);
    await area.add(damaged);
    await area.finish();
    expect(area.bands()).toEqual([{ x: 0, y: 0, width: 320, height: 180 }]);
  });
});
