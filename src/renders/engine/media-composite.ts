import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { CompositionProps, DrawnFrames } from '../../../composition/src/schema';
import { TO_BT709_TV_RANGE, writeFrameList, X264_ARGS } from './held-frames';
import { mediaCompositePlan, type CompositeClip, type CompositePlan } from './media-composite-plan';
import { muxAacAudio, type RemotionRenderer, type RenderArgs, type RenderReport } from './remotion-renderer';

const execFileAsync = promisify(execFile);

/**
 * The media-composite plan of a render with each clip's local file, or why the browser must draw
 * the clips (`mediaCompositePlan`, then what only the files tell); null when there is no clip.
 */
export async function chooseMediaComposite(
  args: RenderArgs,
  fileAt: (url: string) => string | null,
): Promise<{ ok: true; plan: CompositePlan; files: string[] } | { ok: false; reason: string } | null> {
  const choice = mediaCompositePlan(args.props, args.resolved, { plan: args.plan, scale: args.scale, frameRange: args.frameRange });
  if (!choice?.ok) return choice;
  const sources = args.props.sources ?? {};
  const files: string[] = [];
  for (const clip of choice.plan.clips) {
    const file = sources[clip.src] ? fileAt(sources[clip.src]) : null;
    if (!file) return { ok: false, reason: `video element ${clip.index} has no local copy` };
    const problem = await sourceProblem(file, args.signal);
    if (problem) return { ok: false, reason: `video element ${clip.index}: ${problem}` };
    files.push(file);
  }
  return { ok: true, plan: choice.plan, files };
}

/**
 * Why ffmpeg would not convert a source's pictures to RGB as the page does (libyuvBt709Cube); null
 * when it would: 8-bit 4:2:0 in TV range, BT.709 or untagged (the page treats untagged as BT.709),
 * not rotated.
 */
async function sourceProblem(file: string, signal: AbortSignal): Promise<string | null> {
  let stream: Record<string, unknown> | undefined;
  try {
    const { stdout } = await execFileAsync(
      'ffprobe',
      ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=pix_fmt,color_space,color_range,color_transfer,color_primaries:stream_tags=rotate:stream_side_data=rotation', '-of', 'json', file],
      { signal, timeout: 60_000 },
    );
    stream = (JSON.parse(stdout) as { streams?: Record<string, unknown>[] }).streams?.[0];
  } catch (error) {
    signal.throwIfAborted();
    // The browser path reports an undecodable source in its own words.
    return `the source could not be probed (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
  }
  if (!stream) return 'no picture stream';
  if (stream.pix_fmt !== 'yuv420p') return `pixel format ${String(stream.pix_fmt)} (only 8-bit 4:2:0 in TV range is converted as the browser does)`;
  const untaggedOr = (field: string, allowed: string) => stream[field] === undefined || stream[field] === 'unknown' || stream[field] === allowed;
  if (!untaggedOr('color_range', 'tv')) return `colour range ${String(stream.color_range)}`;
  for (const field of ['color_space', 'color_transfer', 'color_primaries']) {
    if (!untaggedOr(field, 'bt709')) return `${field.replace('_', ' ')} ${String(stream[field])} (only BT.709 or untagged)`;
  }
  const rotated = (stream.tags as Record<string, string> | undefined)?.rotate ?? (stream.side_data_list as { rotation?: number }[] | undefined)?.find((data) => data.rotation)?.rotation;
  if (rotated && Number(rotated) % 360 !== 0) return 'the source is rotated';
  return null;
}

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

  // The sound is mixed while ffmpeg composites (each its own process): the two share the cores.
  const audioPath = path.join(workDir, 'audio.wav');
  const mixing = timed(async () =>
    args.resolved.hasAudio && args.plan.kind === 'video' && args.plan.audioCodec ? renderer.soundTrack({ ...args, outputPath: audioPath }) : null,
  );
  args.onProgress('encoding', 0.7);
  const videoPath = path.join(workDir, 'composite.video.mp4');
  const cube = path.join(workDir, 'yuv-to-rgb.cube');
  const compositing = timed(async () => {
    await writeFile(cube, libyuvBt709Cube());
    await execFileAsync('ffmpeg', compositeArgs({ plan, clipFiles, belowList, aboveList, cube, fps, durationInFrames, outputPath: videoPath }), {
      signal: args.signal,
      timeout: 30 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
  });
  const [sound, encoded] = await Promise.allSettled([mixing, compositing]);
  if (sound.status === 'rejected') throw sound.reason;
  if (encoded.status === 'rejected') throw encoded.reason;
  await muxAacAudio(videoPath, audioPath, args.outputPath, args.signal);
  args.onProgress('encoding', 1);
  return {
    render_path: 'media_composite',
    frames_total: durationInFrames,
    frames_drawn: toDraw,
    // audio and encode overlap: each is its own duration.
    stage_seconds: { draw: drawSeconds, audio: sound.value.seconds, encode: encoded.value.seconds },
    ...sound.value.value,
  };
}

/** The ffmpeg arguments of the composite: inputs, filter graph, encoder. Exported for the benchmark. */
export function compositeArgs(o: {
  plan: CompositePlan;
  clipFiles: string[];
  belowList: string;
  aboveList: string | null;
  /** The file written from libyuvBt709Cube(). */
  cube: string;
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
    graph.push(...clipGraph(clip, `${input}:v`, `clip${index}`, o.fps, o.cube));
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
 * One clip as the composition draws it, as filter-graph chains from `[input]` to `[output]`:
 * source time (start + frame × speed) / fps, the latest source frame at or before each instant
 * (`round=up` puts a frame between two ticks on the later one), its `cover` part converted to RGB
 * and scaled to the box as the page does, opacity × the linear fades of `fadeMultiplier`, then
 * moved to its first frame on the timeline.
 *
 * Chromium converts a video frame to RGB with libyuv: each chroma sample stands for its 2x2 pixels
 * (no interpolation), then BT.709 limited-range coefficients in 6-bit fixed point, blue's clamped
 * to 2.0; the page then scales the picture to its box (swscale's area average matches it at 1:1 and
 * 2:1). The planes are relabelled (G=Y, B=U, R=V) so a 3D LUT applies that affine map exactly
 * (trilinear interpolation of an affine map is the map; output clamped).
 */
function clipGraph(clip: CompositeClip, input: string, output: string, fps: number, cube: string): string[] {
  const { sourceCrop: crop } = clip;
  const label = `c${clip.index}`;
  const timing = [`setpts=(PTS-STARTPTS)/${clip.playbackRate}`, `fps=${fps}:round=up`, `trim=end_frame=${clip.durationInFrames}`].join(',');
  const lut = `lut3d=file=${escapeFilterPath(cube)}:interp=trilinear`;
  const halved = crop.width === 2 * clip.width && crop.height === 2 * clip.height;
  const chromaAligned = [crop.x, crop.y, crop.width, crop.height].every((value) => value % 2 === 0);
  const chains: string[] = [];
  if (halved && chromaAligned) {
    // At 2:1 each chroma sample covers exactly one output pixel: averaging luma alone and
    // converting the half-size picture equals converting first and averaging (up to rounding and
    // the clamp of out-of-gamut colours), at a quarter of the cost.
    chains.push(
      `[${input}]${timing},format=yuv420p,crop=${crop.width}:${crop.height}:${crop.x}:${crop.y},extractplanes=y+u+v[${label}y][${label}u][${label}v]`,
      `[${label}y]scale=${clip.width}:${clip.height}:flags=area[${label}ys]`,
      `[${label}ys][${label}u][${label}v]mergeplanes=0x001020:gbrp,${lut}[${label}rgb]`,
    );
  } else {
    chains.push(
      // Cropped after the chroma is repeated, so an odd crop keeps each row with its chroma.
      `[${input}]${timing},format=yuv420p,scale=flags=neighbor,format=yuv444p,crop=${crop.width}:${crop.height}:${crop.x}:${crop.y},mergeplanes=0x000102:gbrp,${lut}${
        halved ? `,scale=${clip.width}:${clip.height}:flags=area` : ''
      }[${label}rgb]`,
    );
  }
  const look = ['format=rgba'];
  if (clip.fadeInFrames > 0) look.push(`fade=t=in:s=0:n=${clip.fadeInFrames}:alpha=1`);
  if (clip.fadeOutFrames > 0) look.push(`fade=t=out:s=${clip.durationInFrames - clip.fadeOutFrames}:n=${clip.fadeOutFrames}:alpha=1`);
  if (clip.opacity < 1) look.push(`colorchannelmixer=aa=${clip.opacity}`);
  look.push(`setpts=PTS+${clip.from}/(${fps}*TB)`);
  chains.push(`[${label}rgb]${look.join(',')}[${output}]`);
  return chains;
}

/**
 * The `.cube` LUT of libyuv's BT.709 limited-range YUV→RGB conversion (its `kYuvH709Constants`),
 * over planes relabelled r=V, g=Y, b=U. The map is affine, so the 2x2x2 corners define it; values
 * outside 0..1 are kept and clamped by lut3d on output, as libyuv clamps.
 */
export function libyuvBt709Cube(): string {
  const [UB, UG, VG, VR, YG, YB] = [128, 14, 34, 115, 18997, -1160];
  const rgb = (y: number, u: number, v: number) => {
    const y1 = (y * 257 * YG) / 65536;
    return [(y1 + YB + VR * (v - 128)) / 64, (y1 + YB - UG * (u - 128) - VG * (v - 128)) / 64, (y1 + YB + UB * (u - 128)) / 64];
  };
  const lines = ['LUT_3D_SIZE 2'];
  // .cube order: red varies fastest, then green, then blue.
  for (const u of [0, 255]) for (const y of [0, 255]) for (const v of [0, 255]) lines.push(rgb(y, u, v).map((value) => (value / 255).toFixed(6)).join(' '));
  return `${lines.join('\n')}\n`;
}

/** A path inside a filter-graph option value: `\`, `'` and `:` escaped for both levels. */
function escapeFilterPath(file: string): string {
  return file.replace(/[\\':]/g, (char) => `\\\\\\${char}`);
}

function seconds(value: number): string {
  return value.toFixed(6);
}

/** The value of `run` and the seconds it took, to two decimals. */
async function timed<T>(run: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const started = performance.now();
  const value = await run();
  return { value, seconds: Math.round((performance.now() - started) / 10) / 100 };
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
