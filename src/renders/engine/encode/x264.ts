/**
 * What every H.264 strategy encodes with: x264's preset and CRF (RENDER_X264_PRESET /
 * RENDER_X264_CRF), Remotion's other encoder settings, and one colour conversion to BT.709.
 */

/** Remotion's conversion of the captured pictures to BT.709 in TV range, as its encoder runs it. */
export const REMOTION_BT709_TV_RANGE = 'zscale=matrix=709:range=limited:primariesin=709:primaries=709:transferin=709:transfer=709';

/**
 * That conversion on one thread, on every H.264 path. On N threads zscale converts N slices of
 * rows apart and does not resample chroma across their seams, so a colour edge on a seam came out
 * sharper than anywhere else, the picture depended on the machine's core count, and a region
 * converted alone (the media composite) would be sliced elsewhere than the whole frame.
 */
export const TO_BT709_TV_RANGE = `${REMOTION_BT709_TV_RANGE}:threads=1`;

/**
 * `ffmpegOverride` for Remotion's renderMedia: its encoder converts with TO_BT709_TV_RANGE too.
 * Throws if a video encoding command no longer carries the conversion this replaces (a Remotion
 * upgrade), rather than let the paths drift apart silently.
 */
export function convertOnOneThread({ type, args }: { type: 'pre-stitcher' | 'stitcher'; args: string[] }): string[] {
  const at = args.indexOf(REMOTION_BT709_TV_RANGE);
  if (at === -1) {
    const encodes = args.some((arg, index) => arg === '-c:v' && args[index + 1] === 'libx264');
    if (encodes) throw new Error(`Remotion's ${type} ffmpeg command has no BT.709 conversion to run on one thread`);
    return args;
  }
  return args.map((arg, index) => (index === at ? TO_BT709_TV_RANGE : arg));
}

/** x264's speed preset and constant rate factor, the same for every H.264 path (RENDER_X264_PRESET, RENDER_X264_CRF). */
export interface X264Settings {
  preset: string;
  crf: number;
}

/** Remotion's own for `codec: 'h264'`: x264's default preset, CRF 18. */
export const DEFAULT_X264: X264Settings = { preset: 'medium', crf: 18 };

/** Remotion's H.264 encoder settings (see encodeHeldFrames) with the preset and CRF of `x264`. */
export function x264Args(x264: X264Settings = DEFAULT_X264): string[] {
  return [
    '-c:v', 'libx264', '-preset', x264.preset, '-crf', String(x264.crf),
    '-colorspace:v', 'bt709', '-color_primaries:v', 'bt709', '-color_trc:v', 'bt709', '-color_range', 'tv',
    '-pix_fmt', 'yuv420p', '-video_track_timescale', '90000',
  ];
}
