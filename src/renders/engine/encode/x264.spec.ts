import { convertOnOneThread, REMOTION_BT709_TV_RANGE, TO_BT709_TV_RANGE } from './x264';

describe('convertOnOneThread (ffmpegOverride of the browser path)', () => {
  // The shape of Remotion's encoding command for `codec: 'h264'`, `colorSpace: 'bt709'`.
  const encoding = ['-r', '30', '-f', 'image2pipe', '-s', '320x180', '-vcodec', 'mjpeg', '-i', '-', '-c:v', 'libx264', '-colorspace:v', 'bt709', '-vf', REMOTION_BT709_TV_RANGE, '-crf', '18', '-y', 'out.mp4'];

  it('runs Remotion\'s BT.709 conversion on one thread, nothing else changed', () => {
    const args = convertOnOneThread({ type: 'pre-stitcher', args: encoding });
    expect(args).toEqual(encoding.map((arg) => (arg === REMOTION_BT709_TV_RANGE ? TO_BT709_TV_RANGE : arg)));
    expect(TO_BT709_TV_RANGE).toBe(`${REMOTION_BT709_TV_RANGE}:threads=1`);
  });

  it('leaves a command that copies the encoded video as it is', () => {
    const copy = ['-i', 'video.mp4', '-c:v', 'copy', '-y', 'out.mp4'];
    expect(convertOnOneThread({ type: 'stitcher', args: copy })).toEqual(copy);
  });

  it('refuses an x264 command without the conversion it replaces (Remotion changed it)', () => {
    const changed = encoding.map((arg) => (arg === REMOTION_BT709_TV_RANGE ? 'zscale=matrix=709:range=limited' : arg));
    expect(() => convertOnOneThread({ type: 'pre-stitcher', args: changed })).toThrow(/no BT\.709 conversion/);
  });
});
