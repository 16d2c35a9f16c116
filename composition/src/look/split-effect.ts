import { createEffect, random } from 'remotion';

/**
 * `chromatic_aberration` and `glitch` on a video or image picture, as a canvas pass (effects.tsx
 * draws them with SVG filters on text and shapes, which costs several times more on a full
 * picture): horizontal bands of the picture slide sideways (glitch), then the red channel is drawn
 * shifted right and the blue one left, added back together. Channels are isolated by multiplying
 * with pure red, green and blue, and added with the `lighter` operation.
 */
export interface SplitParams {
  /** Channel shift in canvas pixels. */
  shift: number;
  /** Bands that slide: top and bottom as shares of the height, the slide in canvas pixels. */
  bands: { top: number; bottom: number; slide: number }[];
  /** The element box width in canvas pixels: the picture's own pixels are scaled to it. */
  boxWidth: number;
}

interface SplitState {
  slid: CanvasRenderingContext2D;
  channel: CanvasRenderingContext2D;
}

function context2d(): CanvasRenderingContext2D {
  const context = document.createElement('canvas').getContext('2d');
  if (!context) throw new Error('The channel split needs a 2D canvas');
  return context;
}

function sizeTo(context: CanvasRenderingContext2D, width: number, height: number): void {
  if (context.canvas.width !== width || context.canvas.height !== height) {
    context.canvas.width = width;
    context.canvas.height = height;
  }
}

/**
 * The split of this frame, in a box written while rendering: a video redraws every frame and reads
 * it then (its effect key stays the same), an image is redrawn when the key (the split) changes.
 */
export interface SplitEffectParams {
  box: { value: SplitParams };
  video: boolean;
}

export const splitEffect = createEffect<SplitEffectParams, SplitState>({
  type: 'video-render-service/split',
  label: 'Channel split',
  documentationLink: null,
  backend: '2d',
  calculateKey: (params) => (params.video ? 'every frame' : JSON.stringify(params.box.value)),
  setup: () => ({ slid: context2d(), channel: context2d() }),
  apply: ({ source, target, state, params: { box }, width, height }) => {
    const params = box.value;
    const scale = width / Math.max(1, params.boxWidth);
    const { slid, channel } = state;
    sizeTo(slid, width, height);
    sizeTo(channel, width, height);
    slid.globalCompositeOperation = 'source-over';
    slid.clearRect(0, 0, width, height);
    slid.drawImage(source, 0, 0, width, height);
    for (const band of params.bands) {
      const top = Math.round(band.top * height);
      const bandHeight = Math.max(1, Math.round((band.bottom - band.top) * height));
      slid.clearRect(0, top, width, bandHeight);
      slid.drawImage(source, 0, top, width, bandHeight, band.slide * scale, top, width, bandHeight);
    }
    const output = target.getContext('2d')!;
    output.globalCompositeOperation = 'source-over';
    output.clearRect(0, 0, width, height);
    const shift = params.shift * scale;
    for (const [colour, dx] of [['#ff0000', shift], ['#00ff00', 0], ['#0000ff', -shift]] as const) {
      channel.globalCompositeOperation = 'source-over';
      channel.clearRect(0, 0, width, height);
      channel.drawImage(slid.canvas, 0, 0);
      channel.globalCompositeOperation = 'multiply';
      channel.fillStyle = colour;
      channel.fillRect(0, 0, width, height);
      // Keep the picture's own transparency (the fill covered everything).
      channel.globalCompositeOperation = 'destination-in';
      channel.drawImage(slid.canvas, 0, 0);
      output.globalCompositeOperation = 'lighter';
      output.drawImage(channel.canvas, dx, 0);
    }
    output.globalCompositeOperation = 'source-over';
  },
  cleanup: () => undefined,
  schema: {},
  validateParams: () => undefined,
});

/** The split of the catalog effects at this frame (intensity 0..1), in canvas pixels; null when neither is on. */
export function splitParams(
  chromatic: number,
  glitch: number,
  context: { canvasHeight: number; boxWidth: number; seed: string },
): SplitParams | null {
  if (chromatic <= 0 && glitch <= 0) return null;
  const unit = context.canvasHeight / 100;
  const draw = (name: string) => random(`${context.seed}-${name}`);
  // Glitch: every frame a jolt, about a third of them hard (as effects.tsx does on text and shapes).
  const strength = glitch > 0 ? glitch * (draw('hard') < 0.3 ? 1 + draw('amount') : 0.3 + 0.4 * draw('amount')) : 0;
  const bands: SplitParams['bands'] = [];
  if (strength > 0) {
    const count = 2 + Math.floor(draw('count') * 5);
    for (let i = 0; i < count; i += 1) {
      const top = draw(`top${i}`);
      const size = 0.02 + 0.1 * draw(`size${i}`);
      bands.push({ top, bottom: Math.min(1, top + size), slide: (draw(`slide${i}`) * 2 - 1) * 6 * unit * strength });
    }
  }
  return { shift: 0.6 * unit * chromatic + 1.2 * unit * strength, bands, boxWidth: context.boxWidth };
}
