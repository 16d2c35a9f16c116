import * as path from 'node:path';
import type { X264Preset } from '../../../config/app-config';
import { compositionOf } from '../browser/browser-host';
import { convertOnOneThread } from '../encode/x264';
import type { Measured } from '../render-report';
import { muxAacAudio } from '../sound/sound-maker';
import type { PictureStrategy } from './strategy';

/**
 * Remotion's renderMedia: every frame of the range drawn by the page and encoded by Remotion's
 * encoder, with the plan's tabs. An AAC output's sound goes to a WAV that ffmpeg encodes and muxes
 * (Remotion muxes raw AAC without the encoder-delay edit list, ~43 ms late): the worker's own mix
 * while the page draws when the plan says `ffmpeg`, else the page's, collected while drawing.
 */
export const browserStrategy: PictureStrategy<'browser'> = {
  name: 'browser',
  async run({ args, plan, browser: host, sound, cancelSignal }, pictures) {
    const { renderMedia } = await import('@remotion/renderer');
    const [serveUrl, browser] = await Promise.all([host.serveUrl(), host.openBrowser()]);
    const { plan: output, resolved } = args;
    if (output.kind !== 'video') throw new Error('the browser strategy draws video outputs only');
    const inputProps = args.props as unknown as Record<string, unknown>;
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
    const drawing = renderMedia({
      composition: compositionOf(resolved, inputProps),
      serveUrl,
      codec: output.codec,
      scale: pictures.scale,
      ...(args.frameRange ? { frameRange: pictures.frames } : {}),
      outputLocation: videoPath,
      inputProps,
      imageFormat: output.imageFormat,
      pixelFormat: output.pixelFormat,
      ...(output.proResProfile ? { proResProfile: output.proResProfile } : {}),
      ...audio,
      ...(plan.encoder.x264 ? { colorSpace: 'bt709' as const, x264Preset: plan.encoder.x264.preset as X264Preset, crf: plan.encoder.x264.crf, ffmpegOverride: convertOnOneThread } : {}),
      ...(plan.encoder.jpegQuality !== undefined && output.imageFormat === 'jpeg' ? { jpegQuality: plan.encoder.jpegQuality } : {}),
      ...host.pageOptions(browser, cancelSignal, pictures.tabs),
      overwrite: true,
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

function withSuffix(file: string, suffix: string): string {
  const ext = path.extname(file);
  return `${file.slice(0, -ext.length)}${suffix}${ext}`;
}
