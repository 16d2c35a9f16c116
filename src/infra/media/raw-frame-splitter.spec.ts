import { RawFrameSplitter } from './raw-frame-splitter';

describe('RawFrameSplitter', () => {
  it('returns whole frames across chunk boundaries, in order, and counts what is left of one', () => {
    const frames = new RawFrameSplitter(4);
    const bytes = Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(frames.push(bytes.subarray(0, 3))).toEqual([]);
    expect(frames.partialBytes).toBe(3);
    expect(frames.push(bytes.subarray(3, 9))).toEqual([Buffer.from([0, 1, 2, 3]), Buffer.from([4, 5, 6, 7])]);
    expect(frames.partialBytes).toBe(1);
    expect(frames.push(bytes.subarray(9))).toEqual([]);
    expect(frames.partialBytes).toBe(2);
  });

  it('gives each frame its own buffer', () => {
    const frames = new RawFrameSplitter(2);
    const [a, b] = frames.push(Buffer.from([1, 2, 3, 4]));
    a[0] = 9;
    expect(b).toEqual(Buffer.from([3, 4]));
    expect(a.buffer === b.buffer && a.byteOffset === b.byteOffset).toBe(false);
  });
});
