import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { CompositionProps, DrawnFrames } from '../../../composition/src/schema';
import { TO_BT709_TV_RANGE, writeFrameList, X264_ARGS } from './held-frames';
import type { CompositeClip, CompositePlan } from './media-composite-plan';
import { muxAacAudio, type RemotionRenderer, type RenderArgs, type RenderReport } from './remotion-renderer';

const execFileAsync = promisify(execFile);

/**
 * The media-composite render path: the browser draws the layers below the video clips (JPEG, as
 * the other paths capture) and above them (PNG with alpha), each distinct frame once and with the
 * clips hidden (`hidden` composition prop); ffmpeg decodes, trims, scales and fades each clip,
 * lays the three over each other in RGB and encodes with the held path's x264 settings. The sound
 * is the renderer's `soundTrack`, muxed like every other H.264 render.
 */
export async function renderMediaComposite(
  renderer: Pick<RemotionRenderer, 'stills' | 'soundTrack'>,
  args: RenderArgs,
  plan: CompositePlan,
  clipFiles: string[],
): Promise<RenderReport> {
  const clock = stopwatch();
  const workDir = path.dirname(args.outputPath);
  const { fps, durationInFrames } = args.resolved;
  const toDraw = plan.below.frames.frames.length + (plan.above?.frames.frames.length ?? 0);
  let drawn = 0;
  const draw = async (name: string, hidden: NonNullable<CompositionProps['hidden']>, frames: DrawnFrames, imageFormat: 'jpeg' | 'png') => {
    const dir = path.join(workDir, name);
    await mkdir(dir, { recursive: true });
    const fileOf = (frame: number) => path.join(dir, `${String(frame).padStart(6, '0')}.${imageFormat}`);
    await renderer.stills({
      props: { ...args.props, hidden },
      resolved: args.resolved,
      frames: frames.frames,
      imageFormat,
      scale: 1,
      onFrame: (frame, image) => writeFile(fileOf(frame), image),
      onProgress: () => args.onProgress('compositing', (0.6 * ++drawn) / toDraw),
      signal: args.signal,
    });
    const list = path.join(workDir, `${name}.txt`);
    await writeFrameList(list, frames.frames.map((frame, index) => ({ file: fileOf(frame), hold: frames.holds[index] })), fps);
    return list;
  };
  const belowList = await draw('below', plan.below.hidden, plan.below.frames, 'jpeg');
  const aboveList = plan.above ? await draw('above', plan.above.hidden, plan.above.frames, 'png') : null;
  const drawSeconds = clock();

  const audioPath = path.join(workDir, 'audio.wav');
  const sound = args.resolved.hasAudio && args.plan.kind === 'video' && args.plan.audioCodec ? await renderer.soundTrack({ ...args, outputPath: audioPath }) : null;
  const audioSeconds = clock();

  args.onProgress('encoding', 0.7);
  const videoPath = path.join(workDir, 'composite.video.mp4');
  await execFileAsync('ffmpeg', compositeArgs({ plan, clipFiles, belowList, aboveList, fps, durationInFrames, outputPath: videoPath }), {
    signal: args.signal,
    timeout: 30 * 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  await muxAacAudio(videoPath, audioPath, args.outputPath, args.signal);
  args.onProgress('encoding', 1);
  return {
    render_path: 'media_composite',
    frames_total: durationInFrames,
    frames_drawn: toDraw,
    stage_seconds: { draw: drawSeconds, audio: audioSeconds, encode: clock() },
    ...sound,
  };
}

/** The ffmpeg arguments of the composite: inputs, filter graph, encoder. Exported for the benchmark. */
export function compositeArgs(o: {
  plan: CompositePlan;
  clipFiles: string[];
  belowList: string;
  aboveList: string | null;
  fps: number;
  durationInFrames: number;
  outputPath: string;
}): string[] {
  const inputs = ['-f', 'concat', '-safe', '0', '-i', o.belowList];
  // Converted to RGB once per drawn frame; the `fps` filter repeats it for its hold.
  const graph = [`[0:v]format=gbrp,fps=${o.fps}[base0]`];
  o.plan.clips.forEach((clip, index) => {
    const input = index + 1;
    // Enough source for the clip's frames plus a frame of slack; nothing decoded beyond it.
    const sourceSeconds = ((clip.durationInFrames + 2) * clip.playbackRate) / o.fps;
    inputs.push('-ss', seconds(clip.startSeconds), '-t', seconds(sourceSeconds), '-i', o.clipFiles[index]);
    graph.push(`[${input}:v]${clipFilters(clip, o.fps)}[clip${index}]`);
    graph.push(`[base${index}][clip${index}]overlay=x=${clip.left}:y=${clip.top}:eof_action=pass:format=gbrp[base${index + 1}]`);
  });
  let top = `base${o.plan.clips.length}`;
  if (o.aboveList) {
    inputs.push('-f', 'concat', '-safe', '0', '-i', o.aboveList);
    graph.push(`[${o.plan.clips.length + 1}:v]format=rgba,fps=${o.fps}[above]`);
    graph.push(`[${top}][above]overlay=eof_action=pass:format=gbrp[drawn]`);
    top = 'drawn';
  }
  // Through 4:2:0 full-range BT.601 first, chroma averaged over 2x2 pixels: the browser path's
  // JPEG capture does that to every frame before the same conversion, and chroma edges follow it.
  graph.push(`[${top}]scale=out_color_matrix=bt601:out_range=full:flags=area,format=yuvj420p,setparams=colorspace=bt470bg:range=pc,${TO_BT709_TV_RANGE},format=yuv420p[out]`);
  return [
    '-v', 'error', '-y',
    ...inputs,
    '-filter_complex', graph.join(';'),
    '-map', '[out]',
    '-frames:v', String(o.durationInFrames),
    ...X264_ARGS,
    '-an', o.outputPath,
  ];
}

/**
 * One clip as the composition draws it: source time (start + frame × speed) / fps, the latest
 * source frame at or before each instant (`round=up` puts a frame between two ticks on the later
 * one), its `cover` part scaled to the box, opacity × the linear fades of `fadeMultiplier`, then
 * moved to its first frame on the timeline.
 */
function clipFilters(clip: CompositeClip, fps: number): string {
  const { sourceCrop: crop } = clip;
  const filters = [
    `setpts=(PTS-STARTPTS)/${clip.playbackRate}`,
    `fps=${fps}:round=up`,
    `trim=end_frame=${clip.durationInFrames}`,
    `crop=${crop.width}:${crop.height}:${crop.x}:${crop.y}:exact=1`,
    `scale=${clip.width}:${clip.height}:flags=${CLIP_SCALER}:in_color_matrix=bt709:in_range=tv`,
    'format=rgba',
  ];
  if (clip.fadeInFrames > 0) filters.push(`fade=t=in:s=0:n=${clip.fadeInFrames}:alpha=1`);
  if (clip.fadeOutFrames > 0) filters.push(`fade=t=out:s=${clip.durationInFrames - clip.fadeOutFrames}:n=${clip.fadeOutFrames}:alpha=1`);
  if (clip.opacity < 1) filters.push(`colorchannelmixer=aa=${clip.opacity}`);
  filters.push(`setpts=PTS+${clip.from}/(${fps}*TB)`);
  return filters.join(',');
}

/** swscale's scaler closest to the browser's drawing of a scaled video (docs/decisions.md). */
const CLIP_SCALER = 'bilinear';

function seconds(value: number): string {
  return value.toFixed(6);
}

/** Seconds since the previous call (or since it was made), to two decimals. */
function stopwatch(): () => number {
  let last = performance.now();
  return () => {
    const now = performance.now();
    const elapsed = Math.round((now - last) / 10) / 100;
    last = now;
    return elapsed;
  };
}
