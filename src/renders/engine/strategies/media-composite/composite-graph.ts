import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { BlendedFrames, CompositionProps, DrawnFrames } from '../../../../../composition/src/schema';
import { TO_BT709_TV_RANGE, writeFrameList, x264Args, type X264Settings } from '../../encode/x264';
import { DrawnArea, type Rect } from './drawn-area';
import { decodeRgbaPng, encodeRgbaPng, mixRgba, type RgbaPicture } from '../../codec/png';
import { mediaCompositePlan, sourceReduction, type CompositeClip, type CompositePlan } from './composite-plan';
import { encodeSound, muxAacAudio, type RemotionRenderer, type RenderArgs, type RenderReport } from '../../remotion-renderer';

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
 * Why ffmpeg would not convert a source's pictures to RGB as the page does (libyuvBt709); null
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
 * clips hidden (`hidden` composition prop) — where the upper layer changes only by the opacity of
 * whole elements, only its corners, the frames between mixed from them (mixedLayerList); ffmpeg
 * decodes, trims, scales and fades each clip,
 * lays the three over each other in RGB where the clips and the upper layer's drawn area reach
 * (compositeArgs) and encodes with the held path's x264 settings. The sound
 * is the renderer's `soundTrack`, muxed like every other H.264 render.
 */
export async function renderMediaComposite(
  renderer: Pick<RemotionRenderer, 'stills' | 'soundTrack'>,
  args: RenderArgs,
  plan: CompositePlan,
  clipFiles: string[],
  x264?: X264Settings,
): Promise<RenderReport> {
  const clock = stopwatch();
  const workDir = path.dirname(args.outputPath);
  const { fps, durationInFrames } = args.resolved;
  const aboveBlended = plan.above?.blended ?? null;
  const aboveToDraw = aboveBlended ? aboveBlended.frames : (plan.above?.frames.frames ?? []);
  const toDraw = plan.below.frames.frames.length + aboveToDraw.length;
  let drawn = 0;
  /** Draws `frames` of a layer into `<name>/`, each a file; `keep` also receives each picture. */
  const draw = async (name: string, props: Partial<CompositionProps>, frames: number[], imageFormat: 'jpeg' | 'png', keep?: (frame: number, image: Buffer) => Promise<void>) => {
    const dir = path.join(workDir, name);
    await mkdir(dir, { recursive: true });
    const fileOf = (frame: number) => path.join(dir, `${String(frame).padStart(6, '0')}.${imageFormat}`);
    await renderer.stills({
      props: { ...args.props, ...props },
      resolved: args.resolved,
      frames,
      imageFormat,
      scale: 1,
      onFrame: async (frame, image) => {
        await Promise.all([writeFile(fileOf(frame), image), keep?.(frame, image)]);
      },
      onProgress: () => args.onProgress('compositing', (0.6 * ++drawn) / toDraw),
      signal: args.signal,
    });
    return fileOf;
  };
  /** The concat list of a layer: each drawn frame's file, held as `frames` says. */
  const listOf = async (name: string, fileOf: (frame: number) => string, frames: DrawnFrames) => {
    const list = path.join(workDir, `${name}.txt`);
    await writeFrameList(list, frames.frames.map((frame, index) => ({ file: fileOf(frame), hold: frames.holds[index] })), fps);
    return list;
  };
  const { width, height } = args.resolved;
  const aboveArea = new DrawnArea(width, height);
  // A blended upper layer keeps its corners until the mixed frames are made from them.
  const corners = new Map<number, Buffer>();
  const keepAbove = async (frame: number, image: Buffer) => {
    if (aboveBlended) corners.set(frame, image);
    await aboveArea.add(image);
  };
  // Both layers at once, each in its own tab: the page waits on its own work between frames. Both
  // are settled before a failure is thrown, so nothing writes into the work folder afterwards.
  const layers = await Promise.allSettled([
    draw('below', { hidden: plan.below.hidden }, plan.below.frames.frames, 'jpeg').then((fileOf) => listOf('below', fileOf, plan.below.frames)),
    plan.above
      ? draw('above', { hidden: plan.above.hidden, ...(aboveBlended ? { fixedOpacity: aboveBlended.fixedOpacity } : {}) }, aboveToDraw, 'png', keepAbove).then((fileOf) =>
          aboveBlended ? mixedLayerList(path.join(workDir, 'above'), aboveBlended, corners, fileOf, fps) : listOf('above', fileOf, plan.above!.frames),
        )
      : null,
  ]);
  for (const layer of layers) if (layer.status === 'rejected') throw layer.reason;
  const [belowList, aboveList] = layers.map((layer) => (layer.status === 'fulfilled' ? layer.value : null));
  if (!belowList) throw new Error('the lower layer was not drawn');
  const drawSeconds = clock();

  // The sound is mixed while ffmpeg composites (each its own process): the two share the cores.
  const audioPath = path.join(workDir, 'audio.wav');
  const mixing = timed(async () => {
    if (!(args.resolved.hasAudio && args.plan.kind === 'video' && args.plan.audioCodec)) return null;
    const mixed = await renderer.soundTrack({ ...args, outputPath: audioPath });
    await encodeSound(audioPath, args.signal);
    return mixed;
  });
  args.onProgress('encoding', 0.7);
  const videoPath = path.join(workDir, 'composite.video.mp4');
  const compositing = timed(async () => {
    await execFileAsync('ffmpeg', compositeArgs({ plan, clipFiles, belowList, aboveList, aboveDrawn: aboveArea.bands(), width, height, fps, durationInFrames, outputPath: videoPath, x264 }), {
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
    // Upper-layer frames mixed from its drawn corners rather than drawn.
    frames_blended: aboveBlended?.blended ?? 0,
    // audio and encode overlap: each is its own duration.
    stage_seconds: { draw: drawSeconds, audio: sound.value.seconds, encode: encoded.value.seconds },
    ...sound.value.value,
  };
}

/** Mixed upper-layer frames being deflated and written at once (mixedLayerList). */
const MIXED_FRAMES_IN_FLIGHT = 3;

/**
 * The concat list of an upper layer drawn as corners (`blendedFrames`): a run of one drawn frame is
 * its file, a mixed run a PNG of the corners' premultiplied mix (mixRgba) written beside them. The
 * upper layer's drawn area needs only the corners: a mix has alpha only where one of them has.
 */
async function mixedLayerList(dir: string, blended: BlendedFrames, corners: Map<number, Buffer>, fileOf: (frame: number) => string, fps: number): Promise<string> {
  // Decoded corners (4 bytes a pixel) are kept only until the last mix that uses them.
  const pictures = new Map<number, RgbaPicture>();
  const lastUse = new Map<number, number>();
  blended.runs.forEach((run, index) => run.mix.length > 1 && run.mix.forEach(({ drawn }) => lastUse.set(drawn, index)));
  const pictureOf = async (position: number) => {
    let picture = pictures.get(position);
    if (!picture) {
      const decoded = await decodeRgbaPng(corners.get(blended.frames[position])!);
      if (!decoded) throw new Error(`the upper layer's frame ${blended.frames[position]} is not a PNG this worker reads`);
      picture = decoded;
      pictures.set(position, picture);
    }
    return picture;
  };
  const entries: { file: string; hold: number }[] = [];
  // Each mixed frame's PNG is deflated on libuv's threads while the next one is mixed here: up to
  // MIXED_FRAMES_IN_FLIGHT at once (the mixing and the deflating took turns on one core before).
  const writing = new Set<Promise<void>>();
  let failure: unknown = null;
  try {
    for (const [index, run] of blended.runs.entries()) {
      if (run.mix.length === 1) {
        entries.push({ file: fileOf(blended.frames[run.mix[0].drawn]), hold: run.hold });
        continue;
      }
      const terms = await Promise.all(run.mix.map(async ({ drawn, weight }) => ({ picture: await pictureOf(drawn), weight })));
      const file = path.join(dir, `mixed-${String(index).padStart(6, '0')}.png`);
      const mixed = mixRgba(terms);
      entries.push({ file, hold: run.hold });
      for (const { drawn } of run.mix) if (lastUse.get(drawn) === index) pictures.delete(drawn);
      const written: Promise<void> = encodeRgbaPng(mixed)
        .then((png) => writeFile(file, png))
        .catch((error: unknown) => void (failure ??= error))
        .finally(() => writing.delete(written));
      writing.add(written);
      if (writing.size >= MIXED_FRAMES_IN_FLIGHT) await Promise.race(writing);
      if (failure) throw failure;
    }
  } finally {
    // Settled before anything is thrown: nothing writes into the work folder afterwards.
    await Promise.all(writing);
  }
  if (failure) throw failure;
  const list = `${dir}.txt`;
  await writeFrameList(list, entries, fps);
  return list;
}

/** The ffmpeg arguments of the composite: inputs, filter graph, encoder. Exported for the benchmark. */
export function compositeArgs(o: {
  plan: CompositePlan;
  clipFiles: string[];
  belowList: string;
  aboveList: string | null;
  /** Where the upper layer has pixels in any of its frames (`DrawnArea.bands`); null: anywhere. */
  aboveDrawn: Rect[] | null;
  width: number;
  height: number;
  fps: number;
  durationInFrames: number;
  outputPath: string;
  /** Absent: DEFAULT_X264. */
  x264?: X264Settings;
}): string[] {
  const canvas = { width: o.width, height: o.height };
  const aboveDrawn = o.aboveList ? (o.aboveDrawn ?? [{ x: 0, y: 0, ...canvas }]) : [];
  const regions = compositeRegions(canvas, [...o.plan.clips.map((clip) => ({ x: clip.left, y: clip.top, width: clip.width, height: clip.height })), ...aboveDrawn]);
  const inputs = ['-f', 'concat', '-safe', '0', '-i', o.belowList];
  const graph: string[] = [];
  const clipBox = (clip: CompositeClip): Rect => ({ x: clip.left, y: clip.top, width: clip.width, height: clip.height });
  // Which layers each region takes: a layer outside a region's work area leaves it unchanged.
  const clipsOf = regions.map((region) => o.plan.clips.flatMap((clip, index) => (intersects(clipBox(clip), region.work) ? [index] : [])));
  // The upper layer's drawn parts inside each region's work area: only those are overlaid (its
  // pixels elsewhere are transparent and would leave the picture as it is).
  const aboveOf = regions.map((region) => aboveDrawn.flatMap((area) => (intersects(area, region.work) ? [intersection(area, region.work)] : [])));

  const whole = regions.length === 1 && regions[0].keep.width === o.width && regions[0].keep.height === o.height;
  // The lower layer as the browser path's capture has it (a 4:2:0 full-range BT.601 JPEG) is the
  // output wherever no other layer reaches; converted once per drawn frame, `fps` repeats it.
  graph.push(`[0:v]format=yuvj420p,split=${regions.length + (whole ? 0 : 1)}${regions.map((_, index) => `[below${index}]`).join('')}${whole ? '' : '[below]'}`);
  if (!whole) graph.push(`[below]setparams=colorspace=bt470bg:range=pc,${TO_BT709_TV_RANGE},format=yuv420p,fps=${o.fps}[base0]`);

  let inputIndex = 1;
  o.plan.clips.forEach((clip, index) => {
    const users = regions.flatMap((_, region) => (clipsOf[region].includes(index) ? [`clip${index}in${region}`] : []));
    if (users.length === 0) return; // entirely off the canvas
    // Enough source for the clip's frames plus a frame of slack; nothing decoded beyond it.
    const sourceSeconds = ((clip.durationInFrames + 2) * clip.playbackRate) / o.fps;
    inputs.push('-ss', seconds(clip.startSeconds), '-t', seconds(sourceSeconds), '-i', o.clipFiles[index]);
    graph.push(...clipGraph(clip, `${inputIndex++}:v`, `clip${index}`, o.fps));
    graph.push(`[clip${index}]${users.length > 1 ? `split=${users.length}` : 'null'}${users.map((label) => `[${label}]`).join('')}`);
  });
  const aboveUsers = regions.flatMap((_, region) => aboveOf[region].map((__, part) => `above${region}p${part}`));
  if (o.aboveList && aboveUsers.length > 0) {
    inputs.push('-f', 'concat', '-safe', '0', '-i', o.aboveList);
    // Converted once per drawn frame; each region crops its parts.
    graph.push(`[${inputIndex}:v]format=gbrap,fps=${o.fps},${aboveUsers.length > 1 ? `split=${aboveUsers.length}` : 'null'}${aboveUsers.map((label) => `[${label}]`).join('')}`);
  }

  regions.forEach(({ keep, work }, region) => {
    const crop = (rect: Rect) => `crop=${rect.width}:${rect.height}:${rect.x}:${rect.y}`;
    let layer = `region${region}`;
    graph.push(`[below${region}]${crop(work)},format=gbrp,fps=${o.fps}[${layer}]`);
    const over = (input: string, x: number, y: number) => {
      const next = `${layer}x`;
      graph.push(`[${layer}][${input}]overlay=x=${x}:y=${y}:eof_action=pass:format=gbrp[${next}]`);
      layer = next;
    };
    for (const index of clipsOf[region]) over(`clip${index}in${region}`, o.plan.clips[index].left - work.x, o.plan.clips[index].top - work.y);
    aboveOf[region].forEach((part, index) => {
      graph.push(`[above${region}p${index}]${crop(part)}[above${region}p${index}c]`);
      over(`above${region}p${index}c`, part.x - work.x, part.y - work.y);
    });
    // Through 4:2:0 full-range BT.601 first, chroma averaged over 2x2 pixels: the browser path's
    // JPEG capture does that to every frame before the same conversion, and chroma edges follow it.
    const converted = `[${layer}]scale=out_color_matrix=bt601:out_range=full:flags=area,format=yuvj420p,setparams=colorspace=bt470bg:range=pc,${TO_BT709_TV_RANGE},format=yuv420p`;
    if (whole) {
      graph.push(`${converted}[out]`);
      return;
    }
    graph.push(`${converted},${crop({ ...keep, x: keep.x - work.x, y: keep.y - work.y })}[region${region}done]`);
    graph.push(`[base${region}][region${region}done]overlay=x=${keep.x}:y=${keep.y}:eof_action=pass[${region === regions.length - 1 ? 'out' : `base${region + 1}`}]`);
  });
  return [
    '-v', 'error', '-y',
    ...inputs,
    '-filter_complex', graph.join(';'),
    '-map', '[out]',
    '-frames:v', String(o.durationInFrames),
    ...x264Args(o.x264),
    '-an', o.outputPath,
  ];
}

/** How far a changed pixel reaches after the 2x2 chroma average and zscale's chroma resampling (measured: 6). */
const REACH = 16;

/**
 * The parts of the canvas the composite recomputes, from the areas the clips and the upper layer
 * cover: each `keep` grown by REACH around its areas (pixels there change with them), computed on
 * `work`, REACH larger again (so the edges of the crop do not reach `keep`); everything else is the
 * lower layer as captured. Even coordinates keep the 4:2:0 chroma samples whole. Overlapping
 * regions are merged when that costs no more pixels; when they would cover most of the canvas, one
 * region is the whole canvas.
 */
export function compositeRegions(canvas: { width: number; height: number }, areas: Rect[]): { keep: Rect; work: Rect }[] {
  const grow = (rect: Rect, by: number): Rect => {
    const x = Math.max(0, Math.floor((rect.x - by) / 2) * 2);
    const y = Math.max(0, Math.floor((rect.y - by) / 2) * 2);
    const right = Math.min(canvas.width, Math.ceil((rect.x + rect.width + by) / 2) * 2);
    const bottom = Math.min(canvas.height, Math.ceil((rect.y + rect.height + by) / 2) * 2);
    return { x, y, width: right - x, height: bottom - y };
  };
  const area = (rect: Rect) => rect.width * rect.height;
  const whole = { x: 0, y: 0, width: canvas.width, height: canvas.height };
  const keeps = areas
    .filter((rect) => intersects(rect, whole))
    .map((rect) => grow(intersection(rect, whole), REACH));
  for (let merged = true; merged; ) {
    merged = false;
    for (let a = 0; a < keeps.length && !merged; a++) {
      for (let b = a + 1; b < keeps.length && !merged; b++) {
        const box = bounding(keeps[a], keeps[b]);
        if (intersects(keeps[a], keeps[b]) && area(box) <= area(keeps[a]) + area(keeps[b])) {
          keeps.splice(b, 1);
          keeps[a] = box;
          merged = true;
        }
      }
    }
  }
  const works = keeps.map((keep) => grow(keep, REACH));
  if (keeps.length === 0 || works.reduce((sum, work) => sum + area(work), 0) >= 0.75 * area(whole)) return [{ keep: whole, work: whole }];
  return keeps.map((keep, index) => ({ keep, work: works[index] }));
}

function intersects(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

function intersection(a: Rect, b: Rect): Rect {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  return { x, y, width: Math.min(a.x + a.width, b.x + b.width) - x, height: Math.min(a.y + a.height, b.y + b.height) - y };
}

function bounding(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
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
 * to 2.0 (libyuvBt709); the page then samples the picture bilinearly at each box pixel's centre
 * (sourceReduction: swscale's area average at 2:1, its nearest neighbour at odd whole reductions).
 */
function clipGraph(clip: CompositeClip, input: string, output: string, fps: number): string[] {
  const { sourceCrop: crop } = clip;
  const label = `c${clip.index}`;
  const timing = [`setpts=(PTS-STARTPTS)/${clip.playbackRate}`, `fps=${fps}:round=up`, `trim=end_frame=${clip.durationInFrames}`].join(',');
  // A `bilinear` clip's crop is its whole source (the plan takes no other).
  const reduction = sourceReduction(crop, clip, crop);
  const halved = reduction === 'halve';
  // Reduced after the conversion (and the grade): to `full`, then to the box.
  const reduced = reduction === 'halve' || reduction === 'pick' || reduction === 'bilinear';
  const chromaAligned = [crop.x, crop.y, crop.width, crop.height].every((value) => value % 2 === 0);
  const chains: string[] = [];
  // The page grades the source's pixels before scaling them: a graded clip converts, grades, then halves.
  if (halved && chromaAligned && !clip.grade) {
    // At 2:1 each chroma sample covers exactly one output pixel: averaging luma alone and
    // converting the half-size picture equals converting first and averaging (up to rounding and
    // the clamp of out-of-gamut colours), at a quarter of the cost.
    chains.push(
      `[${input}]${timing},format=yuv420p,crop=${crop.width}:${crop.height}:${crop.x}:${crop.y},extractplanes=y+u+v[${label}y][${label}u][${label}v]`,
      `[${label}y]scale=${clip.width}:${clip.height}:flags=area[${label}ys]`,
      ...libyuvBt709Graph(`${label}ys`, `${label}u`, `${label}v`, `${label}rgb`, label),
    );
  } else {
    chains.push(
      // Cropped after the chroma is repeated, so an odd crop keeps each row with its chroma.
      `[${input}]${timing},format=yuv420p,scale=flags=neighbor,format=yuv444p,crop=${crop.width}:${crop.height}:${crop.x}:${crop.y},extractplanes=y+u+v[${label}y][${label}u][${label}v]`,
      ...libyuvBt709Graph(`${label}y`, `${label}u`, `${label}v`, clip.grade ? `${label}ungraded` : reduced ? `${label}full` : `${label}rgb`, label),
    );
    if (clip.grade) chains.push(`[${label}ungraded]${gradeFilters(clip.grade).join(',')}[${reduced ? `${label}full` : `${label}rgb`}]`);
    if (reduced) {
      const toBox = reduction === 'bilinear' ? bilinearOntoBox(crop, clip) : `scale=${clip.width}:${clip.height}:flags=${halved ? 'area' : 'neighbor'}`;
      chains.push(`[${label}full]${toBox}[${label}rgb]`);
    }
  }
  // Faded in packed RGBA (colorchannelmixer rounds alpha differently in planar RGB), then planar
  // with alpha, what the overlays take.
  const look: string[] = [];
  if (clip.fadeInFrames > 0) look.push(`fade=t=in:s=0:n=${clip.fadeInFrames}:alpha=1`);
  if (clip.fadeOutFrames > 0) look.push(`fade=t=out:s=${clip.durationInFrames - clip.fadeOutFrames}:n=${clip.fadeOutFrames}:alpha=1`);
  if (clip.opacity < 1) look.push(`colorchannelmixer=aa=${clip.opacity}`);
  if (look.length > 0) look.unshift('format=rgba');
  look.push('format=gbrap', `setpts=PTS+${clip.from}/(${fps}*TB)`);
  chains.push(`[${label}rgb]${look.join(',')}[${output}]`);
  return chains;
}

/**
 * The whole source stretched onto the box as the page samples it: bilinearly, box pixel i at
 * source x = (i + ½)·W/w − ½ (and the same down). ffmpeg's perspective filter samples bilinearly
 * at source x = (i − x0)·W/(x1 − x0) for the output pixel i, so the source's corners go to x0 =
 * −(1 − w/W)/2 and x0 + w; the frame keeps the source's size, the box is its top-left corner.
 * Measured against that formula on planar RGB: every sample within 0.9 of a level.
 */
export function bilinearOntoBox(source: { width: number; height: number }, box: { width: number; height: number }): string {
  const left = -(1 - box.width / source.width) / 2;
  const top = -(1 - box.height / source.height) / 2;
  const [right, bottom] = [left + box.width, top + box.height];
  const corners = `x0=${left}:y0=${top}:x1=${right}:y1=${top}:x2=${left}:y2=${bottom}:x3=${right}:y3=${bottom}`;
  return `perspective=${corners}:sense=destination:interpolation=linear,crop=${box.width}:${box.height}:0:0`;
}

/**
 * The page's grade pass (`applyFast` of the composition's grade effect) on planar RGB: each channel
 * through its curve (a 256-entry table, as a binary search of `if`s: lutrgb tabulates the
 * expression once per value, so the table is exact), the saturation as a channel mix toward
 * Rec. 709 luma (clamped, as the page clamps before the overlay), the overlay mixed in by its alpha.
 * The page rounds once at the end; the mix and the overlay round each (within two levels).
 */
export function gradeFilters(grade: NonNullable<CompositeClip['grade']>): string[] {
  const table = (values: number[], low: number, high: number): string => {
    if (values.slice(low, high + 1).every((value) => value === values[low])) return String(values[low]);
    const middle = (low + high + 1) >> 1;
    return `if(lt(val,${middle}),${table(values, low, middle - 1)},${table(values, middle, high)})`;
  };
  const [red, green, blue] = grade.curves.map((curve) => `'${table(curve, 0, 255)}'`);
  const filters = [`lutrgb=r=${red}:g=${green}:b=${blue}`];
  const k = grade.saturation;
  if (k !== 1) {
    const [lr, lg, lb] = [0.2126, 0.7152, 0.0722].map((weight) => weight * (1 - k));
    const row = (own: 'r' | 'g' | 'b') =>
      (['r', 'g', 'b'] as const).map((channel, index) => `${own}${channel}=${([lr, lg, lb][index] + (channel === own ? k : 0)).toFixed(6)}`).join(':');
    filters.push(`colorchannelmixer=${row('r')}:${row('g')}:${row('b')}`);
  }
  if (grade.overlay && grade.overlay[3] > 0) {
    const [r, g, b, a] = grade.overlay;
    const mix = (target: number) => `'clip(round(val+(${(target * 255).toFixed(6)}-val)*${a.toFixed(6)}),0,255)'`;
    filters.push(`lutrgb=r=${mix(r)}:g=${mix(g)}:b=${mix(b)}`);
  }
  return filters;
}

/** libyuv's BT.709 limited-range constants (`kYuvH709Constants`): 6-bit fixed point, blue's clamped to 2.0. */
const LIBYUV_BT709 = { UB: 128, UG: 14, VG: 34, VR: 115, YG: 18997, YB: -1160 };

/** RGB of one pixel as libyuv converts it (its `YuvPixel`, integer arithmetic, shifts rounding down). */
export function libyuvBt709(y: number, u: number, v: number): [number, number, number] {
  const { UB, UG, VG, VR, YG, YB } = LIBYUV_BT709;
  const y1 = Math.floor((y * 257 * YG) / 65536);
  const clamp = (value: number) => Math.min(255, Math.max(0, Math.floor(value / 64)));
  return [clamp(y1 + YB + VR * (v - 128)), clamp(y1 + YB - UG * (u - 128) - VG * (v - 128)), clamp(y1 + YB + UB * (u - 128))];
}

/**
 * libyuvBt709 on three planes of the same size (`[y]`, `[u]`, `[v]`, gray) to planar RGB, exactly:
 * `lut2` tabulates a function of two 8-bit planes, so red (Y, V) and blue (Y, U) are one table
 * each, and green goes through U and V's exact 14-bit contribution first.
 */
export function libyuvBt709Graph(y: string, u: string, v: string, output: string, label: string): string[] {
  const { UB, UG, VG, VR, YG, YB } = LIBYUV_BT709;
  const y1 = `floor(x*${257 * YG}/65536)`;
  const rgb = (sum: string) => `'clip(floor((${sum})/64),0,255)'`;
  return [
    `[${y}]split=3[${label}y1][${label}y2][${label}y3]`,
    `[${u}]split=2[${label}u1][${label}u2]`,
    `[${v}]split=2[${label}v1][${label}v2]`,
    `[${label}y1][${label}v1]lut2=c0=${rgb(`${y1}${YB}+${VR}*(y-128)`)}[${label}r]`,
    `[${label}y2][${label}u1]lut2=c0=${rgb(`${y1}${YB}+${UB}*(y-128)`)}[${label}b]`,
    `[${label}u2][${label}v2]lut2=c0=${UG}*x+${VG}*y:d=14[${label}uv]`,
    `[${label}y3][${label}uv]lut2=c0=${rgb(`${y1}${YB}+${128 * (UG + VG)}-y`)}:d=8[${label}g]`,
    `[${label}g][${label}b][${label}r]mergeplanes=0x001020:gbrp[${output}]`,
  ];
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
