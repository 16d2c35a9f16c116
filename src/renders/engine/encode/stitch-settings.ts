/**
 * The encoder settings of the outputs Remotion stitches from captured frames after drawing them
 * (VP9, ProRes, GIF: no encoding beside the drawing), applied through renderMedia's
 * `ffmpegOverride`. Remotion's own defaults are its encoders' slowest searches; these are the
 * planner's (EncoderPlan.vp9, .prores, .gif), chosen in docs/decisions/0101-alpha-gif-encoders.md.
 */

/** libvpx-vp9's speed settings; the quality stays Remotion's CRF. */
export interface Vp9Settings {
  deadline: 'good' | 'realtime';
  cpuUsed: number;
  /** Row-based multithreading and tile columns (log2): both cores on one frame. */
  rowMt: boolean;
  tileColumns: number;
  threads: number;
}

/** prores_ks with a fixed quantiser (`-q:v`) instead of its per-slice search for the profile's bit budget. */
export interface ProResSettings {
  qscale: number;
}

/** The GIF palette: one for the whole animation, from what changes between frames (`diff`) or every pixel (`full`). */
export interface GifSettings {
  statsMode: 'full' | 'diff';
  dither: 'bayer' | 'sierra2_4a' | 'floyd_steinberg' | 'none';
  /** paletteuse re-quantises only the rectangle that changed since the previous frame. */
  diffRectangle: boolean;
}

export interface StitchSettings {
  vp9?: Vp9Settings;
  prores?: ProResSettings;
  gif?: GifSettings;
}

export const DEFAULT_VP9: Vp9Settings = { deadline: 'realtime', cpuUsed: 6, rowMt: true, tileColumns: 2, threads: 2 };
export const DEFAULT_PRORES: ProResSettings = { qscale: 4 };
export const DEFAULT_GIF: GifSettings = { statsMode: 'diff', dither: 'sierra2_4a', diffRectangle: true };

/** What the planner gives each stitched output unless told otherwise (PlannerConfig.stitch). */
export const DEFAULT_STITCH: Required<StitchSettings> = { vp9: DEFAULT_VP9, prores: DEFAULT_PRORES, gif: DEFAULT_GIF };

/** Remotion's GIF graph: one palette from every pixel, Sierra dithering. */
export const REMOTION_GIF_GRAPH = 'split[v],palettegen,[v]paletteuse';

export function vp9Args(vp9: Vp9Settings): string[] {
  return [
    '-deadline', vp9.deadline, '-cpu-used', String(vp9.cpuUsed), '-row-mt', vp9.rowMt ? '1' : '0',
    '-tile-columns', String(vp9.tileColumns), '-threads', String(vp9.threads), '-b:v', '0',
  ];
}

export function gifGraph(gif: GifSettings): string {
  const dither = gif.dither === 'bayer' ? 'dither=bayer:bayer_scale=3' : `dither=${gif.dither}`;
  return `split[v],palettegen=stats_mode=${gif.statsMode}[p];[v][p]paletteuse=${dither}${gif.diffRectangle ? ':diff_mode=rectangle' : ''}`;
}

/**
 * `ffmpegOverride` for renderMedia: the settings placed after the command's video encoder (or its
 * GIF graph replaced). Throws when the command no longer has what they replace (a Remotion upgrade)
 * rather than encode with other settings silently.
 */
export function stitchWith(settings: StitchSettings): (command: { type: 'pre-stitcher' | 'stitcher'; args: string[] }) => string[] {
  return ({ type, args }) => {
    const encoderAt = args.findIndex((arg, index) => arg === '-c:v' && index + 1 < args.length);
    const encoder = encoderAt === -1 ? null : args[encoderAt + 1];
    const after = (extra: string[]) => [...args.slice(0, encoderAt + 2), ...extra, ...args.slice(encoderAt + 2)];
    if (settings.vp9 && encoder === 'libvpx-vp9') return after(vp9Args(settings.vp9));
    if (settings.prores && encoder === 'prores_ks') return after(['-q:v', String(settings.prores.qscale)]);
    if (settings.gif) {
      const graphAt = args.indexOf(REMOTION_GIF_GRAPH);
      if (graphAt !== -1) return args.map((arg, index) => (index === graphAt ? gifGraph(settings.gif!) : arg));
      if (encoder === 'gif') throw new Error(`Remotion's ${type} ffmpeg command has no GIF palette graph to replace`);
    }
    if ((settings.vp9 || settings.prores) && encoder !== 'copy') {
      throw new Error(`Remotion's ${type} ffmpeg command encodes with ${encoder ?? 'no -c:v'}, not the encoder whose settings were planned`);
    }
    return args;
  };
}
