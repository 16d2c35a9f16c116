import type React from 'react';
import { random } from 'remotion';
import { pixelateBlock } from './pixelate-effect';
import type { ActiveEffect } from './resolve-look';

/**
 * The `effects` catalog as CSS filters, SVG filters and a transform, so they apply to any element
 * (video, image, text, shape) the same way in the render and in a browser Player. Sizes scale
 * with the canvas (a share of its height), so a request looks the same at any resolution.
 * Random parts (grain, glitch, VHS, shake) come from Remotion's seeded `random()`: the same
 * request gives the same frames.
 */
export interface EffectsStyle {
  /** CSS `filter` value (functions and url(#…) references), or undefined. */
  filter: string | undefined;
  /** CSS transform for `shake`, or undefined. */
  transform: string | undefined;
  /** SVG filter definitions the `filter` references. */
  defs: React.ReactNode[];
}

interface Context {
  frame: number;
  canvasWidth: number;
  canvasHeight: number;
  /** Unique per element: prefixes ids and seeds. */
  key: string;
  /** Video and image pictures get pixelate, vignette, film grain, chromatic aberration and glitch in canvas passes (use-grade.ts), not here. */
  pictureOnCanvas: boolean;
}

export function effectsStyle(effects: ActiveEffect[], context: Context): EffectsStyle {
  const filters: string[] = [];
  const defs: React.ReactNode[] = [];
  let transform: string | undefined;
  const unit = context.canvasHeight / 100; // 1 % of the canvas height
  for (const effect of effects) {
    const i = effect.intensity;
    const id = `vrs-${context.key}-fx${effect.index}`;
    const seed = (name: string) => random(`${context.key}-${effect.index}-${name}-${context.frame}`);
    // The filter region, in shares of the element box: room for what spills out (glow, split channels).
    const margin = effect.type === 'glow' ? 1 : 0.25;
    const svg = (node: React.ReactNode) => {
      defs.push(
        <filter key={id} id={id} x={-margin} y={-margin} width={1 + 2 * margin} height={1 + 2 * margin} colorInterpolationFilters="sRGB">
          {node}
        </filter>,
      );
      filters.push(`url(#${id})`);
    };
    switch (effect.type) {
      case 'blur':
        filters.push(`blur(${2 * unit * i}px)`);
        break;
      case 'grayscale':
        filters.push(`grayscale(${i})`);
        break;
      case 'sepia':
        filters.push(`sepia(${i})`);
        break;
      case 'invert':
        filters.push(`invert(${i})`);
        break;
      case 'pixelate': {
        if (context.pictureOnCanvas) break;
        // One sample per block (a 1 px flood tiled every block), dilated over the block.
        const block = pixelateBlock(i, context.canvasHeight);
        const half = Math.floor(block / 2);
        svg(
          <>
            <feFlood x={half} y={half} width={1} height={1} floodColor="#000" />
            <feComposite width={block} height={block} />
            <feTile result="grid" />
            <feComposite in="SourceGraphic" in2="grid" operator="in" />
            <feMorphology operator="dilate" radius={half} />
          </>,
        );
        break;
      }
      case 'vignette': {
        if (context.pictureOnCanvas) break;
        // Multiplied by a radial ramp: untouched in the middle, darker towards the corners.
        const edge = Math.round(255 * (1 - 0.85 * i)).toString(16).padStart(2, '0');
        const ramp = `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" preserveAspectRatio="none"><radialGradient id="g" r="0.75"><stop offset="0.45" stop-color="#fff"/><stop offset="1" stop-color="#${edge}${edge}${edge}"/></radialGradient><rect width="100" height="100" fill="url(#g)"/></svg>`;
        defs.push(
          <filter key={id} id={id} x="0" y="0" width="1" height="1" colorInterpolationFilters="sRGB">
            <feImage href={`data:image/svg+xml,${encodeURIComponent(ramp)}`} preserveAspectRatio="none" result="ramp" />
            <feBlend in="SourceGraphic" in2="ramp" mode="multiply" result="dark" />
            <feComposite in="dark" in2="SourceGraphic" operator="in" />
          </filter>,
        );
        filters.push(`url(#${id})`);
        break;
      }
      case 'film_grain': {
        if (context.pictureOnCanvas) break;
        const amount = 0.9 * i; // turbulence varies little around 0.5: scaled up to about the canvas grain's strength
        svg(
          <>
            <feTurbulence type="fractalNoise" baseFrequency={0.9} numOctaves={2} seed={Math.floor(seed('grain') * 10000)} result="noise" />
            <feColorMatrix in="noise" type="matrix" values="0.33 0.33 0.33 0 0  0.33 0.33 0.33 0 0  0.33 0.33 0.33 0 0  0 0 0 0 1" result="grey" />
            <feComposite in="SourceGraphic" in2="grey" operator="arithmetic" k1={0} k2={1} k3={amount} k4={-amount / 2} result="grainy" />
            <feComposite in="grainy" in2="SourceGraphic" operator="in" />
          </>,
        );
        break;
      }
      case 'chromatic_aberration': {
        if (context.pictureOnCanvas) break;
        const shift = 0.6 * unit * i;
        svg(channelSplit(shift, 0));
        break;
      }
      case 'glitch': {
        if (context.pictureOnCanvas) break;
        // Every frame a new jolt: horizontal bands slide sideways and the channels split, some frames hard.
        const strength = i * (seed('hard') < 0.3 ? 1 + seed('amount') : 0.3 + 0.4 * seed('amount'));
        svg(
          <>
            <feTurbulence type="turbulence" baseFrequency={`0.0001 ${(0.02 + 0.04 * seed('bands')) / unit}`} numOctaves={1} seed={Math.floor(seed('seed') * 10000)} result="bands" />
            <feDisplacementMap in="SourceGraphic" in2="bands" scale={6 * unit * strength} xChannelSelector="R" yChannelSelector="A" result="shifted" />
            {channelSplit(1.2 * unit * strength, 0, 'shifted')}
          </>,
        );
        break;
      }
      case 'vhs': {
        // Colour bleed, soft picture, scanlines, a little noise, and a band that wobbles sideways.
        const lines = `<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="2" fill="#fff"/><rect y="2" width="4" height="2" fill="#${Math.round(255 * (1 - 0.35 * i)).toString(16).padStart(2, '0').repeat(3)}"/></svg>`;
        const lineHeight = Math.max(2, Math.round(0.4 * unit));
        svg(
          <>
            <feGaussianBlur in="SourceGraphic" stdDeviation={`${0.25 * unit * i} 0`} result="soft" />
            {channelSplit(0.5 * unit * i, 0, 'soft', 'bleed')}
            <feImage href={`data:image/svg+xml,${encodeURIComponent(lines)}`} x={0} y={0} width={4} height={2 * lineHeight} preserveAspectRatio="none" result="line" />
            <feTile in="line" result="lines" />
            <feBlend in="bleed" in2="lines" mode="multiply" result="scanned" />
            <feTurbulence type="fractalNoise" baseFrequency={0.8} numOctaves={1} seed={Math.floor(seed('noise') * 10000)} result="noise" />
            <feColorMatrix in="noise" type="matrix" values="0.33 0.33 0.33 0 0  0.33 0.33 0.33 0 0  0.33 0.33 0.33 0 0  0 0 0 0 1" result="grey" />
            <feComposite in="scanned" in2="grey" operator="arithmetic" k1={0} k2={1} k3={0.15 * i} k4={-0.075 * i} result="noisy" />
            <feComposite in="noisy" in2="SourceGraphic" operator="in" />
          </>,
        );
        filters.push(`saturate(${1 - 0.25 * i})`);
        break;
      }
      case 'glow': {
        // The element plus a blurred, brightened copy of itself around it.
        svg(
          <>
            <feGaussianBlur in="SourceGraphic" stdDeviation={1.5 * unit * i} result="halo" />
            <feComposite in="SourceGraphic" in2="halo" operator="arithmetic" k1={0} k2={1} k3={1.2 * i} k4={0} />
          </>,
        );
        break;
      }
      case 'shake': {
        const amplitude = 1.5 * unit * i;
        transform = `translate(${(seed('x') * 2 - 1) * amplitude}px, ${(seed('y') * 2 - 1) * amplitude}px) rotate(${(seed('r') * 2 - 1) * 0.6 * i}deg)`;
        break;
      }
    }
  }
  return { filter: filters.length > 0 ? filters.join(' ') : undefined, transform, defs };
}

/** Red moved right by `dx`, blue left, green in place, added back together (SVG primitives). */
function channelSplit(dx: number, dy: number, input = 'SourceGraphic', result?: string): React.ReactNode {
  return (
    <>
      <feColorMatrix in={input} type="matrix" values="1 0 0 0 0  0 0 0 0 0  0 0 0 0 0  0 0 0 1 0" result="red" />
      <feOffset in="red" dx={dx} dy={dy} result="redShifted" />
      <feColorMatrix in={input} type="matrix" values="0 0 0 0 0  0 1 0 0 0  0 0 0 0 0  0 0 0 1 0" result="green" />
      <feColorMatrix in={input} type="matrix" values="0 0 0 0 0  0 0 0 0 0  0 0 1 0 0  0 0 0 1 0" result="blue" />
      <feOffset in="blue" dx={-dx} dy={-dy} result="blueShifted" />
      <feBlend in="redShifted" in2="green" mode="screen" result="redGreen" />
      <feBlend in="redGreen" in2="blueShifted" mode="screen" result={result} />
    </>
  );
}
