import { ELEMENT_SCHEMAS } from './elements';
import { renderRequestSchema, type RenderRequest } from './request';
import { jsonPointer } from './suggest';
import type { ValidationIssue } from './validate';
import type { ElementType } from './vocabulary';

/**
 * What the renderer draws, field by field. Everything else the schema accepts is unsupported and
 * is rejected with `unsupported_feature` rather than silently ignored; a field added to the
 * schema is unsupported until it is listed here.
 */
const IDENTITY = ['type', 'id', 'name', 'track', 'time', 'visible', 'fade_in_duration', 'fade_out_duration'];
const MEDIA_TIMING = ['source_url', 'in_point', 'out_point', 'speed', 'volume', 'playback_rate_keyframes', 'duck'];
/** Drawn by composition/src/motion. */
const MOTION = ['motion'];
const LAYOUT = [
  'x', 'y', 'width', 'height', 'aspect_ratio', 'x_anchor', 'y_anchor', 'x_rotation', 'y_rotation', 'z_rotation',
  'x_scale', 'y_scale', 'flip_horizontal', 'flip_vertical', 'opacity', 'z_index',
];

/** The look (composition/src/look): colour, frame, compositing and the effects catalog. */
const COLOUR = [
  'lut_url', 'lut_intensity', 'brightness', 'contrast', 'saturation', 'exposure', 'sharpness', 'blur', 'noise', 'vignette',
  'hue_rotate', 'temperature', 'tint', 'vibrance', 'highlights', 'shadows', 'color_overlay',
];
const SHADOW = ['shadow_color', 'shadow_blur', 'shadow_x', 'shadow_y'];
const FRAME = ['crop_top', 'crop_bottom', 'crop_left', 'crop_right', 'border_radius', 'border_color', 'border_width', ...SHADOW, 'backdrop_blur'];
const COMPOSITING = ['blend_mode', 'mask_shape', 'mask', 'mask_keyframes', 'matte', 'clip', 'effects'];

const RENDERED_ELEMENT_FIELDS: Record<ElementType, ReadonlySet<string>> = {
  video: new Set([...IDENTITY, ...MEDIA_TIMING, ...LAYOUT, ...COLOUR, ...FRAME, ...COMPOSITING, ...MOTION]),
  audio: new Set([...IDENTITY, ...MEDIA_TIMING]),
  image: new Set([...IDENTITY, 'duration', 'source_url', 'fit', ...LAYOUT, ...COLOUR, ...FRAME, ...COMPOSITING, ...MOTION]),
  text: new Set([
    ...IDENTITY, 'duration', ...LAYOUT, 'text', 'font_family', 'font_size', 'min_font_size', 'max_font_size', 'font_weight', 'font_style', 'fill_color',
    'x_alignment', 'y_alignment', 'line_height', 'letter_spacing', 'text_transform', 'text_wrap', 'stroke_color',
    'stroke_width', 'background_color', 'background_x_padding', 'background_y_padding', 'background_border_radius',
    ...SHADOW, ...COMPOSITING, ...MOTION, 'animation_preset', 'transcript',
  ]),
  shape: new Set([...IDENTITY, 'duration', ...LAYOUT, 'shape', 'fill_color', 'stroke_color', 'stroke_width', 'border_radius', ...SHADOW, ...COMPOSITING, ...MOTION]),
  waveform: new Set([
    ...IDENTITY, 'duration', ...LAYOUT, 'source', 'style', 'fill_color', 'bar_count', 'bar_gap', 'bar_radius', 'mirror', 'smoothing',
    'stroke_width', ...SHADOW, ...COMPOSITING, ...MOTION,
  ]),
};

const RENDERED_REQUEST_FIELDS: ReadonlySet<string> = new Set([
  'width', 'height', 'duration', 'frame_rate', 'output_format', 'output_filename', 'background_color',
  'background_image_url', 'alpha', 'elements', 'background_gradient', 'watermark_url', 'metadata', 'webhook_url',
  'ingest_external', 'reuse', 'transitions', 'groups', 'motion_blur', 'custom_animations', 'brand_kit_id', 'audio_normalize', 'fonts',
]);

function without(fields: string[], rendered: ReadonlySet<string>): string[] {
  return fields.filter((field) => !rendered.has(field));
}

/** Accepted but not drawn yet, per element type. */
export const UNSUPPORTED_ELEMENT_FIELDS = Object.fromEntries(
  Object.entries(ELEMENT_SCHEMAS).map(([type, schema]) => [type, without(Object.keys(schema.shape), RENDERED_ELEMENT_FIELDS[type as ElementType])]),
) as Record<ElementType, string[]>;

/** Accepted but not drawn yet, at the request level. */
export const UNSUPPORTED_REQUEST_FIELDS = without(Object.keys(renderRequestSchema.shape), RENDERED_REQUEST_FIELDS);

/**
 * One `unsupported_feature` issue per field present (not null, not an empty list) that the
 * renderer does not draw yet, pointing at the field.
 */
export function findUnsupported(request: RenderRequest): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const field of UNSUPPORTED_REQUEST_FIELDS) {
    if (isSet((request as Record<string, unknown>)[field])) {
      issues.push({
        type: 'unsupported_feature',
        loc: ['body', field],
        msg: `"${field}" is not supported by the renderer yet`,
        pointer: jsonPointer([field]),
      });
    }
  }
  (request.elements ?? []).forEach((element, index) => {
    for (const field of UNSUPPORTED_ELEMENT_FIELDS[element.type]) {
      if (isSet((element as Record<string, unknown>)[field])) {
        issues.push({
          type: 'unsupported_feature',
          loc: ['body', 'elements', index, element.type, field],
          msg: `"${field}" on ${element.type} elements is not supported by the renderer yet`,
          pointer: jsonPointer(['elements', index, field]),
        });
      }
    }
  });
  return issues;
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
}
