import { DEFAULT_STITCH, gifGraph, REMOTION_GIF_GRAPH, stitchWith, vp9Args } from './stitch-settings';

describe('stitchWith (ffmpegOverride of the VP9, ProRes and GIF outputs)', () => {
  const frames = ['-r', '30', '-f', 'image2', '-s', '320x180', '-start_number', '0', '-i', 'element-%03d.png'];
  // The shapes of Remotion's stitching commands for these codecs.
  const vp9 = [...frames, '-an', '-c:v', 'libvpx-vp9', '-pix_fmt', 'yuva420p', '-auto-alt-ref', '0', '-crf', '28', '-y', 'out.webm'];
  const prores = [...frames, '-an', '-c:v', 'prores_ks', '-profile:v', '4', '-pix_fmt', 'yuva444p10le', '-y', 'out.mov'];
  const gif = [...frames, '-filter_complex', REMOTION_GIF_GRAPH, '-an', '-c:v', 'gif', '-y', 'out.gif'];
  const override = stitchWith(DEFAULT_STITCH);

  it('puts libvpx\'s speed settings right after the VP9 encoder, the rest (CRF, alpha) untouched', () => {
    const args = override({ type: 'stitcher', args: vp9 });
    expect(args).toEqual([...vp9.slice(0, 13), ...vp9Args(DEFAULT_STITCH.vp9), ...vp9.slice(13)]);
    expect(args.join(' ')).toContain('-deadline realtime -cpu-used 6 -row-mt 1 -tile-columns 2 -threads 2 -b:v 0 -pix_fmt yuva420p -auto-alt-ref 0 -crf 28');
  });

  it('gives prores_ks a fixed quantiser, profile 4444 and alpha kept', () => {
    const args = override({ type: 'stitcher', args: prores });
    expect(args.join(' ')).toContain(`-c:v prores_ks -q:v ${DEFAULT_STITCH.prores.qscale} -profile:v 4 -pix_fmt yuva444p10le`);
  });

  it('replaces the GIF palette graph with the planned one', () => {
    const args = override({ type: 'stitcher', args: gif });
    expect(args).toEqual(gif.map((arg) => (arg === REMOTION_GIF_GRAPH ? gifGraph(DEFAULT_STITCH.gif) : arg)));
    expect(gifGraph(DEFAULT_STITCH.gif)).toBe('split[v],palettegen=stats_mode=diff[p];[v][p]paletteuse=dither=sierra2_4a:diff_mode=rectangle');
    expect(gifGraph({ statsMode: 'full', dither: 'bayer', diffRectangle: false })).toBe('split[v],palettegen=stats_mode=full[p];[v][p]paletteuse=dither=bayer:bayer_scale=3');
  });

  it('leaves a command without planned settings, or one that copies, as it is', () => {
    expect(stitchWith({})({ type: 'stitcher', args: vp9 })).toEqual(vp9);
    const copy = ['-i', 'video.webm', '-c:v', 'copy', '-y', 'out.webm'];
    expect(override({ type: 'stitcher', args: copy })).toEqual(copy);
  });

  it('refuses a command that no longer has what the settings replace (Remotion changed it)', () => {
    expect(() => override({ type: 'stitcher', args: gif.map((arg) => (arg === REMOTION_GIF_GRAPH ? 'palettegen' : arg)) })).toThrow(/no GIF palette graph/);
    expect(() => stitchWith({ vp9: DEFAULT_STITCH.vp9 })({ type: 'stitcher', args: prores })).toThrow(/encodes with prores_ks/);
  });
});
