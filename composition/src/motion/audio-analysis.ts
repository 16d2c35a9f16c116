import type { AudioLevels } from './element-style';

/**
 * Levels of the composition's own sound for audio-reactive group animations, computed from
 * decoded samples (48 kHz, the same in the render and in the Player): the mix of every audible
 * element in a 2048-sample window centred on the instant, then
 * - amplitude: the window's RMS × √2 (a full-scale sine reads 1),
 * - bass (20–250 Hz), mid (250–4000 Hz), treble (4–20 kHz): the amplitude of the part of the sound
 *   in that band (Hann-windowed FFT, Parseval), so a full-scale sine in the band reads 1.
 * All clipped to 0..1.
 */

export const ANALYSIS_RATE = 48000;
export const WINDOW = 2048;
const BANDS = { bass: [20, 250], mid: [250, 4000], treble: [4000, 20000] } as const;

export interface DecodedSource {
  /** Mono samples at ANALYSIS_RATE. */
  samples: Float32Array;
}

export interface AudibleSpan {
  source: DecodedSource;
  /** Composition seconds where the element starts and ends. */
  start: number;
  end: number;
  /** Source seconds shown at composition second `seconds`. */
  sourceTime: (seconds: number) => number;
  volume: number;
  /** Extra gain at composition second `seconds` (ducking); omitted: 1. */
  gainAt?: (seconds: number) => number;
}

/** The mix in the window centred on `seconds`. */
export function mixWindow(spans: readonly AudibleSpan[], seconds: number): Float32Array {
  const mix = new Float32Array(WINDOW);
  for (const span of spans) {
    for (let j = 0; j < WINDOW; j += 1) {
      const t = seconds + (j - WINDOW / 2) / ANALYSIS_RATE;
      if (t < span.start || t >= span.end) continue;
      const index = Math.floor(span.sourceTime(t) * ANALYSIS_RATE);
      if (index >= 0 && index < span.source.samples.length) mix[j] += span.source.samples[index] * span.volume * (span.gainAt ? span.gainAt(t) : 1);
    }
  }
  return mix;
}

/** In-place radix-2 FFT of real input; returns squared magnitudes of bins 0..N/2. */
export function powerSpectrum(signal: Float32Array): Float64Array {
  const n = signal.length;
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  for (let i = 0; i < n; i += 1) re[i] = signal[i];
  for (let i = 1, j = 0; i < n; i += 1) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j], re[i]];
      [im[i], im[j]] = [im[j], im[i]];
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const angle = (-2 * Math.PI) / size;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < size / 2; k += 1) {
        const wr = Math.cos(angle * k);
        const wi = Math.sin(angle * k);
        const a = start + k;
        const b = a + size / 2;
        const tr = re[b] * wr - im[b] * wi;
        const ti = re[b] * wi + im[b] * wr;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
      }
    }
  }
  const power = new Float64Array(n / 2 + 1);
  for (let k = 0; k <= n / 2; k += 1) power[k] = re[k] * re[k] + im[k] * im[k];
  return power;
}

export function levelsOf(window: Float32Array): AudioLevels {
  const n = window.length;
  let sumSquares = 0;
  for (const sample of window) sumSquares += sample * sample;
  const amplitude = Math.sqrt((2 * sumSquares) / n);
  const hann = new Float32Array(n);
  for (let i = 0; i < n; i += 1) hann[i] = window[i] * 0.5 * (1 - Math.cos((2 * Math.PI * i) / (n - 1)));
  const power = powerSpectrum(hann);
  const band = ([low, high]: readonly [number, number]) => {
    let energy = 0;
    for (let k = 1; k < power.length; k += 1) {
      const frequency = (k * ANALYSIS_RATE) / n;
      if (frequency >= low && frequency < high) energy += power[k];
    }
    // One-sided energy of a Hann-windowed sine of amplitude A is 3 A² N² / 32.
    return Math.sqrt((32 * energy) / (3 * n * n));
  };
  const clip = (value: number) => Math.min(1, Math.max(0, value));
  return { amplitude: clip(amplitude), bass: clip(band(BANDS.bass)), mid: clip(band(BANDS.mid)), treble: clip(band(BANDS.treble)) };
}

/** Lowest and highest frequency a waveform shows; bands between them are log-spaced. */
export const WAVEFORM_RANGE = [50, 12000] as const;
/** Decibels a waveform bar spans: a full-scale sine in a band fills it, 60 dB below is empty. */
export const WAVEFORM_DB_RANGE = 60;

/**
 * Heights (0..1) of `count` log-spaced frequency bands of the window: each band's amplitude (as in
 * levelsOf: a full-scale sine in the band reads 1) on a 60 dB scale.
 */
export function spectrumBars(window: Float32Array, count: number): number[] {
  const n = window.length;
  const hann = new Float32Array(n);
  for (let i = 0; i < n; i += 1) hann[i] = window[i] * 0.5 * (1 - Math.cos((2 * Math.PI * i) / (n - 1)));
  const power = powerSpectrum(hann);
  const binOf = (frequency: number) => (frequency * n) / ANALYSIS_RATE;
  const [low, high] = WAVEFORM_RANGE;
  const bars: number[] = [];
  for (let b = 0; b < count; b += 1) {
    const from = low * (high / low) ** (b / count);
    const to = low * (high / low) ** ((b + 1) / count);
    // Narrow low bands hold less than one bin: they take the bin they fall in.
    const first = Math.max(1, Math.floor(binOf(from)));
    const last = Math.max(first, Math.ceil(binOf(to)) - 1);
    let energy = 0;
    for (let k = first; k <= last && k < power.length; k += 1) energy += power[k];
    const amplitude = Math.sqrt((32 * energy) / (3 * n * n));
    const db = amplitude > 0 ? 20 * Math.log10(amplitude) : -Infinity;
    bars.push(Math.min(1, Math.max(0, (db + WAVEFORM_DB_RANGE) / WAVEFORM_DB_RANGE)));
  }
  return bars;
}
