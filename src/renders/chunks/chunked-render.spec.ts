import { chunkKey, splitFrames } from './chunked-render.service';

describe('splitting a render into chunks', () => {
  it('covers every frame once, in order, the last chunk shorter', () => {
    expect(splitFrames(60, 12)).toEqual([[0, 11], [12, 23], [24, 35], [36, 47], [48, 59]]);
    expect(splitFrames(150, 12).at(-1)).toEqual([144, 149]);
    expect(splitFrames(1800, 450)).toHaveLength(4);
    for (const [total, size] of [[61, 12], [1, 5], [1799, 1800], [100, 7]]) {
      const frames = splitFrames(total, size).flatMap(([first, last]) => Array.from({ length: last - first + 1 }, (_, i) => first + i));
      expect(frames).toEqual(Array.from({ length: total }, (_, i) => i));
    }
  });

  it('stores chunk files under the parent\'s workspace, by job and index', () => {
    expect(chunkKey({ workspaceId: 'ws_1', id: 'render_2' }, 3)).toBe('ws_1/chunks/render_2/3.mp4');
  });
});
