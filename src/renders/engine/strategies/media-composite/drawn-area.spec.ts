import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { alphaRows, DrawnArea } from './drawn-area';

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
      const rows = await alphaRows(await png([[10, 20, 30, 5, 255], [200, 22, 3, 1, 128]], prediction));
      expect({ prediction, first: rows?.first[22], last: rows?.last[22], below: rows?.first[25], above: rows?.first[19], top: rows?.first[20], lastTop: rows?.last[20] }).toEqual({
        prediction, first: 10, last: 202, below: -1, above: -1, top: 10, lastTop: 39,
      });
    }
  });

  it('merges frames into bands of rows, joining close runs and limiting their number', async () => {
    const area = new DrawnArea(320, 180);
    await area.add(await png([[10, 10, 20, 10, 255]], 'mixed'));
    await area.add(await png([[100, 25, 20, 10, 255], [50, 150, 10, 10, 1]], 'mixed'));
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
    const area = new DrawnArea(320, 180);
    await area.add(Buffer.from('not a png'));
    expect(area.bands()).toEqual([{ x: 0, y: 0, width: 320, height: 180 }]);
  });
});
