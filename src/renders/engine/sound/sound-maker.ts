import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import * as os from 'node:os';
import type { AppConfig } from '../../../config/app-config';
import { runFfmpeg } from '../../../infra/media/media-runner';
import { compositionOf, type BrowserHost } from '../browser/browser-host';
import { drawingTabs } from '../browser/tabs';
import type { MediaServer } from '../media-server';
import type { SoundPlan } from '../planner/render-plan';
import type { RenderArgs } from '../render-args';
import type { Measured, SoundPath } from '../render-report';
import { timelineSoundMixer, type TimelineSoundMixer } from './timeline-sound';


type SoundArgs = Pick<RenderArgs, 'props' | 'resolved' | 'outputPath' | 'signal'>;

/**
 * The timeline's sound as a 48 kHz stereo 16-bit WAV, sample for sample what Remotion's
 * audio-only render makes: mixed by ffmpeg from the resolved timeline where it can match it
 * (timeline-sound.ts), else that render (it seeks every frame in the browser).
 */
export class SoundMaker {
  constructor(
    private readonly config: AppConfig['render'],
    private readonly browser: BrowserHost,
    private readonly mediaServer: MediaServer,
  ) {}

  /**
   * The sound a plan asks a strategy to make beside or after its pictures, written to
   * `audioPath` and encoded to AAC beside it (encodeSound); null when the plan makes none this way
   * (no sound, or the page collects it while drawing).
   */
  async make(args: Omit<SoundArgs, 'outputPath'>, sound: SoundPlan, audioPath: string): Promise<Pick<Measured, 'sound_path' | 'sound_fallback'> | null> {
    if (sound.via !== 'ffmpeg' && sound.via !== 'page_audio_pass') return null;
    const made = await this.soundTrack({ ...args, outputPath: audioPath }, sound.via === 'ffmpeg' ? 'ffmpeg' : 'browser');
    await encodeSound(audioPath, args.signal);
    return { ...made, ...(sound.via === 'page_audio_pass' && sound.reason ? { sound_fallback: sound.reason } : {}) };
  }

  /**
   * The whole timeline's sound at `outputPath`. `via` forces one way (the plan, tests); without
   * it, the worker's mix when RENDER_MIX_SOUND allows and it can match, else the page's.
   */
  async soundTrack(args: SoundArgs, via?: SoundPath): Promise<{ sound_path: SoundPath; sound_fallback?: string }> {
    let fallback: string | undefined;
    if (via === 'ffmpeg' || (via === undefined && this.config.mixSound)) {
      const mixer = await this.mixer(args);
      if (mixer.ok) {
        await mixer.mix();
        return { sound_path: 'ffmpeg' };
      }
      if (via === 'ffmpeg') throw new Error(`The timeline's sound cannot be mixed without the browser: ${mixer.reason}`);
      fallback = mixer.reason;
    }
    const { renderMedia, makeCancelSignal } = await import('@remotion/renderer');
    const [serveUrl, browser] = await Promise.all([this.browser.serveUrl(), this.browser.openBrowser()]);
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
        ...this.browser.pageOptions(browser, cancelSignal, drawingTabs(args.resolved, { tabs: this.config.tabs, cores: os.availableParallelism() })),
      });
    } finally {
      args.signal.removeEventListener('abort', onAbort);
    }
    return { sound_path: 'browser', ...(fallback ? { sound_fallback: fallback } : {}) };
  }

  /** The worker's own mix of the timeline (timeline-sound.ts), or why it cannot match the browser's. */
  private mixer(args: SoundArgs): Promise<TimelineSoundMixer> {
    const sources = args.props.sources ?? {};
    return timelineSoundMixer({
      props: args.props,
      resolved: args.resolved,
      fileOf: (url) => (sources[url] ? this.mediaServer.fileAt(sources[url]) : null),
      outputPath: args.outputPath,
      signal: args.signal,
    });
  }
}

/** Where encodeSound puts a sound WAV's AAC encoding, for muxAacAudio to copy. */
export function encodedSoundPath(wavPath: string): string {
  return wavPath.replace(/\.wav$/, '.m4a');
}

/**
 * The sound WAV encoded to AAC beside it (encodedSoundPath; its priming in the edit list), so
 * the final mux only copies. Called where the sound is mixed, which runs beside the video: the
 * encoding then overlaps the video instead of following it. Nothing to do without a WAV.
 */
export async function encodeSound(wavPath: string, signal: AbortSignal): Promise<void> {
  if (!existsSync(wavPath)) return;
  await runFfmpeg(['-v', 'error', '-y', '-i', wavPath, '-c:a', 'aac', '-b:a', '320k', encodedSoundPath(wavPath)], { signal, timeoutMs: 10 * 60_000 });
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
  await runFfmpeg(
    ['-v', 'error', '-y', '-i', videoPath, '-i', sound.file, '-map', '0:v', '-map', '1:a', '-c:v', 'copy', ...sound.codec, '-movflags', '+faststart', '-shortest', outputPath],
    { signal, timeoutMs: 10 * 60_000 },
  );
}
