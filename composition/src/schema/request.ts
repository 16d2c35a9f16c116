import { checkFontFamilies } from './font-families';
import { z } from 'zod';
import { elementSchema, motionSchema } from './elements';
import { checkEasing, easingFields } from './easing-fields';
import { CANVAS_LIMITS, metadataProblem, REQUEST_LIMITS } from './limits';
import { checkMotionReferences } from './motion-references';
import { checkSoundReferences } from './sound-references';
import { checkTranscriptSources } from './transcript-references';
import { angle, color, fraction, length, percent, point, positiveSeconds, reference, seconds, url } from './primitives';
import { ALPHA_FORMATS, AUDIO_FEATURES, DIRECTIONS, MOTIONS, OUTPUT_FORMATS, TRANSITIONS } from './vocabulary';

/** The render request (body of `POST /v1/renders`). */

const GRADIENT_CSS_PATTERN = /^\s*(?:linear|radial)-gradient\s*\(/;
/**
 * The CSS form goes straight into a `background` declaration, so anything that could load a
 * resource (url(), image-set(), @import) or escape the declaration is refused.
 */
const UNSAFE_CSS_PATTERN = /url\s*\(|image(?:-set)?\s*\(|cross-fade\s*\(|element\s*\(|var\s*\(|[;{}@\\<>]/i;

const gradientObjectSchema = z.strictObject({
  type: z.enum(['linear', 'radial']),
  angle: angle.optional().describe('Linear only; 0deg points up, 90deg right (CSS)').meta({ default: '180deg' }),
  stops: z
    .array(z.strictObject({ color, offset: z.number().min(0).max(1).describe('0 = start, 1 = end') }))
    .min(2)
    .max(REQUEST_LIMITS.list_items),
});

const gradientSchema = z.union(
  [
    z
      .string()
      .max(2000)
      .regex(GRADIENT_CSS_PATTERN, { error: 'A gradient string should be a CSS linear-gradient(…) or radial-gradient(…)' })
      .refine((css) => !UNSAFE_CSS_PATTERN.test(css), {
        error: 'A gradient string may only hold colours, angles and positions (no url(), var(), ";", braces)',
      }),
    gradientObjectSchema,
  ],
  { error: 'Input should be a CSS gradient string or a gradient object' },
);

const transitionSchema = z.strictObject({
  type: z.enum(TRANSITIONS),
  duration: positiveSeconds.optional().meta({ default: 0.5 }),
  from_id: reference,
  to_id: reference,
  z_index: z.int().min(-10000).max(10000).optional(),
});

const groupAnimationSchema = z.strictObject({
  time: z.union([seconds, z.enum(['start', 'end'])], { error: 'Input should be seconds, "start" or "end"' }).optional(),
  duration: positiveSeconds.optional(),
  type: z.enum(MOTIONS).optional(),
  custom: reference.optional(),
  ...easingFields,
  reversed: z.boolean().optional(),
  direction: z.enum(DIRECTIONS).optional(),
  scope: z.enum(['group', 'members']).optional(),
  delay: seconds.optional(),
  spacing: seconds.optional().describe('Seconds between members when scope is members'),
  loop: z.boolean().optional(),
  audio: z
    .strictObject({
      feature: z.enum(AUDIO_FEATURES),
      scale: z.number().optional(),
      opacity: z.number().optional(),
      translate: z.number().optional(),
      rotate: z.number().optional(),
    })
    .optional(),
}).superRefine(checkEasing);

const groupSchema = z.strictObject({
  id: reference,
  parent: reference.optional(),
  pivot: point.optional(),
  translate: point.optional(),
  scale: percent().optional(),
  rotation_degrees: z.number().optional(),
  x_rotation: angle.optional(),
  y_rotation: angle.optional(),
  opacity: fraction.optional(),
  members: z.array(reference).min(1).max(REQUEST_LIMITS.elements),
  animations: z.array(groupAnimationSchema).max(REQUEST_LIMITS.list_items).optional(),
  layout: z
    .strictObject({
      type: z.literal('stack'),
      direction: z.enum(['row', 'column']).optional(),
      gap: z.number().min(0).optional(),
      align: z.enum(['start', 'center', 'end']).optional(),
      origin: point.optional(),
    })
    .optional(),
});

const customKeyframeSchema = z.strictObject({
  offset: z.number().min(0).max(1).describe('Position in the animation, 0 to 1'),
  x: length.optional(),
  y: length.optional(),
  x_scale: percent().optional(),
  y_scale: percent().optional(),
  z_rotation: angle.optional(),
  opacity: fraction.optional(),
  ...easingFields,
}).superRefine(checkEasing);

/** Caller key-value pairs, echoed on the job and its webhooks; bounded in bytes and depth. */
export const metadataSchema = z
  .record(z.string().max(REQUEST_LIMITS.name_length), z.unknown())
  .superRefine((metadata, ctx) => {
    const problem = metadataProblem(metadata);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, params: { type: 'value_error' } });
  })
  .meta({ 'x-max-bytes': REQUEST_LIMITS.metadata_bytes, 'x-max-depth': REQUEST_LIMITS.metadata_depth });

const customAnimationsSchema = z.strictObject({
  element: z
    .array(z.strictObject({ name: reference, duration: positiveSeconds.optional(), keyframes: z.array(customKeyframeSchema).min(2).max(REQUEST_LIMITS.list_items) }))
    .max(REQUEST_LIMITS.custom_animations)
    .optional(),
  text: z
    .array(
      z.strictObject({
        name: reference,
        split: z.enum(['letter', 'word', 'line']),
        stagger: seconds.optional(),
        duration: positiveSeconds.optional(),
        keyframes: z.array(customKeyframeSchema).min(2).max(REQUEST_LIMITS.list_items),
      }),
    )
    .max(REQUEST_LIMITS.custom_animations)
    .optional(),
});

export const renderRequestSchema = z
  .strictObject({
    width: z.int().min(CANVAS_LIMITS.size.min).max(CANVAS_LIMITS.size.max).nullish().describe('Set together with height; omitted: the first visual media size, else 1920'),
    height: z.int().min(CANVAS_LIMITS.size.min).max(CANVAS_LIMITS.size.max).nullish().describe('Set together with width; omitted: the first visual media size, else 1080'),
    duration: z.number().gt(0).nullish().describe('Seconds; omitted: the end of the last element'),
    frame_rate: z.int().min(CANVAS_LIMITS.frame_rate.min).max(CANVAS_LIMITS.frame_rate.max).nullish().meta({ default: CANVAS_LIMITS.frame_rate.default }),
    output_format: z.enum(OUTPUT_FORMATS).optional().meta({ default: 'mp4' }),
    output_filename: z
      .string()
      .min(1)
      .max(200)
      // eslint-disable-next-line no-control-regex -- the pattern exists to refuse control characters
      .regex(/^[^/\\\u0000-\u001f]+$/, { error: 'A filename may not contain slashes or control characters' })
      .nullish()
      .describe('Without extension'),
    background_color: color.optional().meta({ default: '#000000ff' }),
    background_image_url: url.nullish().describe('Covers the canvas, behind every element'),
    alpha: z.boolean().optional().describe('Transparent output; webm and mov only').meta({ default: false }),
    elements: z.array(elementSchema).max(REQUEST_LIMITS.elements).optional(),
    fonts: z
      .array(
        z.strictObject({
          family: z.string().min(1).max(100).optional().describe('The name text elements use in font_family; omitted: the family name inside the file'),
          source_url: url.describe('A ttf, otf, woff or woff2 file (http(s) URL or an uploaded asset\'s URL), at most 20 MB'),
          weight: z.int().min(100).max(900).multipleOf(100).optional().meta({ default: 400 }),
          style: z.enum(['normal', 'italic']).optional().meta({ default: 'normal' }),
        }),
      )
      .max(20)
      .nullish()
      .describe('Font files registered for this render (custom and brand fonts)'),
    transitions: z.array(transitionSchema).max(REQUEST_LIMITS.transitions).optional(),
    groups: z.array(groupSchema).max(REQUEST_LIMITS.groups).optional(),
    motion_blur: z
      .strictObject({
        samples: z.int().min(2).max(64).optional().meta({ default: 8 }),
        shutter: z.number().gt(0).max(1).optional().describe('Fraction of the frame interval the shutter is open').meta({ default: 0.5 }),
      })
      .nullish(),
    background_gradient: gradientSchema.nullish().describe('Canvas-sized fill above background_image_url, behind every element'),
    watermark_url: url.nullish().describe('Image drawn above everything, bottom right'),
    custom_animations: customAnimationsSchema.nullish(),
    metadata: metadataSchema.optional(),
    webhook_url: url.nullish(),
    ingest_external: z.boolean().nullish(),
    reuse: z
      .boolean()
      .nullish()
      .describe('false: always render, even when an identical earlier render of the workspace is still stored (default: reuse it at no cost)'),
    audio_normalize: z
      .strictObject({
        target_lufs: z.number().min(-40).max(-5).optional().describe('Integrated loudness of the output, LUFS (EBU R128)').meta({ default: -14 }),
        true_peak_db: z.number().min(-9).max(0).optional().describe('Ceiling for the true peak, dBTP').meta({ default: -1 }),
      })
      .nullish()
      .describe('Measure the final mix (EBU R128, two passes) and bring it to the target; the job output reports the measured loudness'),
    brand_kit_id: z
      .string()
      .max(100)
      .regex(/^bk_[A-Za-z0-9]{1,64}$/, { error: 'A brand kit id looks like "bk_…" (GET /v1/brand-kits)' })
      .nullish()
      .describe('A ready brand kit of the workspace: its values become the {{brand.palette.primary}}, {{brand.fonts.heading}}, {{brand.logo_url}}, … variables of string fields'),
  })
  .superRefine((request, ctx) => {
    const hasWidth = request.width != null;
    const hasHeight = request.height != null;
    if (hasWidth !== hasHeight) {
      const missing = hasWidth ? 'height' : 'width';
      const present = hasWidth ? 'width' : 'height';
      ctx.addIssue({
        code: 'custom',
        path: [missing],
        message: `${missing} is required when ${present} is set (set both or neither)`,
        params: { type: 'missing' },
      });
    }
    checkMotionReferences(request, ctx);
    checkSoundReferences(request, ctx);
    checkTranscriptSources(request, ctx);
    checkFontFamilies(request, ctx);
    const format = request.output_format ?? 'mp4';
    if (request.alpha && !ALPHA_FORMATS.includes(format)) {
      ctx.addIssue({
        code: 'custom',
        path: ['alpha'],
        message: `alpha: true needs output_format "webm" or "mov", not "${format}"`,
        params: { type: 'value_error' },
      });
    }
  });

export type RenderRequest = z.infer<typeof renderRequestSchema>;
export type GradientObject = z.infer<typeof gradientObjectSchema>;
export type Transition = z.infer<typeof transitionSchema>;
export type Group = z.infer<typeof groupSchema>;
export type Motion = z.infer<typeof motionSchema>;
