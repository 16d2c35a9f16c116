import type React from 'react';
import { useContext, useMemo } from 'react';
import { useCurrentFrame, useVideoConfig } from 'remotion';
import { mixWindow, spectrumBars } from '../motion/audio-analysis';
import { SoundSpansContext } from '../motion/audio-levels';
import type { ResolvedWaveform } from '../schema';
import { ElementBox } from './ElementBox';

/** Thinnest bar drawn, px, so a silent waveform still shows where it is. */
const BASELINE = 2;

/**
 * An audiogram: the spectrum of the chosen sound (or the mix) at the current instant, decoded by
 * the same code in the render and the Player. Smoothing lets levels fall back over the previous
 * frames (up to a third of a second): each bar is the highest of its recent values, weighed down
 * linearly with age. Every frame is computed from the sound alone, so frames render in any order.
 */
export const WaveformLayer: React.FC<{ element: ResolvedWaveform }> = ({ element }) => {
  const frame = useCurrentFrame();
  const { fps } = useVideoConfig();
  const spans = useContext(SoundSpansContext);
  const shown = useMemo(
    () => (spans ?? []).filter((span) => element.sourceIndex === null || span.index === element.sourceIndex),
    [spans, element.sourceIndex],
  );
  const barsAt = useMemo(() => {
    const cache = new Map<number, number[]>();
    return (composition: number) => {
      let bars = cache.get(composition);
      if (!bars) {
        if (cache.size > 64) cache.clear();
        bars = spectrumBars(mixWindow(shown, composition / fps), element.barCount);
        cache.set(composition, bars);
      }
      return bars;
    };
  }, [shown, fps, element.barCount]);
  const now = element.from + frame;
  const history = Math.round((element.smoothing * fps) / 3);
  const levels = barsAt(now).slice();
  for (let age = 1; age <= history; age += 1) {
    const weight = 1 - age / (history + 1);
    barsAt(now - age).forEach((value, band) => (levels[band] = Math.max(levels[band], value * weight)));
  }
  const { width, height } = element.box;
  const slot = width / element.barCount;
  const heightOf = (level: number) => Math.min(height, Math.max(BASELINE, level * height));
  const top = (barHeight: number) => (element.mirror ? (height - barHeight) / 2 : height - barHeight);
  return (
    <ElementBox box={element.box} timing={element}>
      <svg width={width} height={height} style={{ display: 'block', overflow: 'visible' }}>
        {element.style === 'bars' ? (
          levels.map((level, band) => {
            const barHeight = heightOf(level);
            const barWidth = slot * (1 - element.barGap);
            return (
              <rect
                key={band}
                x={band * slot + (slot - barWidth) / 2}
                y={top(barHeight)}
                width={barWidth}
                height={barHeight}
                rx={Math.min(element.barRadius, barWidth / 2)}
                fill={element.fillColor}
              />
            );
          })
        ) : (
          <>
            <polyline
              points={levels.map((level, band) => `${(band + 0.5) * slot},${top(heightOf(level))}`).join(' ')}
              fill="none"
              stroke={element.fillColor}
              strokeWidth={element.strokeWidth}
              strokeLinejoin="round"
              strokeLinecap="round"
            />
            {element.mirror ? (
              <polyline
                points={levels.map((level, band) => `${(band + 0.5) * slot},${top(heightOf(level)) + heightOf(level)}`).join(' ')}
                fill="none"
                stroke={element.fillColor}
                strokeWidth={element.strokeWidth}
                strokeLinejoin="round"
                strokeLinecap="round"
              />
            ) : null}
          </>
        )}
      </svg>
    </ElementBox>
  );
};
