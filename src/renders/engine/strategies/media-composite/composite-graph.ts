import type { Rect } from './drawn-area';
import { TO_BT709_TV_RANGE, x264Args, type X264Settings } from '../../encode/x264';
import type { CompositeClip, CompositePlan } from '../../planner/composite-plan';
import type { DrawnFrames } from '../../../../../composition/src/schema';

/**
 * Where the lower layer's JPEGs come from: a concat list of files, or ffmpeg's stdin as they are
 * drawn (each drawn frame once, in order, then the last again: `pipedBelowTimestamps`).
 */
export type BelowInput = { list: string } | { piped: DrawnFrames };

/** The ffmpeg arguments of the composite: inputs, filter graph, encoder. Exported for the benchmark. */
export function compositeArgs(o: {
  plan: CompositePlan;
  clipFiles: string[];
  below: BelowInput;
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
  const inputs = 'list' in o.below ? ['-f', 'concat', '-safe', '0', '-i', o.below.list] : ['-f', 'image2pipe', '-framerate', String(o.fps), '-c:v', 'mjpeg', '-i', 'pipe:0'];
  // Piped frames arrive one a tick: each is moved to the frame it starts at, as the list's durations place it.
  const belowTimes = 'piped' in o.below ? `setpts='(${pipedBelowTimestamps(o.below.piped, o.durationInFrames)})/(${o.fps}*TB)',` : '';
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
  graph.push(`[0:v]${belowTimes}format=yuvj420p,split=${regions.length + (whole ? 0 : 1)}${regions.map((_, index) => `[below${index}]`).join('')}${whole ? '' : '[below]'}`);
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

/**
 * The frame each piped picture starts at, as an expression of its index N: the drawn frames in
 * order, then the last one again at the end (as the concat list repeats its last file, so the
 * last picture is held to the end). Piecewise N plus an offset, the offset changing after each
 * held frame: one term a hold, not one a frame.
 */
export function pipedBelowTimestamps(drawn: DrawnFrames, durationInFrames: number): string {
  const starts = [...drawn.frames, durationInFrames];
  let expression = `N+${starts[0]}`;
  let offset = starts[0];
  starts.forEach((start, index) => {
    if (start - index === offset) return;
    const change = start - index - offset;
    expression += `${change >= 0 ? '+' : '-'}${Math.abs(change)}*gte(N,${index})`;
    offset = start - index;
  });
  return expression;
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
  const { reduction } = clip;
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
      const toBox = reduction === 'bilinear' ? bilinearOntoBox(crop, clip.source, clip.placement, clip) : `scale=${clip.width}:${clip.height}:flags=${halved ? 'area' : 'neighbor'}`;
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
 * The source placed on the box as the page samples it: bilinearly, box pixel i at source
 * x = (i + ½ − x)·W/w − ½ for the placement (x, w) of the source's W pixels (and the same down),
 * read from `crop` (the rows and columns those samples fall between). ffmpeg's perspective filter
 * samples bilinearly at crop x = (i − x0)·cw/(x1 − x0) for the output pixel i, so the crop's
 * corners go to x0 = x − ½ + (½ + cx)·w/W and x0 + cw·w/W; its frame keeps the crop's size (at
 * least the box's), the box is its top-left corner. Measured against that formula on planar RGB:
 * every sample within 0.9 of a level.
 */
export function bilinearOntoBox(
  crop: { x: number; y: number; width: number; height: number },
  source: { width: number; height: number },
  placement: { x: number; y: number; width: number; height: number },
  box: { width: number; height: number },
): string {
  const [scaleX, scaleY] = [placement.width / source.width, placement.height / source.height];
  const left = placement.x - 0.5 + (0.5 + crop.x) * scaleX;
  const top = placement.y - 0.5 + (0.5 + crop.y) * scaleY;
  const [right, bottom] = [left + crop.width * scaleX, top + crop.height * scaleY];
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
 * each. Green subtracts t = UG·u + VG·v, which needs 14 bits; a table over (Y, t) would be 4 M
 * entries built at every graph start, so t goes as its high and low 6-bit parts (t = 64·th + tl):
 * floor((s − t)/64) = floor((s − tl)/64) − th exactly, four small tables instead.
 */
export function libyuvBt709Graph(y: string, u: string, v: string, output: string, label: string): string[] {
  const { UB, UG, VG, VR, YG, YB } = LIBYUV_BT709;
  const y1 = `floor(x*${257 * YG}/65536)`;
  const rgb = (sum: string) => `'clip(floor((${sum})/64),0,255)'`;
  return [
    `[${y}]split=3[${label}y1][${label}y2][${label}y3]`,
    `[${u}]split=3[${label}u1][${label}u2][${label}u3]`,
    `[${v}]split=3[${label}v1][${label}v2][${label}v3]`,
    `[${label}y1][${label}v1]lut2=c0=${rgb(`${y1}${YB}+${VR}*(y-128)`)}[${label}r]`,
    `[${label}y2][${label}u1]lut2=c0=${rgb(`${y1}${YB}+${UB}*(y-128)`)}[${label}b]`,
    `[${label}u2][${label}v2]lut2=c0='floor((${UG}*x+${VG}*y)/64)':d=8[${label}th]`,
    `[${label}u3][${label}v3]lut2=c0='mod(${UG}*x+${VG}*y,64)':d=8[${label}tl]`,
    // s − tl stays within 9 bits (76..374 for every Y), so its table is 256 × 256 → 512 values.
    `[${label}y3][${label}tl]lut2=c0='floor((${y1}${YB}+${128 * (UG + VG)}-y)/64)':d=9[${label}p]`,
    `[${label}p][${label}th]lut2=c0='clip(x-y,0,255)':d=8[${label}g]`,
    `[${label}g][${label}b][${label}r]mergeplanes=0x001020:gbrp[${output}]`,
  ];
}

function seconds(value: number): string {
  return value.toFixed(6);
}
