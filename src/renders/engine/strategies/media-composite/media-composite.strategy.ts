import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { startFfmpeg, type MediaProcess } from '../../../../infra/media/media-runner';
import type { BlendedFrames, CompositionProps, DrawnFrames } from '../../../../../composition/src/schema';
import { writeFrameList } from '../../encode/frame-list';
import { PngDecoder, PngWriter } from '../../encode/png-frames';
import type { X264Settings } from '../../encode/x264';
import type { Measured } from '../../render-report';
import { muxAacAudio } from '../../sound/sound-maker';
import type { PictureStrategy } from '../strategy';
import { compositeArgs } from './composite-graph';
import { DrawnArea } from './drawn-area';
import { mixRgba, type RgbaPicture } from './mix-rgba';

/**
 * The media-composite render path: the browser draws the layers below the video clips (JPEG, as
 * the other paths capture) and above them (PNG with alpha), each distinct frame once and with the
 * clips hidden (`hidden` composition prop) — where the upper layer changes only by the opacity of
 * whole elements, only its corners, the frames between mixed from them (mixedLayerList); ffmpeg
 * decodes, trims, scales and fades each clip,
 * lays the three over each other in RGB where the clips and the upper layer's drawn area reach
 * (compositeArgs) and encodes with the held path's x264 settings. The lower layer's frames are
 * piped into that ffmpeg as they are drawn, from when the upper layer is drawn (its drawn area shapes
 * the graph), so the drawing and the encoding overlap. The sound
 * is the plan's (SoundMaker), made while the layers are drawn and muxed like every other H.264 render.
 */
export const mediaCompositeStrategy: PictureStrategy<'media_composite'> = {
  name: 'media_composite',
  async run({ args, plan: renderPlan, browser, sound: sounds }, pictures): Promise<Measured> {
    const { composite: plan, clipFiles } = pictures;
    const x264 = renderPlan.encoder.x264 as X264Settings;
    const clock = stopwatch();
    const workDir = path.dirname(args.outputPath);
    const { fps, durationInFrames } = args.resolved;
    const aboveBlended = plan.above?.blended ?? null;
    const aboveToDraw = aboveBlended ? aboveBlended.frames : (plan.above?.frames.frames ?? []);
    const toDraw = plan.below.frames.frames.length + aboveToDraw.length;
    let drawn = 0;
    /** Draws `frames` of a layer into `<name>/`, each a file; `keep` receives each picture once its file is written. */
    const draw = async (name: string, props: Partial<CompositionProps>, frames: number[], imageFormat: 'jpeg' | 'png', signal: AbortSignal, keep: (frame: number, image: Buffer) => Promise<void>) => {
      const dir = path.join(workDir, name);
      await mkdir(dir, { recursive: true });
      const fileOf = (frame: number) => frameFile(dir, frame, imageFormat);
      await browser.stills({
        props: { ...args.props, ...props },
        resolved: args.resolved,
        frames,
        imageFormat,
        scale: 1,
        onFrame: async (frame, image) => {
          await writeFile(fileOf(frame), image);
          await keep(frame, image);
        },
        onProgress: () => args.onProgress('compositing', (0.9 * ++drawn) / toDraw),
        signal,
      });
      return fileOf;
    };
    /** The concat list of a layer: each drawn frame's file, held as `frames` says. */
    const listOf = async (name: string, fileOf: (frame: number) => string, frames: DrawnFrames) => {
      const list = path.join(workDir, `${name}.txt`);
      await writeFrameList(list, frames.frames.map((frame, index) => ({ file: fileOf(frame), hold: frames.holds[index] })), fps);
      return list;
    };
    // The sound needs nothing the browser draws: it is mixed while the layers are drawn (the page
    // waits on its own work between frames), off the composite's path.
    const audioPath = path.join(workDir, 'audio.wav');
    const mixing = timed(() => sounds.make(args, renderPlan.sound, audioPath));
    const { width, height } = args.resolved;
    const aboveArea = new DrawnArea(width, height, args.signal);
    // A blended upper layer keeps its corners until the mixed frames are made from them.
    const corners = new Map<number, Buffer>();
    const keepAbove = async (frame: number, image: Buffer) => {
      if (aboveBlended) corners.set(frame, image);
      await aboveArea.add(image);
    };
    // Both layers at once, each in its own tab: the page waits on its own work between frames. The
    // lower layer's frames go to the composite as they are drawn, from when the upper layer is drawn
    // (its drawn area shapes the graph), so drawing and encoding overlap.
    const control = new AbortController();
    const stopDrawing = () => control.abort(args.signal.reason);
    args.signal.addEventListener('abort', stopDrawing, { once: true });
    let drawError: unknown = null;
    let compositeError: unknown = null;
    const belowFrames = new ArrivingFrames(plan.below.frames.frames);
    const belowDrawing = draw('below', { hidden: plan.below.hidden }, plan.below.frames.frames, 'jpeg', control.signal, async (frame) => belowFrames.arrived(frame));
    belowDrawing.catch((error: unknown) => {
      // A failure of its own (not the stop below) is the cause, and stops the upper layer too.
      if (!control.signal.aborted) {
        drawError = error;
        stopDrawing();
      }
      belowFrames.fail(error);
    });
    const aboveDrawing = plan.above
      ? draw('above', { hidden: plan.above.hidden, ...(aboveBlended ? { fixedOpacity: aboveBlended.fixedOpacity } : {}) }, aboveToDraw, 'png', control.signal, keepAbove).then((fileOf) =>
          aboveBlended ? mixedLayerList(path.join(workDir, 'above'), aboveBlended, corners, fileOf, { width, height, fps, signal: args.signal }) : listOf('above', fileOf, plan.above!.frames),
        )
      : Promise.resolve(null);
    const above = await aboveDrawing.then(
      async (list) => ({ list, problem: await aboveArea.finish().then(() => null, (error: unknown) => error) }),
      async (error: unknown) => ({ list: null, problem: await aboveArea.finish().then(() => error, () => error) }),
    );
    const videoPath = path.join(workDir, 'composite.video.mp4');
    const encodeClock = stopwatch();
    const composite = above.problem
      ? null
      : startFfmpeg(compositeArgs({ plan, clipFiles, below: { piped: plan.below.frames }, aboveList: above.list, aboveDrawn: aboveArea.bands(), width, height, fps, durationInFrames, outputPath: videoPath, x264 }), {
          signal: args.signal,
          timeoutMs: 30 * 60_000,
        });
    /** The composite failed on its own: the drawing stops, the feeding too. */
    const compositeFailed = (error: unknown) => {
      if (error === drawError) return;
      compositeError ??= error;
      composite?.kill(error instanceof Error ? error : new Error(String(error)));
      belowFrames.fail(error);
      stopDrawing();
    };
    composite?.done.catch(compositeFailed);
    const feeding = composite ? feedBelow(composite, plan.below.frames.frames, belowFrames, (frame) => frameFile(path.join(workDir, 'below'), frame, 'jpeg')) : Promise.resolve();
    feeding.catch(compositeFailed);
    if (!composite) stopDrawing();
    await belowDrawing.catch(() => undefined);
    args.signal.removeEventListener('abort', stopDrawing);
    const drawSeconds = clock();
    args.onProgress('encoding', 0.9);
    // Everything settled before anything is thrown, so nothing writes into the work folder afterwards.
    const encoded = await Promise.allSettled([feeding, composite?.done]);
    const encodeSeconds = encodeClock();
    const failure = args.signal.aborted
      ? args.signal.reason
      : (drawError ?? above.problem ?? compositeError ?? encoded.find((result): result is PromiseRejectedResult => result.status === 'rejected')?.reason ?? null);
    if (failure) {
      await mixing.catch(() => undefined);
      throw failure;
    }
    const sound = await mixing;
    await muxAacAudio(videoPath, audioPath, args.outputPath, args.signal);
    args.onProgress('encoding', 1);
    return {
      // draw, audio and encode overlap: each is its own duration (encode from the composite's start).
      stage_seconds: { draw: drawSeconds, audio: sound.seconds, encode: encodeSeconds },
      ...(sound.value ?? {}),
    };
  },
};

/**
 * The concat list of an upper layer drawn as corners (`blendedFrames`): a run of one drawn frame is
 * its file, a mixed run a PNG of the corners' premultiplied mix (mixRgba) written beside them. The
 * upper layer's drawn area needs only the corners: a mix has alpha only where one of them has.
 * ffmpeg decodes the corners and writes the mixed PNGs, each one process, while the mixing runs here.
 */
async function mixedLayerList(
  dir: string,
  blended: BlendedFrames,
  corners: Map<number, Buffer>,
  fileOf: (frame: number) => string,
  video: { width: number; height: number; fps: number; signal: AbortSignal },
): Promise<string> {
  const { width, height, fps, signal } = video;
  // Decoded corners (4 bytes a pixel) are kept only until the last mix that uses them.
  const pictures = new Map<number, RgbaPicture>();
  const lastUse = new Map<number, number>();
  blended.runs.forEach((run, index) => run.mix.length > 1 && run.mix.forEach(({ drawn }) => lastUse.set(drawn, index)));
  // The corners in the order the mixes first use them, fed to ffmpeg ahead of the mixing; each
  // comes back in that order (pictureOf takes them as they are needed).
  const order = [...new Set(blended.runs.flatMap((run) => (run.mix.length > 1 ? run.mix.map(({ drawn }) => drawn) : [])))];
  const decoder = new PngDecoder(width, height, 'rgba', signal);
  const feeding = (async () => {
    for (const position of order) {
      await decoder.feed(corners.get(blended.frames[position])!).catch((error: unknown) => {
        throw new Error(`the upper layer's frame ${blended.frames[position]} is not a PNG this worker reads: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
    decoder.end();
  })();
  feeding.catch(() => undefined);
  const writer = new PngWriter(width, height, path.join(dir, 'mixed-%06d.png'), signal);
  let taken = 0;
  const pictureOf = async (position: number) => {
    let picture = pictures.get(position);
    while (!picture) {
      if (taken >= order.length) throw new Error(`the upper layer's corner ${position} was asked for after its last use`);
      const at = order[taken++];
      const pixels = await decoder.next().catch(async (error: unknown) => {
        await feeding;
        throw new Error(`the upper layer's frame ${blended.frames[at]} could not be decoded: ${error instanceof Error ? error.message : String(error)}`);
      });
      pictures.set(at, { width, height, pixels });
      picture = pictures.get(position);
    }
    return picture;
  };
  const entries: { file: string; hold: number }[] = [];
  let failure: unknown = null;
  try {
    for (const [index, run] of blended.runs.entries()) {
      if (run.mix.length === 1) {
        entries.push({ file: fileOf(blended.frames[run.mix[0].drawn]), hold: run.hold });
        continue;
      }
      // One after the other: the corners come back from the decoder in order.
      const terms: { picture: RgbaPicture; weight: number }[] = [];
      for (const { drawn, weight } of run.mix) terms.push({ picture: await pictureOf(drawn), weight });
      const mixed = mixRgba(terms);
      for (const { drawn } of run.mix) if (lastUse.get(drawn) === index) pictures.delete(drawn);
      entries.push({ file: await writer.write(mixed.pixels), hold: run.hold });
    }
  } catch (error) {
    failure = error;
    decoder.kill(error instanceof Error ? error : new Error(String(error)));
  }
  // All finished before anything is thrown (the first failure is the cause): nothing writes into the work folder afterwards.
  const closed = await Promise.allSettled([feeding, decoder.close(), writer.close()]);
  for (const result of closed) if (result.status === 'rejected') failure ??= result.reason;
  if (failure) throw failure;
  const list = `${dir}.txt`;
  await writeFrameList(list, entries, fps);
  return list;
}

/** A drawn frame's file in a layer's folder. */
function frameFile(dir: string, frame: number, imageFormat: 'jpeg' | 'png'): string {
  return path.join(dir, `${String(frame).padStart(6, '0')}.${imageFormat}`);
}

/** A layer's frames as their files are written, awaited in order whatever order the page hands them over in. */
class ArrivingFrames {
  private readonly settle = new Map<number, { resolve: () => void; reject: (error: unknown) => void; arrived: Promise<void> }>();

  constructor(frames: number[]) {
    for (const frame of frames) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const arrived = new Promise<void>((yes, no) => ([resolve, reject] = [yes, no]));
      arrived.catch(() => undefined);
      this.settle.set(frame, { resolve, reject, arrived });
    }
  }

  arrived(frame: number): void {
    this.settle.get(frame)?.resolve();
  }

  /** Every frame not yet written fails with `error`. */
  fail(error: unknown): void {
    for (const { reject } of this.settle.values()) reject(error);
  }

  wait(frame: number): Promise<void> {
    return this.settle.get(frame)!.arrived;
  }
}

/**
 * Writes the lower layer's frames to the composite's stdin in order as they are drawn, each once,
 * then the last again (the composite's timestamps hold it to the end: pipedBelowTimestamps).
 */
async function feedBelow(composite: MediaProcess, frames: number[], arriving: ArrivingFrames, fileOf: (frame: number) => string): Promise<void> {
  for (const frame of frames) {
    await arriving.wait(frame);
    await composite.write(await readFile(fileOf(frame)));
  }
  await composite.write(await readFile(fileOf(frames[frames.length - 1])));
  composite.end();
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
