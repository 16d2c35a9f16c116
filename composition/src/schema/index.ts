/**
 * The render request: one zod schema yielding the TypeScript types, runtime validation, JSON
 * Schemas and catalogs, plus the pure resolution into frames and pixels. No React, no CSS and no
 * Node APIs: the server, the worker and the browser Player all import this module.
 */
export type {
  AudioElement, Element, ImageElement, ShapeElement, TextElement, Transcript, VideoElement, VisualElement,
} from './elements';
export { ELEMENT_SCHEMAS, elementSchema } from './elements';
export type { GradientObject, Group, Motion, RenderRequest, Transition } from './request';
export { metadataSchema, renderRequestSchema } from './request';
export { CANVAS_LIMITS, metadataProblem, REQUEST_LIMITS } from './limits';
export { httpUrlProblem, URL_MAX_LENGTH } from './url-rule';
export { validateBodyMember, validateRenderRequest, validationIssue, type ValidationIssue, type ValidationResult } from './validate';
export { findUnsupported, UNSUPPORTED_ELEMENT_FIELDS, UNSUPPORTED_REQUEST_FIELDS } from './unsupported';
export { findViolations, MAX_VIOLATIONS_RETURNED, truncateViolations, type TruncationMarker, type Violation } from './violations';
export {
  DEFAULT_CANVAS, DEFAULT_ELEMENT_SECONDS, DEFAULT_FRAME_RATE, resolveRequest, secondsToFrames,
  type MediaInfo, type ResolvedAudio, type ResolvedBox, type ResolvedElement, type ResolvedImage, type ResolvedMedia,
  type ResolvedRequest, type ResolvedShape, type ResolvedWaveform, type ResolvedText, type ResolvedTextStyle, type ResolvedTiming,
  type ResolvedVideo, type RelativeLength, type ResolvedCaptions, type ResolvedCaptionPage, type ResolvedCaptionWord, type TranscriptWords,
} from './resolve';
export { drawnFrames, type DrawnFrames } from './drawn-frames';
export { blendedFrames, MAX_BLENDED_FACTORS, type BlendedFrames, type BlendedRun } from './blended-frames';
export { captionPages, CAPTION_DEFAULTS, pageText, toSrt, toVtt, type CaptionLayout, type CaptionPage, type CaptionWord } from '../captions/pages';
export { TASK_ID_PATTERN } from './transcript-references';
export { externalSources, type ExternalSource } from './sources';
export { CATALOGS, type CatalogEntry } from './catalogs';
export {
  brandVariables, findPlaceholders, nearestFontFamily, substituteVariables, VARIABLE_NAME_PATTERN,
  type BrandFontFallback, type BrandVariableSource, type Placeholder, type SubstitutionResult, type Variables,
} from './variables';
export { catalogueFamiliesOf, catalogueFamily, catalogueFamilyNames, isShippedFamily, type CatalogueFamily } from './font-families';
export { fitFontSize, type FittedSize } from './fit-text';
export { estimatedAutoFontSize } from './auto-font-size';
export { EMOJI_FAMILIES, fontStack, SCRIPT_FALLBACKS } from './font-fallbacks';
export { elementJsonSchemas, previewRequestJsonSchema, requestJsonSchema } from './json-schema';
export { audioCapabilities } from './audio-capabilities';
export {
  ALPHA_FORMATS, ELEMENT_TYPES, FONT_FAMILIES, FONTS, OUTPUT_FORMATS, type ElementType, type FontFamily, type OutputFormat,
} from './vocabulary';

import type { RenderRequest } from './request';
import type { MediaInfo, TranscriptWords } from './resolve';

/** One font file of `CompositionProps.fontFaces`: the `@font-face` descriptors and where the file is. */
export interface FontFaceSource {
  family: string;
  weight: string;
  style: string;
  unicode_range?: string;
  url: string;
}

/** Input props of the `Main` composition (and of `<Player component={Main}>`). */
// A type alias, not an interface: Remotion requires props assignable to Record<string, unknown>.
export type CompositionProps = {
  request: RenderRequest;
  media: Record<string, MediaInfo>;
  /** Original URL → URL to load instead (the worker's local copies); absent in the browser. */
  sources?: Record<string, string>;
  /** Words of each `transcript.source` (resolved by the server before rendering); captions without them are empty. */
  transcripts?: TranscriptWords;
  /**
   * Parts of the scene left undrawn (transparent): the worker draws the layers below and above
   * video clips it composites itself with ffmpeg. Absent: everything is drawn.
   */
  hidden?: HiddenLayers;
  /**
   * Font files beyond the bundled ones (Google Fonts families fetched by the service, the request's
   * `fonts`): registered as `FontFace`s before any text is measured. The worker passes its local
   * copies; a frontend passes the faces of GET /v1/fonts/{family}.
   */
  fontFaces?: FontFaceSource[];
  /**
   * Frames drawn with the time-varying opacity factor of some elements (fades, transitions and
   * motions' opacity) forced to 0 or 1: the corner pictures the worker blends fading frames from
   * (blended-frames.ts). Absent: every factor as the timeline says.
   */
  fixedOpacity?: FixedOpacity[];
};

/** At composition frame `frame`, element `element` (position in `request.elements`) draws with factor `factor`. */
export type FixedOpacity = { frame: number; element: number; factor: 0 | 1 };

/** Parts of the scene `Main` leaves out. */
export type HiddenLayers = {
  /** Positions in `request.elements`. */
  elements?: number[];
  /** background_color, background_image_url and background_gradient. */
  background?: boolean;
  watermark?: boolean;
};

export const COMPOSITION_ID = 'Main';
export {
  clipFrameRate, planPreview, PREVIEW_DEFAULT_SCALE, PREVIEW_LIMITS, PREVIEW_MODES, previewSchema, timelineSummary,
  type PreviewMode, type PreviewOptions, type PreviewPlan, type RenderedPreviewOptions,
} from './preview';

// What the server reproduces or checks natively (the engine's sound and colour, LUT uploads,
// JSON Patch pointers): pure functions, exported here so no server file reaches into internals.
export { anchorPixels } from './resolve';
export { closestMatch, jsonPointer } from './suggest';
export { CubeParseError, MAX_LUT_BYTES, parseCube } from '../look/lut';
export { gradeSettings, isNeutral } from '../look/colour';
export { fastGrade } from '../look/fast-grade';
export { matteSourceIds } from '../look/matte-sources';
export { mediaVolumeAt } from '../motion/media-volume';
export type { SoundSpan } from '../motion/ducking';
