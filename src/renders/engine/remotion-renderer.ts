import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import type { HeadlessBrowser } from '@remotion/renderer';

import { blendedFrames, type BlendedFrames, COMPOSITION_ID, CompositionProps, drawnFrames, type DrawnFrames, ResolvedRequest } from '../../../composition/src/schema';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { BlendedFramesEncoder, type BlendedEncoding } from './strategies/held-frames/blended-frames-encoder';
import { ensureCompositionBundle } from './composition-bundle';
import { convertOnOneThread, encodeHeldFrames, HELD_FRAMES_MAX_SHARE, type X264Settings } from './encode/x264';
import { chooseMediaComposite, renderMediaComposite } from './strategies/media-composite/composite-graph';
import { mediaCompositePlan } from './strategies/media-composite/composite-plan';
import { MediaServer } from './media-server';
import { OutputPlan } from './output-formats';
import { timelineSoundMixer, type TimelineSoundMixer } from './sound/timeline-sound';
import { WarmStillPage } from './browser/warm-still-page';
import { Metrics } from '../../metrics/metrics';

/** Remotion's cancel signal (its type is not exported by name). */
type RemotionCancelSignal = ReturnType<Awaited<typeof import('@remotion/renderer')>['makeCancelSignal']>['cancelSignal'];

export type RenderStage = 'compositing' | 'encoding';

/**
 * How a render was carried out. `browser`: Remotion captures and encodes every frame.
 * `held_frames`: the browser draws each distinct frame once and the encoder holds it; with
 * `frames_blended` > 0, frames that differ only by elements' opacity are mixed from drawn corner
 * frames instead of drawn (blended-frames.ts).
 * `chunks`: the browser path split into frame ranges rendered as separate jobs, then joined.
 * `media_composite`: ffmpeg draws the video clips, the browser the layers around them (media-composite.ts).
 */
export interface RenderReport {
  render_path: 'browser' | 'held_frames' | 'still' | 'chunks' | 'media_composite';
  /** Why a timeline with video clips did not take the media-composite path. */
  media_fallback?: string;
  frames_total: number;
  frames_drawn: number;
  /** Held and media-composite paths: output frames (of the upper layer, for the composite) mixed from drawn corner frames rather than drawn or held. */
  frames_blended?: number;
  /** Held path: output frames written as skip pictures, copies of the frame before that x264 never saw (RENDER_SKIP_PICTURES, h264-holds.ts). */
  frames_skipped?: number;
  /** Held path: fading frames x264 never saw, written as the decoder's weighted mix of the pictures before and after (h264-holds.ts). */
  frames_faded?: number;
  /**
   * Held path: seconds spent drawing, mixing the sound and encoding. Blended (frames_blended > 0):
   * encoding runs while drawing, `encode` is what is left of it after the last frame is drawn.
   */
  stage_seconds?: { draw: number; audio: number; encode: number };
  /** Held path with sound: who mixed it (`soundTrack`), and why not ffmpeg when it did not. */
  sound_path?: SoundPath;
  sound_fallback?: string;
  /** Chunked path: how many chunks, and each chunk's render seconds (frames to stored file) in order. */
  chunks?: number;
  chunk_seconds?: number[];
  /** Chunked path: seconds from the last chunk done to the file (the join and the mux; the sound is mixed while the chunks are drawn). */
  join_seconds?: number;
  /** Browser and held paths: how many tabs drew the frames (drawingTabs). */
  drawing_tabs?: number;
  /** Stills: drawn on the worker's warm tab (warm-still-page.ts) or by Remotion's renderStill. */
  still_path?: 'warm_page' | 'render_still';
}

/** `ffmpeg`: mixed from the resolved timeline (timeline-sound.ts); `browser`: Remotion's audio-only render. */
export type SoundPath = 'ffmpeg' | 'browser';

export interface RenderArgs {
  props: CompositionProps;
  resolved: ResolvedRequest;
  plan: OutputPlan;
  outputPath: string;
  onProgress: (stage: RenderStage, fraction: number) => void;
  signal: AbortSignal;
  /** Stills only: the frame to capture (default 0). */
  stillFrame?: number;
  /** Output size as a fraction of the canvas (previews); default 1. */
  scale?: number;
  /** Videos only: the first and last frame to draw (a clip preview); default all. */
  frameRange?: [number, number];
  /** Videos only: no audio track at all (a chunk: the sound is mixed once for the whole timeline). */
  muted?: boolean;
}

export interface StillsArgs {
  props: CompositionProps;
  resolved: ResolvedRequest;
  frames: number[];
  imageFormat: 'png' | 'jpeg';
  scale: number;
  /** Called once per frame drawn, in any order. */
  onFrame: (frame: number, image: Buffer) => Promise<void>;
  onProgress: (fraction: number) => void;
  signal: AbortSignal;
}

/**
 * stills() with at most this many frames draws them on the warm still tab (≈ 0.25 s a 1080p
 * frame) rather than in a tab of their own (≈ 1.5 s to open, then ≈ 0.1 s a frame).
 */
const WARM_TAB_MAX_FRAMES = 8;

/** A jpg still is the delivered file, not a frame on its way to an encoder: its own quality. */
const STILL_JPEG_QUALITY = 90;

/** Chromium flags for a headless render host with no GPU and no network beyond loopback. */
const CHROMIUM_OPTIONS = { gl: 'angle' as const };

/** A held render draws with more than one tab from this many drawn frames (the fewest measured to gain). */
const HELD_TABS_MIN_FRAMES = 30;

/**
 * Drives Remotion: one composition bundle and one warm browser per worker process, reused by every
 * render; each render passes only its input props. Media reach the browser from `mediaServer`.
 */
@Injectable()
export class RemotionRenderer implements OnModuleDestroy {
  private bundle: Promise<string> | null = null;
  private browser: Promise<HeadlessBrowser> | null = null;
  readonly mediaServer = new MediaServer();
  private readonly warmStills = new WarmStillPage();
  /** Callers of stills() drawing on the warm tab, one after the other. */
  private warmStillsQueue: Promise<void> = Promise.resolve();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  private warm = false;
  private closing = false;

  /** Bundles (or finds the bundle) and opens the browser ahead of the first job. */
  async warmUp(): Promise<void> {
    await Promise.all([this.serveUrl(), this.openBrowser(), this.mediaServer.start()]);
    this.warm = true;
  }

  /**
   * Readiness of a worker: warm-up succeeded once (bundle found, browser opened). A browser closed
   * after a render error is reopened by the next render, so it does not make the worker unready.
   */
  async ready(): Promise<boolean> {
    return this.warm;
  }

  async render(args: RenderArgs): Promise<RenderReport> {
    const { renderMedia, renderStill, makeCancelSignal } = await import('@remotion/renderer');
    const [serveUrl, browser] = await Promise.all([this.serveUrl(), this.openBrowser()]);
    const { resolved, plan } = args;
    const inputProps = args.props as unknown as Record<string, unknown>;
    const composition = compositionOf(resolved, inputProps);
    const scale = args.scale ?? 1;
    const frames = args.frameRange ? args.frameRange[1] - args.frameRange[0] + 1 : resolved.durationInFrames;
    const { cancelSignal, cancel } = makeCancelSignal();
    const onAbort = () => cancel();
    args.signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (plan.kind === 'still') {
        args.onProgress('compositing', 0);
        if (this.config.render.warmStills && !this.warmStills.busy) {
          await this.warmStills.draw({
            browser,
            bundleDir: serveUrl,
            composition,
            frame: args.stillFrame ?? 0,
            scale,
            imageFormat: plan.imageFormat,
            ...(plan.imageFormat === 'jpeg' ? { jpegQuality: STILL_JPEG_QUALITY } : {}),
            output: args.outputPath,
            signal: args.signal,
          });
          args.onProgress('encoding', 1);
          return { render_path: 'still', frames_total: 1, frames_drawn: 1, still_path: 'warm_page' };
        }
        await renderStill({
          composition,
          serveUrl,
          output: args.outputPath,
          frame: args.stillFrame ?? 0,
          scale,
          imageFormat: plan.imageFormat,
          ...(plan.imageFormat === 'jpeg' ? { jpegQuality: STILL_JPEG_QUALITY } : {}),
          inputProps,
          puppeteerInstance: browser,
          browserExecutable: this.config.render.browserExecutable,
          chromiumOptions: CHROMIUM_OPTIONS,
          cancelSignal,
          overwrite: true,
          logLevel: 'error',
        });
        args.onProgress('encoding', 1);
        return { render_path: 'still', frames_total: 1, frames_drawn: 1, still_path: 'render_still' };
      }
      // The media composite draws its few layer frames on the warm still tab (stills()); ffmpeg,
      // not a drawing tab, is its big process, and it peaks ≈ 1 GB below the browser path.
      const composite = this.config.render.compositeMedia ? await chooseMediaComposite(args, (url) => this.mediaServer.fileAt(url)) : null;
      if (composite?.ok) {
        const renderStarted = performance.now();
        const report = await renderMediaComposite(this, args, composite.plan, composite.files, this.x264);
        this.metrics.videoRendered(resolved.durationInFrames, (performance.now() - renderStarted) / 1000);
        return report;
      }
      // The warm still tab's page (≈ 180 MB measured) would add to a video's peak memory: it is
      // closed for the video, and the next still opens it again.
      await this.warmStills.park();
      const fallback = composite ? { media_fallback: composite.reason } : {};
      const held = this.heldFramesPlan(args);
      if (held) {
        const renderStarted = performance.now();
        const { stageSeconds, sound, encoding, tabs } = await this.renderHeld(args, held, cancelSignal);
        this.metrics.videoRendered(resolved.durationInFrames, (performance.now() - renderStarted) / 1000);
        const plan = held.kind === 'held' ? held.drawn : held.blended;
        return {
          render_path: 'held_frames',
          frames_total: plan.durationInFrames,
          frames_drawn: plan.frames.length,
          frames_blended: held.kind === 'blended' ? held.blended.blended : 0,
          frames_skipped: encoding.skipped,
          frames_faded: encoding.faded,
          drawing_tabs: tabs,
          stage_seconds: stageSeconds,
          ...sound,
          ...fallback,
        };
      }
      // AAC: Remotion muxes a raw AAC stream without the encoder-delay edit list, so the sound
      // would play ~43 ms late. The sound goes to a WAV instead and ffmpeg encodes and muxes it,
      // writing the edit list. The worker mixes that WAV itself while the page draws when it can
      // (the samples every other H.264 path muxes, so the path taken does not change the sound);
      // otherwise, and for a part of the timeline (a clip preview), Remotion collects it while drawing.
      const separateAudio = plan.audioCodec === 'aac' && !args.muted;
      const videoPath = separateAudio ? withSuffix(args.outputPath, '.video') : args.outputPath;
      const audioPath = path.join(path.dirname(args.outputPath), 'audio.wav');
      // A source ffprobe cannot read is left to the page, which reports it in its own words.
      const mixer = separateAudio && resolved.hasAudio && this.config.render.mixSound && !args.frameRange
        ? await this.soundMixer({ ...args, outputPath: audioPath }).catch((error: unknown) => {
            args.signal.throwIfAborted();
            return { ok: false as const, reason: `a source could not be probed (${error instanceof Error ? error.message.split('\n')[0] : String(error)})` };
          })
        : null;
      const renderStarted = performance.now();
      const tabs = this.drawingTabs(resolved);
      const drawing = renderMedia({
        composition,
        serveUrl,
        codec: plan.codec,
        scale,
        ...(args.frameRange ? { frameRange: args.frameRange } : {}),
        outputLocation: videoPath,
        inputProps,
        imageFormat: plan.imageFormat,
        pixelFormat: plan.pixelFormat,
        ...(plan.proResProfile ? { proResProfile: plan.proResProfile } : {}),
        ...(args.muted || mixer?.ok ? { muted: true } : separateAudio ? { separateAudioTo: audioPath } : plan.audioCodec ? { audioCodec: plan.audioCodec } : {}),
        ...(plan.codec === 'h264'
          ? { colorSpace: 'bt709' as const, x264Preset: this.config.render.x264Preset, crf: this.config.render.x264Crf, ffmpegOverride: convertOnOneThread }
          : {}),
        ...(plan.imageFormat === 'jpeg' ? { jpegQuality: this.config.render.jpegQuality } : {}),
        ...this.pageOptions(browser, cancelSignal, tabs),
        overwrite: true,
        onProgress: ({ renderedFrames, progress }) => {
          args.onProgress(renderedFrames < frames ? 'compositing' : 'encoding', progress);
        },
      });
      // Both settle before a failure is thrown: nothing writes into the work folder afterwards.
      const [drawn, mixed] = await Promise.allSettled([drawing, mixer?.ok ? mixer.mix().then(() => encodeSound(audioPath, args.signal)) : null]);
      if (drawn.status === 'rejected') throw drawn.reason;
      if (mixed.status === 'rejected') throw mixed.reason;
      if (separateAudio) await muxAacAudio(videoPath, audioPath, args.outputPath, args.signal);
      // The frames of this render only: a chunk or a clip preview draws a range.
      this.metrics.videoRendered(frames, (performance.now() - renderStarted) / 1000);
      const sound = separateAudio && resolved.hasAudio
        ? { sound_path: mixer?.ok ? ('ffmpeg' as const) : ('browser' as const), ...(mixer && !mixer.ok ? { sound_fallback: mixer.reason } : {}) }
        : {};
      return { render_path: 'browser', frames_total: frames, frames_drawn: frames, drawing_tabs: tabs, ...sound, ...fallback };
    } catch (error) {
      // The browser may be what broke; a fresh one costs about a second at the next render.
      if (!args.signal.aborted) await this.closeBrowser();
      throw error;
    } finally {
      args.signal.removeEventListener('abort', onAbort);
    }
  }

  /** The x264 settings of every H.264 path that encodes with ffmpeg itself (Remotion's renderMedia gets the same two). */
  private get x264(): X264Settings {
    return { preset: this.config.render.x264Preset, crf: this.config.render.x264Crf };
  }

  /**
   * What every multi-frame Remotion call of this worker passes: its warm browser (and the
   * executable too: without it Remotion would look for, and try to download, its own), the page
   * concurrency, the flags, the cancel signal, quiet logs.
   */
  private pageOptions(browser: HeadlessBrowser, cancelSignal: RemotionCancelSignal, tabs: number) {
    return {
      concurrency: tabs,
      puppeteerInstance: browser,
      browserExecutable: this.config.render.browserExecutable,
      chromiumOptions: CHROMIUM_OPTIONS,
      cancelSignal,
      logLevel: 'error' as const,
    };
  }

  /**
   * How many tabs draw a render's frames: RENDER_TABS (at most the machine's cores) for a page
   * with no video clip, one where the page decodes a clip (measured: no faster, ≈ 350 MB more).
   */
  drawingTabs(resolved: ResolvedRequest): number {
    if (resolved.elements.some((element) => element.type === 'video')) return 1;
    return Math.max(1, Math.min(this.config.render.tabs, os.availableParallelism()));
  }

  /**
   * Whether `render` would draw this whole-timeline H.264 render frame by frame in the browser and
   * it is longer than RENDER_CHUNK_FRAMES: then it is split into chunks (chunked-render.service.ts).
   * Other formats stay whole: only H.264 chunks are measured to join without re-encoding. A render
   * the media-composite path takes stays whole too (several times faster than drawing its clips);
   * should its sources then fail the composite's probe, it is drawn whole by the browser.
   */
  chunkable(args: RenderArgs): boolean {
    const { plan, resolved } = args;
    const chunkFrames = this.config.render.chunkFrames;
    if (chunkFrames <= 0 || plan.kind !== 'video' || plan.codec !== 'h264' || args.frameRange || args.muted || (args.scale ?? 1) !== 1) return false;
    if (plan.audioCodec !== 'aac' && plan.audioCodec !== null) return false;
    if (resolved.durationInFrames <= chunkFrames || this.heldFramesPlan(args) !== null) return false;
    return !(this.config.render.compositeMedia && mediaCompositePlan(args.props, resolved, { plan, scale: args.scale, frameRange: args.frameRange })?.ok);
  }

  /**
   * The distinct frames of a whole-timeline H.264 render when few enough of its frames change
   * (drawnFrames), or with RENDER_BLEND_FADES the frames to draw and to mix (blendedFrames) when
   * any are mixed; null when every frame goes through the browser.
   */
  private heldFramesPlan(args: RenderArgs): HeldPlan | null {
    const { plan, resolved } = args;
    if (!this.config.render.holdFrames || plan.kind !== 'video' || plan.codec !== 'h264' || args.frameRange || (args.scale ?? 1) !== 1) return null;
    if (plan.audioCodec !== 'aac' && plan.audioCodec !== null) return null;
    // Remotion evens odd sizes for H.264 itself; the held path leaves them to the browser path.
    if (resolved.width % 2 !== 0 || resolved.height % 2 !== 0) return null;
    const fewEnough = (plan: { frames: number[] }) => plan.frames.length <= resolved.durationInFrames * HELD_FRAMES_MAX_SHARE;
    if (this.config.render.blendFades) {
      const blended = blendedFrames(args.props.request, resolved);
      if (blended.blended > 0 && fewEnough(blended)) return { kind: 'blended', blended };
    }
    const drawn = drawnFrames(args.props.request, resolved);
    return fewEnough(drawn) ? { kind: 'held', drawn } : null;
  }

  /**
   * Draws each distinct frame once (JPEG, as the browser path captures), then ffmpeg encodes them
   * with their holds; the sound is mixed from the timeline (soundTrack), muxed like the browser
   * path's. A blended plan encodes while it draws: each drawn frame goes to BlendedFramesEncoder,
   * which mixes the fading frames from their corners.
   */
  private async renderHeld(
    args: RenderArgs,
    held: HeldPlan,
    cancelSignal: RemotionCancelSignal,
  ): Promise<{ stageSeconds: NonNullable<RenderReport['stage_seconds']>; sound: Awaited<ReturnType<RemotionRenderer['soundTrack']>> | null; encoding: BlendedEncoding; tabs: number }> {
    const { renderFrames } = await import('@remotion/renderer');
    const clock = stopwatch();
    const [serveUrl, browser] = await Promise.all([this.serveUrl(), this.openBrowser()]);
    const props: CompositionProps = held.kind === 'blended' ? { ...args.props, fixedOpacity: held.blended.fixedOpacity } : args.props;
    const inputProps = props as unknown as Record<string, unknown>;
    const composition = compositionOf(args.resolved, inputProps);
    const workDir = path.dirname(args.outputPath);
    const videoPath = withSuffix(args.outputPath, '.video');
    const toDraw = held.kind === 'blended' ? held.blended.frames : held.drawn.frames;
    // Blended: drawing is the short part (a few corners), encoding every output frame the long one.
    const drawShare = held.kind === 'blended' ? 0.2 : 0.7;
    let drawing = true;
    const blending = held.kind === 'blended'
      ? new BlendedFramesEncoder(
          held.blended,
          { width: args.resolved.width, height: args.resolved.height, fps: args.resolved.fps, outputPath: videoPath, x264: this.x264, skipPictures: this.config.render.skipPictures },
          args.signal,
          (encoded) => {
            if (!drawing) args.onProgress('encoding', drawShare + ((0.98 - drawShare) * encoded) / held.blended.durationInFrames);
          },
        )
      : null;
    // The sound is mixed and encoded while the page draws when the worker can mix it (ffmpeg, one
    // core); Remotion's audio render, which needs the browser, waits for the drawing to end.
    const audioPath = path.join(workDir, 'audio.wav');
    const wantsSound = args.resolved.hasAudio && args.plan.kind === 'video' && args.plan.audioCodec !== null;
    const mixer = wantsSound && this.config.render.mixSound
      ? await this.soundMixer({ ...args, outputPath: audioPath }).catch((error: unknown) => {
          args.signal.throwIfAborted();
          return { ok: false as const, reason: `a source could not be probed (${error instanceof Error ? error.message.split('\n')[0] : String(error)})` };
        })
      : null;
    const mixSound = async (early: boolean) => {
      const started = performance.now();
      let mixed: Awaited<ReturnType<RemotionRenderer['soundTrack']>> | null = null;
      if (early && mixer?.ok) {
        await mixer.mix();
        mixed = { sound_path: 'ffmpeg' };
      } else if (!early && wantsSound && !mixer?.ok) {
        // The worker's mixer was asked already: straight to Remotion's audio render, with its reason.
        mixed = { ...(await this.soundTrack({ ...args, outputPath: audioPath }, 'browser')), ...(mixer ? { sound_fallback: mixer.reason } : {}) };
      }
      if (mixed) await encodeSound(audioPath, args.signal);
      return { mixed, seconds: Math.round((performance.now() - started) / 10) / 100 };
    };
    const earlySound = mixSound(true);
    // Settled before any failure is thrown: nothing writes into the work folder afterwards.
    earlySound.catch(() => undefined);
    const framesDir = path.join(workDir, 'frames');
    if (!blending) await mkdir(framesDir, { recursive: true });
    const fileOf = (frame: number) => path.join(framesDir, `${String(frame).padStart(6, '0')}.jpeg`);
    const writes: Promise<void>[] = [];
    // Frames encoded after the drawing: the drawing has the cores (30 drawn frames of a gliding
    // box 4.1 → 3.5 s with two tabs). Blended: x264 and the sound mix share them with it already
    // (the slideshow 3.7–4.0 → 4.0–4.2 s with two), and fewer frames do not repay a tab.
    const tabs = !blending && toDraw.length >= HELD_TABS_MIN_FRAMES ? this.drawingTabs(args.resolved) : 1;
    // Drawing takes most of the time; the sound and the encoding share the rest.
    try {
      await renderFrames({
        composition,
        serveUrl,
        inputProps,
        ...this.pageOptions(browser, cancelSignal, tabs),
        frames: toDraw,
        imageFormat: 'jpeg',
        jpegQuality: this.config.render.jpegQuality,
        outputDir: null,
        onFrameBuffer: (buffer, frame) => {
          if (blending) blending.addDrawn(frame, buffer);
          else writes.push(writeFile(fileOf(frame), buffer));
        },
        onStart: () => undefined,
        onFrameUpdate: (rendered) => args.onProgress('compositing', (drawShare * rendered) / toDraw.length),
      });
      await Promise.all(writes);
    } catch (error) {
      blending?.abort(error instanceof Error ? error : new Error(String(error)));
      await earlySound.catch(() => undefined);
      throw error;
    }
    drawing = false;
    const draw = clock();
    /** The sound: mixed while drawing, or now (Remotion's audio render). */
    const finishSound = async () => {
      const early = await earlySound;
      return early.mixed ? early : mixSound(false);
    };
    let sound: Awaited<ReturnType<RemotionRenderer['soundTrack']>> | null = null;
    let audio = 0;
    // Held: x264 sees each drawn frame once with skip pictures, every frame without.
    let encoding: BlendedEncoding = { encoded: args.resolved.durationInFrames, skipped: 0, faded: 0 };
    if (blending) {
      // The encoder is still catching up with the last frames: the sound is mixed meanwhile.
      args.onProgress('encoding', drawShare);
      try {
        const [encoded, mixed] = await Promise.all([blending.done(), finishSound()]);
        ({ mixed: sound, seconds: audio } = mixed);
        encoding = encoded;
      } catch (error) {
        blending.abort(error instanceof Error ? error : new Error(String(error)));
        throw error;
      }
    } else if (held.kind === 'held') {
      ({ mixed: sound, seconds: audio } = await finishSound());
      clock();
      args.onProgress('encoding', 0.75);
      await encodeHeldFrames({
        frames: held.drawn.frames.map((frame, index) => ({ file: fileOf(frame), hold: held.drawn.holds[index] })),
        fps: args.resolved.fps,
        totalFrames: held.drawn.durationInFrames,
        outputPath: videoPath,
        signal: args.signal,
        x264: this.x264,
        skipPictures: this.config.render.skipPictures,
      });
      if (this.config.render.skipPictures) encoding = { encoded: held.drawn.frames.length, skipped: held.drawn.durationInFrames - held.drawn.frames.length, faded: 0 };
    }
    await muxAacAudio(videoPath, audioPath, args.outputPath, args.signal);
    args.onProgress('encoding', 1);
    return { stageSeconds: { draw, audio, encode: clock() }, sound, encoding, tabs };
  }

  /**
   * The whole timeline's sound as a 48 kHz stereo 16-bit WAV at `outputPath`, sample for sample
   * what Remotion's audio-only render makes: mixed by ffmpeg from the resolved timeline when it
   * can match it (timeline-sound.ts), else that render (it seeks every frame in the browser).
   * `via` forces one way (tests, measurements).
   */
  async soundTrack(
    args: Pick<RenderArgs, 'props' | 'resolved' | 'outputPath' | 'signal'>,
    via?: SoundPath,
  ): Promise<{ sound_path: SoundPath; sound_fallback?: string }> {
    let fallback: string | undefined;
    if (via === 'ffmpeg' || (via === undefined && this.config.render.mixSound)) {
      const mixer = await this.soundMixer(args);
      if (mixer.ok) {
        await mixer.mix();
        return { sound_path: 'ffmpeg' };
      }
      if (via === 'ffmpeg') throw new Error(`The timeline's sound cannot be mixed without the browser: ${mixer.reason}`);
      fallback = mixer.reason;
    }
    const { renderMedia, makeCancelSignal } = await import('@remotion/renderer');
    const [serveUrl, browser] = await Promise.all([this.serveUrl(), this.openBrowser()]);
    const inputProps = args.props as unknown as Record<string, unknown>;
    const { cancelSignal, cancel } = makeCancelSignal();
    const onAbort = () => cancel();
    args.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await renderMedia({
        composition: compositionOf(args.resolved, inputProps),
        serveUrl,
        inputProps,
        codec: 'wav',
        outputLocation: args.outputPath,
        overwrite: true,
        ...this.pageOptions(browser, cancelSignal, this.drawingTabs(args.resolved)),
      });
    } finally {
      args.signal.removeEventListener('abort', onAbort);
    }
    return { sound_path: 'browser', ...(fallback ? { sound_fallback: fallback } : {}) };
  }

  /** Whether the worker can mix the timeline's sound itself (timeline-sound.ts), and the mix. */
  private soundMixer(args: Pick<RenderArgs, 'props' | 'resolved' | 'outputPath' | 'signal'>): Promise<TimelineSoundMixer> {
    const sources = args.props.sources ?? {};
    return timelineSoundMixer({
      props: args.props,
      resolved: args.resolved,
      fileOf: (url) => (sources[url] ? this.mediaServer.fileAt(sources[url]) : null),
      outputPath: args.outputPath,
      signal: args.signal,
    });
  }

  /**
   * Chosen frames as images (a contact sheet's tiles), drawn by the same composition, browser and
   * page set-up as `render`; each image is handed to `onFrame`.
   */
  async stills(args: StillsArgs): Promise<void> {
    const { renderFrames, makeCancelSignal } = await import('@remotion/renderer');
    const [serveUrl, browser] = await Promise.all([this.serveUrl(), this.openBrowser()]);
    const inputProps = args.props as unknown as Record<string, unknown>;
    if (this.config.render.warmStills && args.frames.length <= WARM_TAB_MAX_FRAMES) {
      // A few frames (a media composite's layers): one after the other on the warm still tab,
      // queued behind any other caller's, instead of a tab opened and loaded for them (≈ 1.5 s).
      // A still job drawing there meanwhile (several renders at once) sends them to their own tab.
      const turn = this.warmStillsQueue.then(async () => {
        if (this.warmStills.busy) return false;
        await this.stillsOnWarmTab(args, browser, serveUrl, inputProps);
        return true;
      });
      this.warmStillsQueue = turn.then(() => undefined, () => undefined);
      if (await turn) return;
    }
    const { cancelSignal, cancel } = makeCancelSignal();
    const onAbort = () => cancel();
    args.signal.addEventListener('abort', onAbort, { once: true });
    const writes: Promise<void>[] = [];
    let writeFailure: unknown = null;
    try {
      await renderFrames({
        composition: compositionOf(args.resolved, inputProps),
        serveUrl,
        inputProps,
        frames: args.frames,
        imageFormat: args.imageFormat,
        ...(args.imageFormat === 'jpeg' ? { jpegQuality: this.config.render.jpegQuality } : {}),
        scale: args.scale,
        outputDir: null,
        onFrameBuffer: (buffer, frame) => {
          // Kept, not thrown here: Remotion would report it as a browser error.
          writes.push(args.onFrame(frame, buffer).catch((error: unknown) => void (writeFailure ??= error)));
        },
        onStart: () => undefined,
        onFrameUpdate: (rendered) => args.onProgress(rendered / args.frames.length),
        // A few frames: a second tab's set-up would cost more than it saves.
        ...this.pageOptions(browser, cancelSignal, 1),
      });
      await Promise.all(writes);
    } catch (error) {
      if (!args.signal.aborted) await this.closeBrowser();
      throw error;
    } finally {
      args.signal.removeEventListener('abort', onAbort);
    }
    if (writeFailure) throw writeFailure;
  }

  /** StillsArgs' frames drawn on the warm still tab, each through a file (the tab's screenshot is written to one). */
  private async stillsOnWarmTab(args: StillsArgs, browser: HeadlessBrowser, bundleDir: string, inputProps: Record<string, unknown>): Promise<void> {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'vrs-layer-'));
    let drawn = 0;
    try {
      await this.warmStills.drawSeries(
        {
          browser,
          bundleDir,
          composition: compositionOf(args.resolved, inputProps),
          scale: args.scale,
          imageFormat: args.imageFormat,
          ...(args.imageFormat === 'jpeg' ? { jpegQuality: this.config.render.jpegQuality } : {}),
          signal: args.signal,
        },
        args.frames,
        (frame) => path.join(folder, `${frame}.${args.imageFormat}`),
        async (frame, output) => {
          await args.onFrame(frame, await readFile(output));
          args.onProgress(++drawn / args.frames.length);
        },
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }

  private serveUrl(): Promise<string> {
    this.bundle ??= ensureCompositionBundle(this.config.render.cacheDir).catch((error) => {
      this.bundle = null;
      throw error;
    });
    return this.bundle;
  }

  private openBrowser(): Promise<HeadlessBrowser> {
    if (this.closing) return Promise.reject(new Error('The renderer is shutting down'));
    this.browser ??= import('@remotion/renderer')
      .then(({ openBrowser }) =>
        openBrowser('chrome', { browserExecutable: this.config.render.browserExecutable, chromiumOptions: CHROMIUM_OPTIONS, logLevel: 'error' }),
      )
      .catch((error) => {
        this.browser = null;
        throw error;
      });
    return this.browser;
  }

  private async closeBrowser(): Promise<void> {
    const browser = this.browser;
    this.browser = null;
    await this.warmStills.close();
    await browser?.then((b) => b.close({ silent: true })).catch(() => undefined);
  }

  /** Waits for a warm-up still under way, so no bundling or browser outlives the application. */
  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    await this.bundle?.catch(() => undefined);
    await Promise.all([this.closeBrowser(), this.mediaServer.stop()]);
  }
}

const execFileAsync = promisify(execFile);

/** A held render's plan: distinct frames with their holds, or frames drawn and mixed. */
type HeldPlan = { kind: 'held'; drawn: DrawnFrames } | { kind: 'blended'; blended: BlendedFrames };

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

/** The VideoConfig of the one composition, from the server's own resolution (no page evaluation). */
function compositionOf(resolved: ResolvedRequest, props: Record<string, unknown>) {
  return {
    id: COMPOSITION_ID,
    width: resolved.width,
    height: resolved.height,
    fps: resolved.fps,
    durationInFrames: resolved.durationInFrames,
    defaultProps: {},
    props,
    defaultCodec: null,
    defaultOutName: null,
    defaultVideoImageFormat: null,
    defaultPixelFormat: null,
    defaultProResProfile: null,
    defaultSampleRate: null,
  };
}

function withSuffix(file: string, suffix: string): string {
  const ext = path.extname(file);
  return `${file.slice(0, -ext.length)}${suffix}${ext}`;
}

/** Where encodeSound puts a sound WAV's AAC encoding, for muxAacAudio to copy. */
export function encodedSoundPath(wavPath: string): string {
  return wavPath.replace(/\.wav$/, '.m4a');
}

/**
 * The sound WAV encoded to AAC beside it (encodedSoundPath; its priming in the edit list), so
 * the final mux only copies. Called where the sound is mixed, which runs beside the video: the
 * encoding (≈ 70 ms per second of sound) then overlaps the video instead of following it.
 * Nothing to do without a WAV (nothing audible).
 */
export async function encodeSound(wavPath: string, signal: AbortSignal): Promise<void> {
  if (!existsSync(wavPath)) return;
  await execFileAsync('ffmpeg', ['-v', 'error', '-y', '-i', wavPath, '-c:a', 'aac', '-b:a', '320k', encodedSoundPath(wavPath)], { signal, timeout: 10 * 60_000 });
}

/**
 * Video stream copied with the sound (the AAC of encodeSound, copied, or else the WAV mix encoded
 * to AAC here with its priming recorded), moov atom up front.
 */
export async function muxAacAudio(videoPath: string, audioPath: string, outputPath: string, signal: AbortSignal): Promise<void> {
  const encoded = encodedSoundPath(audioPath);
  const sound = existsSync(encoded) ? { file: encoded, codec: ['-c:a', 'copy'] } : existsSync(audioPath) ? { file: audioPath, codec: ['-c:a', 'aac', '-b:a', '320k'] } : null;
  if (!sound) {
    await rename(videoPath, outputPath); // nothing audible: no audio track
    return;
  }
  await execFileAsync(
    'ffmpeg',
    ['-v', 'error', '-y', '-i', videoPath, '-i', sound.file, '-map', '0:v', '-map', '1:a', '-c:v', 'copy', ...sound.codec, '-movflags', '+faststart', '-shortest', outputPath],
    { signal, timeout: 10 * 60_000 },
  );
}
