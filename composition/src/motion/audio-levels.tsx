import { getAudioData } from '@remotion/media-utils';
import type React from 'react';
import { createContext, useEffect, useMemo, useState } from 'react';
import { useDelayRender, useRemotionEnvironment } from 'remotion';
import { reportPreviewProblem, whyUnreadable } from '../preview-problems';
import type { ResolvedRequest } from '../schema/resolve';
import { ANALYSIS_RATE, levelsOf, mixWindow, type AudibleSpan, type DecodedSource } from './audio-analysis';
import { duckGain } from './ducking';
import { sourceSeconds } from './time-remap';
import { AudioLevelsContext } from './use-element-motion';

function listens(resolved: ResolvedRequest): boolean {
  return resolved.elements.some((element) => {
    if (element.type === 'waveform') return true;
    const groups = element.animation?.groups;
    return !!groups && (groups.audio.length > 0 || groups.layers.some((layer) => layer.audio.length > 0));
  });
}

/** The decoded sound of every audible element, placed on the timeline (`index`: position in the request). */
export const SoundSpansContext = createContext<ReadonlyArray<AudibleSpan & { index: number }> | null>(null);

/**
 * Decodes the sound of every audible element (once, before the first frame) when an animation
 * listens to the composition's audio or a waveform shows it, and provides its levels per instant
 * and the decoded spans.
 */
export const AudioLevelsProvider: React.FC<{ resolved: ResolvedRequest; load: (url: string) => string; children: React.ReactNode }> = ({ resolved, load, children }) => {
  if (!listens(resolved)) return <>{children}</>;
  return <AudioLevelsLoader resolved={resolved} load={load}>{children}</AudioLevelsLoader>;
};

const AudioLevelsLoader: React.FC<{ resolved: ResolvedRequest; load: (url: string) => string; children: React.ReactNode }> = ({ resolved, load, children }) => {
  const { delayRender, continueRender, cancelRender } = useDelayRender();
  const { isPlayer } = useRemotionEnvironment();
  const [decoded, setDecoded] = useState<Map<string, DecodedSource> | null>(null);
  const audible = useMemo(
    () => resolved.elements.flatMap((element) => ((element.type === 'audio' || element.type === 'video') && element.volume > 0 ? [element] : [])),
    [resolved],
  );
  useEffect(() => {
    const handle = delayRender('Decoding audio for audio-reactive animations');
    const urls = [...new Set(audible.map((element) => element.src))];
    Promise.all(
      urls.map(async (url) => {
        const data = await getAudioData(load(url), { sampleRate: ANALYSIS_RATE }).catch(async (error: unknown) => {
          const isAudio = audible.some((element) => element.src === url && element.type === 'audio');
          // In a <Player> the page may be refused what the render reads (CORS): reported, heard as silence.
          if (isPlayer) {
            const { readable, reason } = await whyUnreadable(load(url));
            if (isAudio || !readable) {
              const message = `the sound of ${url} cannot be read in this page: ${reason}. Waveforms and audio-reactive motion treat it as silence.`;
              reportPreviewProblem({ kind: 'sound', url, message });
            }
            return null;
          }
          // A video without a sound track is silence in the mix; an audio element must be heard.
          if (isAudio) throw new Error(`Cannot decode the sound of ${url} for the audio-reactive animations: ${String(error)}`);
          return null;
        });
        if (!data) return [url, { samples: new Float32Array(0) }] as const;
        const channels = data.channelWaveforms;
        const samples = new Float32Array(channels[0].length);
        for (const channel of channels) for (let i = 0; i < samples.length; i += 1) samples[i] += channel[i] / channels.length;
        return [url, { samples }] as const;
      }),
    )
      .then((entries) => {
        setDecoded(new Map(entries));
        continueRender(handle);
      })
      .catch((error) => cancelRender(error));
    // Decoding runs once per set of sources.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [audible]);
  const spans = useMemo(
    () =>
      decoded
        ? audible.map((element) => ({
            index: element.index,
            source: decoded.get(element.src)!,
            start: element.from / resolved.fps,
            end: (element.from + element.durationInFrames) / resolved.fps,
            sourceTime: (seconds: number) => sourceSeconds(element, seconds - element.from / resolved.fps, resolved.fps),
            volume: element.volume,
            // What is heard: ducking lowers the element in the mix as it does in the output.
            gainAt: element.duck ? (seconds: number) => duckGain(element.duck, seconds) : undefined,
          }))
        : [],
    [decoded, audible, resolved.fps],
  );
  const levelsAt = useMemo(() => {
    // Every listening element asks for the same instant: analyse it once.
    const cache = new Map<number, ReturnType<typeof levelsOf>>();
    return (seconds: number) => {
      let levels = cache.get(seconds);
      if (!levels) {
        if (cache.size > 256) cache.clear();
        levels = levelsOf(mixWindow(spans, seconds));
        cache.set(seconds, levels);
      }
      return levels;
    };
  }, [spans]);
  return (
    <SoundSpansContext.Provider value={spans}>
      <AudioLevelsContext.Provider value={levelsAt}>{children}</AudioLevelsContext.Provider>
    </SoundSpansContext.Provider>
  );
};
