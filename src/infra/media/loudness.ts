import { runFfmpeg } from './media-runner';

/**
 * EBU R128 loudness normalisation with ffmpeg's loudnorm filter, in two passes: the first measures
 * the mix, the second applies the gain computed from that measurement (linear when the true-peak
 * ceiling allows it, which keeps the mix's dynamics; loudnorm's own limiter otherwise). The result
 * is measured once more, as encoded, for the job's report.
 */

export interface LoudnessTarget {
  integratedLufs: number;
  truePeakDb: number;
}

export interface LoudnessMeasure {
  integrated_lufs: number;
  true_peak_db: number;
  loudness_range_lu: number;
}

export interface LoudnessReport extends LoudnessMeasure {
  target_lufs: number;
  true_peak_ceiling_db: number;
  /** linear: one gain for the whole mix; dynamic: loudnorm had to compress or limit. */
  method: 'linear' | 'dynamic';
  /** The mix before normalisation. */
  before: LoudnessMeasure;
}

interface LoudnormJson {
  input_i: string;
  input_tp: string;
  input_lra: string;
  input_thresh: string;
  target_offset: string;
  normalization_type?: string;
}

async function ffmpeg(args: string[], signal?: AbortSignal): Promise<string> {
  return (await runFfmpeg(args, { signal })).stderr;
}

function loudnormJson(stderr: string): LoudnormJson {
  const start = stderr.lastIndexOf('{');
  const end = stderr.lastIndexOf('}');
  if (start < 0 || end < start) throw new Error('loudnorm printed no measurement');
  return JSON.parse(stderr.slice(start, end + 1)) as LoudnormJson;
}

function finite(value: string, fallback: number): number {
  const number = Number(value);
  return Number.isFinite(number) ? number : fallback;
}

/** Integrated loudness, true peak and loudness range of a file's sound. */
export async function measureLoudness(file: string, signal?: AbortSignal): Promise<LoudnessMeasure & { raw: LoudnormJson }> {
  const raw = loudnormJson(await ffmpeg(['-i', file, '-vn', '-af', 'loudnorm=print_format=json', '-f', 'null', '-'], signal));
  return { integrated_lufs: finite(raw.input_i, -70), true_peak_db: finite(raw.input_tp, -70), loudness_range_lu: finite(raw.input_lra, 0), raw };
}

/**
 * Writes `output`: `input` with its sound brought to the target (video copied as is, sound
 * re-encoded with `audioEncoder`), and reports the measurements before and after.
 */
export async function normaliseLoudness(
  input: string,
  output: string,
  target: LoudnessTarget,
  audioEncoder: string[],
  signal?: AbortSignal,
): Promise<LoudnessReport> {
  const before = await measureLoudness(input, signal);
  // A loudness range target below the mix's own would force the dynamic mode.
  const range = Math.min(50, Math.max(7, Math.ceil(before.loudness_range_lu + 1)));
  const filter = [
    `loudnorm=I=${target.integratedLufs}:TP=${target.truePeakDb}:LRA=${range}`,
    `measured_I=${before.raw.input_i}:measured_TP=${before.raw.input_tp}:measured_LRA=${before.raw.input_lra}`,
    `measured_thresh=${before.raw.input_thresh}:offset=${before.raw.target_offset}:linear=true:print_format=json`,
  ].join(':');
  const second = loudnormJson(
    await ffmpeg(['-y', '-i', input, '-map', '0:v?', '-map', '0:a', '-c:v', 'copy', '-af', filter, '-ar', '48000', ...audioEncoder, output], signal),
  );
  const after = await measureLoudness(output, signal);
  const { raw: _before, ...beforeMeasure } = before;
  const { raw: _after, ...afterMeasure } = after;
  return {
    ...afterMeasure,
    target_lufs: target.integratedLufs,
    true_peak_ceiling_db: target.truePeakDb,
    method: second.normalization_type === 'linear' ? 'linear' : 'dynamic',
    before: beforeMeasure,
  };
}
