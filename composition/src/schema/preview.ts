import { z } from 'zod';
import { estimatedAutoFontSize } from './auto-font-size';
import { seconds } from './primitives';
import type { RenderRequest } from './request';
import { resolveCanvas, resolveTimeline, type MediaInfo, type ResolvedRequest } from './resolve';
import type { ValidationIssue } from './validate';

/**
 * The `preview` member of a `POST /v1/preview` body (the rest of the body is a render request).
 * `dry_run` answers at once; the other modes are preview jobs drawn by the same composition.
 */
export const PREVIEW_LIMITS = {
  scale: { min: 0.1, max: 1 },
  /** Longest clip, seconds. */
  clip_seconds: 30,
  /** Frame rate of a clip: at most this, and never above the request's own. */
  clip_frame_rate: { min: 1, max: 30, default: 15 },
  contact_sheet_count: { min: 1, max: 48, default: 12 },
} as const;

export const PREVIEW_MODES = ['dry_run', 'frame', 'clip', 'contact_sheet'] as const;
export type PreviewMode = (typeof PREVIEW_MODES)[number];

const scale = (fallback: number) =>
  z
    .number()
    .min(PREVIEW_LIMITS.scale.min)
    .max(PREVIEW_LIMITS.scale.max)
    .optional()
    .describe('Output size as a fraction of the canvas (width and height)')
    .meta({ default: fallback });

const imageFormat = z.enum(['png', 'jpg']).optional().meta({ default: 'png' });

export const PREVIEW_DEFAULT_SCALE = { frame: 1, clip: 0.5, contact_sheet: 0.25 } as const;

const dryRunSchema = z.strictObject({
  mode: z.literal('dry_run'),
  check_sources: z
    .boolean()
    .optional()
    .describe(
      'Sources are checked as a submit checks them (stored assets ready, external URLs reachable) and measured as the render measures them. Omitted: within a few seconds, the rest reported not_checked; true: all, however long they take; false: none is read',
    ),
});

const frameSchema = z.strictObject({
  mode: z.literal('frame'),
  time: seconds.describe('Seconds into the timeline; before its end'),
  scale: scale(PREVIEW_DEFAULT_SCALE.frame),
  format: imageFormat,
});

const clipSchema = z
  .strictObject({
    mode: z.literal('clip'),
    start: seconds.optional().meta({ default: 0 }),
    end: z.number().gt(0).describe(`Seconds into the timeline; after start, at most ${PREVIEW_LIMITS.clip_seconds} s later, not past the end`),
    scale: scale(PREVIEW_DEFAULT_SCALE.clip),
    frame_rate: z
      .int()
      .min(PREVIEW_LIMITS.clip_frame_rate.min)
      .max(PREVIEW_LIMITS.clip_frame_rate.max)
      .optional()
      .describe("Never above the request's own frame rate")
      .meta({ default: PREVIEW_LIMITS.clip_frame_rate.default }),
  })
  .superRefine((clip, ctx) => {
    const start = clip.start ?? 0;
    if (clip.end <= start) {
      ctx.addIssue({ code: 'custom', path: ['end'], message: `end (${clip.end} s) must be after start (${start} s)`, params: { type: 'greater_than' } });
    } else if (clip.end - start > PREVIEW_LIMITS.clip_seconds) {
      ctx.addIssue({
        code: 'custom',
        path: ['end'],
        message: `A clip preview lasts at most ${PREVIEW_LIMITS.clip_seconds} s; end - start is ${round(clip.end - start)} s`,
        params: { type: 'less_than_equal' },
      });
    }
  });

const contactSheetSchema = z.strictObject({
  mode: z.literal('contact_sheet'),
  count: z
    .int()
    .min(PREVIEW_LIMITS.contact_sheet_count.min)
    .max(PREVIEW_LIMITS.contact_sheet_count.max)
    .optional()
    .describe('Frames, spread evenly over the timeline (the middle of each equal part)')
    .meta({ default: PREVIEW_LIMITS.contact_sheet_count.default }),
  columns: z
    .int()
    .min(1)
    .max(PREVIEW_LIMITS.contact_sheet_count.max)
    .optional()
    .describe('Tiles per row; default: the square root of count, rounded up'),
  scale: scale(PREVIEW_DEFAULT_SCALE.contact_sheet).describe('Size of one tile as a fraction of the canvas'),
  format: imageFormat,
});

export const previewSchema = z.discriminatedUnion('mode', [dryRunSchema, frameSchema, clipSchema, contactSheetSchema]);

export type PreviewOptions = z.infer<typeof previewSchema>;
export type RenderedPreviewOptions = Exclude<PreviewOptions, { mode: 'dry_run' }>;

/** Where a preview job reads the timeline, in frames of the frame rate it is drawn at. */
export type PreviewPlan =
  | { mode: 'frame'; fps: number; frame: number; scale: number; format: 'png' | 'jpg' }
  | { mode: 'clip'; fps: number; firstFrame: number; lastFrame: number; scale: number }
  | { mode: 'contact_sheet'; fps: number; frames: number[]; columns: number; scale: number; format: 'png' | 'jpg' };

/**
 * The frames a preview draws, once the timeline is known; problems (a time past the end) are
 * validation issues pointing into `preview`. A clip is drawn at its own, lower frame rate: the
 * caller resolves the request again at `clipFrameRate(...)` before planning it.
 */
export function planPreview(preview: RenderedPreviewOptions, resolved: ResolvedRequest): { plan: PreviewPlan } | { problems: ValidationIssue[] } {
  const end = resolved.durationSeconds;
  const lastFrame = resolved.durationInFrames - 1;
  const fps = resolved.fps;
  const pastEnd = (field: string, value: number, what: string): ValidationIssue => ({
    type: 'less_than',
    loc: ['body', 'preview', field],
    msg: `${what} (${value} s) is not before the end of the timeline (${round(end)} s)`,
    pointer: `/preview/${field}`,
  });
  switch (preview.mode) {
    case 'frame': {
      if (preview.time >= end) return { problems: [pastEnd('time', preview.time, 'time')] };
      const frame = Math.min(lastFrame, frameAt(preview.time, fps));
      return { plan: { mode: 'frame', fps, frame, scale: preview.scale ?? PREVIEW_DEFAULT_SCALE.frame, format: preview.format ?? 'png' } };
    }
    case 'clip': {
      const start = preview.start ?? 0;
      if (start >= end) return { problems: [pastEnd('start', start, 'start')] };
      if (preview.end > end + 1e-9) {
        return {
          problems: [{ type: 'less_than_equal', loc: ['body', 'preview', 'end'], msg: `end (${preview.end} s) is past the end of the timeline (${round(end)} s)`, pointer: '/preview/end' }],
        };
      }
      const firstFrame = Math.min(lastFrame, frameAt(start, fps));
      const last = Math.max(firstFrame, Math.min(lastFrame, Math.ceil(preview.end * fps - 1e-9) - 1));
      return { plan: { mode: 'clip', fps, firstFrame, lastFrame: last, scale: preview.scale ?? PREVIEW_DEFAULT_SCALE.clip } };
    }
    case 'contact_sheet': {
      const count = preview.count ?? PREVIEW_LIMITS.contact_sheet_count.default;
      // The middle of each of `count` equal parts: no tile shows the very first or last instant.
      const frames = [...new Set(Array.from({ length: count }, (_, i) => Math.min(lastFrame, frameAt(((i + 0.5) * end) / count, fps))))];
      const columns = Math.min(frames.length, preview.columns ?? Math.ceil(Math.sqrt(frames.length)));
      return {
        plan: { mode: 'contact_sheet', fps, frames, columns, scale: preview.scale ?? PREVIEW_DEFAULT_SCALE.contact_sheet, format: preview.format ?? 'png' },
      };
    }
  }
}

/** The resolved timeline of a dry run: canvas, length, and when each element (request order) shows. */
export function timelineSummary(request: RenderRequest, media: Record<string, MediaInfo>) {
  const canvas = resolveCanvas(request, media);
  const timeline = resolveTimeline(request, media);
  const fps = timeline.fps;
  return {
    width: canvas.width,
    height: canvas.height,
    frame_rate: fps,
    duration: round(timeline.durationSeconds),
    frame_count: timeline.durationInFrames,
    elements: (request.elements ?? []).map((element, index) => {
      const time = timeline.elements[index];
      return {
        index,
        id: element.id ?? null,
        type: element.type,
        start: round(time.from / fps),
        end: round(Math.max(time.from, time.from + time.durationInFrames) / fps),
        shown: element.visible !== false && time.durationInFrames > 0 && time.from < timeline.durationInFrames,
        // A video or audio length not known without reading the file counts as the schema's fallback.
        length_estimated: (element.type === 'video' || element.type === 'audio') && time.ownSeconds === null,
        // font_size "auto": the size the page is expected to choose (estimated here without glyphs).
        ...(element.type === 'text' && element.font_size === 'auto' ? { font_size: estimatedAutoFontSize(element, canvas, media)?.size ?? null } : {}),
      };
    }),
  };
}

/** A clip's frame rate: as asked (default 15), never above the request's. */
export function clipFrameRate(preview: { frame_rate?: number }, requestFps: number): number {
  return Math.min(requestFps, preview.frame_rate ?? PREVIEW_LIMITS.clip_frame_rate.default);
}

/** The frame on screen at `time`: the one that starts at or before it. */
function frameAt(time: number, fps: number): number {
  return Math.floor(time * fps + 1e-6);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
