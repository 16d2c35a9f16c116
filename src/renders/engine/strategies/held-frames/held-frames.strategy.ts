import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { BlendedFrames, CompositionProps, DrawnFrames } from '../../../../../composition/src/schema';
import { compositionOf } from '../../browser/browser-host';
import type { X264Settings } from '../../encode/x264';
import type { Measured } from '../../render-report';
import { muxAacAudio } from '../../sound/sound-maker';
import type { PictureStrategy, StrategyContext } from '../strategy';
import { BlendedFramesEncoder, type BlendedEncoding } from './blended-frames-encoder';
import { encodeHeldFrames } from './held-encoding';

/**
 * Each distinct frame drawn once (`drawnFrames`, JPEG as the browser strategy captures, with
 * BeginFrame control where the plan says so), then
 * ffmpeg encodes them with their holds (held-encoding.ts: repeats as skip pictures).
 */
export const heldFramesStrategy: PictureStrategy<'held_frames'> = {
  name: 'held_frames',
  run: (context, pictures) => drawHeld(context, { kind: 'held', drawn: pictures.drawn }, pictures.tabs),
};

/**
 * The corner frames drawn with fixed opacities and encoded while they are drawn
 * (BlendedFramesEncoder): fades between two pictures left to the decoder, other mixes made in Node.
 */
export const blendedFramesStrategy: PictureStrategy<'blended_frames'> = {
  name: 'blended_frames',
  run: (context, pictures) => drawHeld(context, { kind: 'blended', blended: pictures.blended }, pictures.tabs),
};

type Held = { kind: 'held'; drawn: DrawnFrames } | { kind: 'blended'; blended: BlendedFrames };

/**
 * Both held strategies: the page draws the plan's frames; the sound (the plan's) is mixed while it
 * draws when the worker mixes it (ffmpeg, one core), else Remotion's audio pass follows the drawing.
 */
async function drawHeld({ args, plan, browser: host, sound, cancelSignal }: StrategyContext, held: Held, tabs: number): Promise<Measured> {
  const clock = stopwatch();
  const props: CompositionProps = held.kind === 'blended' ? { ...args.props, fixedOpacity: held.blended.fixedOpacity } : args.props;
  const inputProps = props as unknown as Record<string, unknown>;
  const workDir = path.dirname(args.outputPath);
  const videoPath = withSuffix(args.outputPath, '.video');
  const toDraw = held.kind === 'blended' ? held.blended.frames : held.drawn.frames;
  const x264 = plan.encoder.x264 as X264Settings;
  const skipPictures = plan.encoder.skipPictures === true;
  // Blended: drawing is the short part (a few corners), encoding every output frame the long one.
  const drawShare = held.kind === 'blended' ? 0.2 : 0.7;
  let drawing = true;
  const blending = held.kind === 'blended'
    ? new BlendedFramesEncoder(
        held.blended,
        { width: args.resolved.width, height: args.resolved.height, fps: args.resolved.fps, outputPath: videoPath, x264, skipPictures },
        args.signal,
        (encoded) => {
          if (!drawing) args.onProgress('encoding', drawShare + ((0.98 - drawShare) * encoded) / held.blended.durationInFrames);
        },
      )
    : null;
  const audioPath = path.join(workDir, 'audio.wav');
  const makeSound = async (now: boolean) => {
    const started = performance.now();
    const made = now ? await sound.make(args, plan.sound, audioPath) : null;
    return { made, seconds: Math.round((performance.now() - started) / 10) / 100 };
  };
  // The worker's mix runs beside the drawing; Remotion's audio pass needs the browser, so it waits.
  const earlySound = makeSound(plan.sound.via === 'ffmpeg');
  // Settled before any failure is thrown: nothing writes into the work folder afterwards.
  earlySound.catch(() => undefined);
  const framesDir = path.join(workDir, 'frames');
  if (!blending) await mkdir(framesDir, { recursive: true });
  const fileOf = (frame: number) => path.join(framesDir, `${String(frame).padStart(6, '0')}.jpeg`);
  const writes: Promise<void>[] = [];
  try {
    const onPicture = (buffer: Buffer, frame: number) => {
      if (blending) blending.addDrawn(frame, buffer);
      else writes.push(writeFile(fileOf(frame), buffer));
    };
    const onDrawn = (rendered: number) => args.onProgress('compositing', (drawShare * rendered) / toDraw.length);
    if (plan.encoder.frameCapture === 'begin_frame') {
      await host.captureFrames({ resolved: args.resolved, props: inputProps, format: 'jpeg', jpegQuality: plan.encoder.jpegQuality, signal: args.signal }, toDraw, async (frame, picture, index) => {
        onPicture(picture, frame);
        onDrawn(index + 1);
      });
    } else {
      const { renderFrames } = await import('@remotion/renderer');
      const [serveUrl, browser] = await Promise.all([host.serveUrl(), host.openBrowser()]);
      await renderFrames({
        composition: compositionOf(args.resolved, inputProps),
        serveUrl,
        inputProps,
        ...host.pageOptions(browser, cancelSignal, tabs),
        frames: toDraw,
        imageFormat: 'jpeg',
        jpegQuality: plan.encoder.jpegQuality,
        outputDir: null,
        onFrameBuffer: onPicture,
        onStart: () => undefined,
        onFrameUpdate: onDrawn,
      });
    }
    await Promise.all(writes);
  } catch (error) {
    blending?.abort(error instanceof Error ? error : new Error(String(error)));
    await earlySound.catch(() => undefined);
    throw error;
  }
  drawing = false;
  const draw = clock();
  /** The sound: mixed while drawing, or now (Remotion's audio pass). */
  const finishSound = async () => {
    const early = await earlySound;
    return plan.sound.via === 'ffmpeg' ? early : makeSound(true);
  };
  let made: Awaited<ReturnType<typeof makeSound>>;
  // Held: x264 sees each drawn frame once with skip pictures, every frame without.
  let encoding: BlendedEncoding = { encoded: args.resolved.durationInFrames, skipped: 0, faded: 0 };
  if (blending) {
    // The encoder is still catching up with the last frames: the sound is made meanwhile.
    args.onProgress('encoding', drawShare);
    try {
      const [encoded, sounded] = await Promise.all([blending.done(), finishSound()]);
      made = sounded;
      encoding = encoded;
    } catch (error) {
      blending.abort(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
  } else {
    const drawn = (held as Extract<Held, { kind: 'held' }>).drawn;
    made = await finishSound();
    clock();
    args.onProgress('encoding', 0.75);
    await encodeHeldFrames({
      frames: drawn.frames.map((frame, index) => ({ file: fileOf(frame), hold: drawn.holds[index] })),
      fps: args.resolved.fps,
      totalFrames: drawn.durationInFrames,
      outputPath: videoPath,
      signal: args.signal,
      x264,
      skipPictures,
    });
    if (skipPictures) encoding = { encoded: drawn.frames.length, skipped: drawn.durationInFrames - drawn.frames.length, faded: 0 };
  }
  await muxAacAudio(videoPath, audioPath, args.outputPath, args.signal);
  args.onProgress('encoding', 1);
  return {
    frames_skipped: encoding.skipped,
    frames_faded: encoding.faded,
    stage_seconds: { draw, audio: made.seconds, encode: clock() },
    ...(made.made ?? {}),
  };
}

/** Seconds since the previous call (or since it was made), to two decimals. */
function stopwatch(): () => number {
  let last = performance.now();
  return () => {
    const now = performance.now();
    const seconds = Math.round((now - last) / 10) / 100;
    last = now;
    return seconds;
  };
}

function withSuffix(file: string, suffix: string): string {
  const ext = path.extname(file);
  return `${file.slice(0, -ext.length)}${suffix}${ext}`;
}
