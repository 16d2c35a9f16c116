import * as path from 'node:path';
import type { RenderMediaOptions } from '@remotion/renderer';
import type { X264Preset } from '../../../config/app-config';
import { compositionOf } from '../browser/browser-host';
import { FramePipeEncoder, type FramePipeVideo } from '../encode/frame-pipe-encoder';
import { joinSegments } from '../encode/join-segments';
import { stitchWith } from '../encode/stitch-settings';
import { convertOnOneThread } from '../encode/x264';
import type { Measured } from '../render-report';
import { muxAacAudio } from '../sound/sound-maker';
import type { PictureStrategy, StrategyContext } from './strategy';

type BrowserPictures = Parameters<(typeof browserStrategy)['run']>[1];

/**
 * Remotion's renderMedia: every frame of the range drawn by the page and encoded by Remotion's
 * encoder, with the plan's tabs. An AAC output's sound goes to a WAV that ffmpeg encodes and muxes
 * (Remotion muxes raw AAC without the encoder-delay edit list, ~43 ms late): the worker's own mix
 * while the page draws when the plan says `ffmpeg`, else the page's, collected while drawing.
 * A whole timeline on the chunk grid (plan.segments) is drawn a segment at a time, each exactly as
 * a chunk of it is drawn, and joined as chunks are: split or not, the same frames.
 */
export const browserStrategy: PictureStrategy<'browser'> = {
  name: 'browser',
  async run(context, pictures) {
    const { args, plan, sound } = context;
    const { plan: output, resolved } = args;
    if (output.kind !== 'video') throw new Error('the browser strategy draws video outputs only');
    if (plan.encoder.frameCapture === 'begin_frame') return captureToEncoder(context, pictures);
    if (plan.segments && !args.frameRange) return drawSegments(context, pictures, plan.segments);
    const frames = pictures.frames[1] - pictures.frames[0] + 1;
    const separateAudio = output.audioCodec === 'aac' && !args.muted;
    const videoPath = separateAudio ? withSuffix(args.outputPath, '.video') : args.outputPath;
    const audioPath = path.join(path.dirname(args.outputPath), 'audio.wav');
    const mixing = plan.sound.via === 'ffmpeg';
    const audio = args.muted || mixing
      ? { muted: true }
      : separateAudio
        ? { separateAudioTo: audioPath }
        : output.audioCodec
          ? { audioCodec: output.audioCodec }
          : {};
    const { renderMedia } = await import('@remotion/renderer');
    const drawing = renderMedia({
      ...(await mediaOptions(context, pictures, args.frameRange ? pictures.frames : null, videoPath)),
      ...audio,
      onProgress: ({ renderedFrames, progress }) => {
        args.onProgress(renderedFrames < frames ? 'compositing' : 'encoding', progress);
      },
    });
    // Both settle before a failure is thrown: nothing writes into the work folder afterwards.
    const [drawn, mixed] = await Promise.allSettled([drawing, mixing ? sound.make(args, plan.sound, audioPath) : null]);
    if (drawn.status === 'rejected') throw drawn.reason;
    if (mixed.status === 'rejected') throw mixed.reason;
    if (separateAudio) await muxAacAudio(videoPath, audioPath, args.outputPath, args.signal);
    const measured: Measured = {};
    if (separateAudio && resolved.hasAudio) {
      measured.sound_path = mixing ? 'ffmpeg' : 'browser';
      if (plan.sound.via === 'page_while_drawing' && plan.sound.reason) measured.sound_fallback = plan.sound.reason;
    }
    return measured;
  },
};

/** renderMedia's options for the plan's pictures of `frameRange` (null: the whole timeline) into `outputLocation`, sound aside. */
async function mediaOptions(
  { args, plan, browser: host, cancelSignal }: StrategyContext,
  pictures: BrowserPictures,
  frameRange: [number, number] | null,
  outputLocation: string,
): Promise<RenderMediaOptions> {
  const [serveUrl, browser] = await Promise.all([host.serveUrl(), host.openBrowser()]);
  const { plan: output, resolved } = args;
  if (output.kind !== 'video') throw new Error('the browser strategy draws video outputs only');
  const inputProps = args.props as unknown as Record<string, unknown>;
  return {
    composition: compositionOf(resolved, inputProps),
    serveUrl,
    codec: output.codec,
    scale: pictures.scale,
    ...(frameRange ? { frameRange } : {}),
    outputLocation,
    inputProps,
    imageFormat: output.imageFormat,
    pixelFormat: output.pixelFormat,
    ...(output.proResProfile ? { proResProfile: output.proResProfile } : {}),
    ...(plan.encoder.x264 ? { colorSpace: 'bt709' as const, x264Preset: plan.encoder.x264.preset as X264Preset, crf: plan.encoder.x264.crf, ffmpegOverride: convertOnOneThread } : {}),
    ...(plan.encoder.vp9 || plan.encoder.prores || plan.encoder.gif
      ? { ffmpegOverride: stitchWith({ vp9: plan.encoder.vp9, prores: plan.encoder.prores, gif: plan.encoder.gif }) }
      : {}),
    ...(plan.encoder.jpegQuality !== undefined && output.imageFormat === 'jpeg' ? { jpegQuality: plan.encoder.jpegQuality } : {}),
    ...host.pageOptions(browser, cancelSignal, pictures.tabs),
    overwrite: true,
  } as RenderMediaOptions;
}

/**
 * The chunk grid drawn here: each segment muted, as a chunk is (its own renderMedia and encoder),
 * joined by stream copy; the sound made once beside them (plan.sound) and muxed, as a split
 * render's parent does.
 */
async function drawSegments(context: StrategyContext, pictures: BrowserPictures, segments: [number, number][]): Promise<Measured> {
  const { args, plan, sound } = context;
  const { renderMedia } = await import('@remotion/renderer');
  const workDir = path.dirname(args.outputPath);
  const total = pictures.frames[1] - pictures.frames[0] + 1;
  const audioPath = path.join(workDir, 'audio.wav');
  const drawAll = async () => {
    const files: string[] = [];
    let done = 0;
    for (const [index, range] of segments.entries()) {
      const file = path.join(workDir, `segment-${index}.mp4`);
      const frames = range[1] - range[0] + 1;
      await renderMedia({
        ...(await mediaOptions(context, pictures, range, file)),
        muted: true,
        onProgress: ({ renderedFrames }) => args.onProgress('compositing', (done + Math.min(renderedFrames, frames)) / total),
      });
      done += frames;
      files.push(file);
    }
    return files;
  };
  const [drawn, mixed] = await Promise.allSettled([drawAll(), sound.make(args, plan.sound, audioPath)]);
  if (drawn.status === 'rejected') throw drawn.reason;
  if (mixed.status === 'rejected') throw mixed.reason;
  args.onProgress('encoding', 1);
  const videoPath = withSuffix(args.outputPath, '.video');
  await joinSegments(drawn.value, path.join(workDir, 'segments.txt'), videoPath, args.signal);
  await muxAacAudio(videoPath, audioPath, args.outputPath, args.signal);
  return { segments: segments.length, ...(mixed.value ?? {}) };
}

/**
 * The plan's frames captured with BeginFrame control and piped into the encoder as they come
 * (encode/frame-pipe-encoder.ts: Remotion's encoder settings and the plan's), one encoder per
 * range: the whole range, or each segment of the chunk grid, joined as chunks are. The sound is
 * the plan's (`ffmpeg` beside the drawing, the page's audio pass after it), muxed as AAC.
 */
async function captureToEncoder(context: StrategyContext, pictures: BrowserPictures): Promise<Measured> {
  const { args, plan, browser: host, sound } = context;
  const { plan: output, resolved } = args;
  if (output.kind !== 'video') throw new Error('the browser strategy draws video outputs only');
  const workDir = path.dirname(args.outputPath);
  const onGrid = plan.segments && !args.frameRange ? plan.segments : null;
  const ranges = onGrid ?? [pictures.frames];
  const separateAudio = output.audioCodec === 'aac' && !args.muted;
  const videoPath = separateAudio ? withSuffix(args.outputPath, '.video') : args.outputPath;
  const files = onGrid ? ranges.map((_, index) => path.join(workDir, `segment-${index}.mp4`)) : [videoPath];
  const audioPath = path.join(workDir, 'audio.wav');
  const video = (outputPath: string): FramePipeVideo => ({
    codec: output.codec as FramePipeVideo['codec'],
    pixelFormat: output.pixelFormat,
    ...(output.proResProfile ? { proResProfile: output.proResProfile } : {}),
    fps: resolved.fps,
    width: resolved.width,
    height: resolved.height,
    outputPath,
  });
  const frames = ranges.flatMap(([first, last]) => Array.from({ length: last - first + 1 }, (_, index) => first + index));
  const rangeOf = (frame: number) => ranges.findIndex(([first, last]) => frame >= first && frame <= last);
  const encoders: FramePipeEncoder[] = [];
  const finished: Promise<void>[] = [];
  const draw = async () => {
    try {
      await host.captureFrames(
        { resolved, props: args.props as unknown as Record<string, unknown>, format: plan.encoder.capture, jpegQuality: plan.encoder.jpegQuality, signal: args.signal },
        frames,
        async (frame, picture, index) => {
          const range = rangeOf(frame);
          if (!encoders[range]) {
            // A fresh encoder for each range; the one before finishes while the page draws on.
            if (range > 0) finished.push(encoders[range - 1].finish());
            encoders[range] = new FramePipeEncoder(video(files[range]), plan.encoder.capture, plan.encoder, args.signal);
          }
          await encoders[range].write(picture);
          args.onProgress('compositing', (index + 1) / frames.length);
        },
      );
      finished.push(encoders[encoders.length - 1].finish());
      await Promise.all(finished);
    } catch (error) {
      await Promise.all(encoders.map((encoder) => encoder.abort()));
      await Promise.allSettled(finished);
      throw error;
    }
  };
  // The worker's mix runs beside the drawing; the page's audio pass needs the browser, so it follows.
  const early = plan.sound.via === 'ffmpeg';
  const [drawn, mixed] = await Promise.allSettled([draw(), early ? sound.make(args, plan.sound, audioPath) : null]);
  if (drawn.status === 'rejected') throw drawn.reason;
  if (mixed.status === 'rejected') throw mixed.reason;
  const made = early ? mixed.value : await sound.make(args, plan.sound, audioPath);
  args.onProgress('encoding', 1);
  if (onGrid) await joinSegments(files, path.join(workDir, 'segments.txt'), videoPath, args.signal);
  if (separateAudio) await muxAacAudio(videoPath, audioPath, args.outputPath, args.signal);
  return { ...(onGrid ? { segments: onGrid.length } : {}), ...(made ?? {}) };
}

function withSuffix(file: string, suffix: string): string {
  const ext = path.extname(file);
  return `${file.slice(0, -ext.length)}${suffix}${ext}`;
}
