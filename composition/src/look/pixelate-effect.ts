import { createEffect } from 'remotion';

/**
 * The `pixelate` effect on a video or image picture, as a canvas pass: the picture is drawn
 * `block` times smaller with smoothing (each block averaged), then scaled back up without it.
 * The SVG route taken for text and shapes (effects.tsx) costs many times more on a full picture.
 */
export interface PixelateParams {
  /** Block size in canvas pixels. */
  block: number;
  /** The element box width in canvas pixels: the picture's own pixels are scaled to it. */
  boxWidth: number;
}

export const pixelateEffect = createEffect<PixelateParams, { small: CanvasRenderingContext2D }>({
  type: 'video-render-service/pixelate',
  label: 'Pixelate',
  documentationLink: null,
  backend: '2d',
  calculateKey: (params) => `${params.block}@${params.boxWidth}`,
  setup: () => {
    const small = document.createElement('canvas').getContext('2d');
    if (!small) throw new Error('Pixelate needs a 2D canvas');
    return { small };
  },
  apply: ({ source, target, state, params, width, height }) => {
    const block = Math.max(1, (params.block * width) / Math.max(1, params.boxWidth));
    const columns = Math.max(1, Math.ceil(width / block));
    const rows = Math.max(1, Math.ceil(height / block));
    const { small } = state;
    small.canvas.width = columns;
    small.canvas.height = rows;
    small.imageSmoothingEnabled = true;
    small.imageSmoothingQuality = 'high';
    small.drawImage(source, 0, 0, columns * block, rows * block, 0, 0, columns, rows);
    const context = target.getContext('2d')!;
    context.clearRect(0, 0, width, height);
    context.imageSmoothingEnabled = false;
    context.drawImage(small.canvas, 0, 0, columns, rows, 0, 0, columns * block, rows * block);
  },
  cleanup: () => undefined,
  schema: {},
  validateParams: () => undefined,
});

/** Block size in canvas pixels at `intensity`: 5 % of the canvas height at 1, at least 2. */
export function pixelateBlock(intensity: number, canvasHeight: number): number {
  return Math.max(2, Math.round(1 + 5 * (canvasHeight / 100) * intensity));
}
