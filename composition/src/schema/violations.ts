import type { Element, VisualElement } from './elements';
import { estimatedAutoFontSize } from './auto-font-size';
import { HEX_COLOR_PATTERN } from './primitives';
import type { RenderRequest } from './request';
import { anchorPixels, resolveBox, resolveCanvas, resolveTimeline, type Canvas, type MediaInfo } from './resolve';
import { findLookViolations } from './look-violations';
import { findMotionViolations } from './motion-violations';
import { jsonPointer } from './suggest';
import { FONTS } from './vocabulary';

/**
 * Cross-element and layout findings (the `violations` of a render submit). Advisory: a request
 * with error-severity findings is still rendered, the response says `ok: false`.
 */
export interface Violation {
  code: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
  pointer: string;
  element_ids: string[];
}

export interface TruncationMarker {
  code: 'VIOLATIONS_TRUNCATED';
  severity: 'info';
  message: string;
  pointer: '';
  element_ids: [];
  total: number;
}

export const MAX_VIOLATIONS_RETURNED = 40;

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

/** Every finding, errors first, then warnings, then info (request order within a severity). */
export function findViolations(request: RenderRequest, media: Record<string, MediaInfo> = {}): Violation[] {
  const found: Violation[] = [];
  const add = (code: string, severity: Violation['severity'], message: string, path: (string | number)[], ids: (string | undefined)[] = []) =>
    found.push({ code, severity, message, pointer: jsonPointer(path), element_ids: ids.filter((id): id is string => id !== undefined) });
  const elements = request.elements ?? [];
  const canvas = resolveCanvas(request, media);
  const timeline = resolveTimeline(request, media);

  const firstIndexById = new Map<string, number>();
  elements.forEach((element, index) => {
    if (element.id === undefined) return;
    const first = firstIndexById.get(element.id);
    if (first === undefined) firstIndexById.set(element.id, index);
    else add('DUPLICATE_ELEMENT_ID', 'error', `Element id "${element.id}" is already used by /elements/${first}`, ['elements', index, 'id'], [element.id]);
  });

  (request.transitions ?? []).forEach((transition, index) => {
    const ids = [transition.from_id, transition.to_id];
    if (transition.from_id === transition.to_id) {
      add('TRANSITION_SELF', 'error', `A transition cannot go from element "${transition.from_id}" to itself`, ['transitions', index, 'to_id'], [transition.from_id]);
    }
    for (const field of ['from_id', 'to_id'] as const) {
      if (field === 'to_id' && transition.from_id === transition.to_id) continue;
      if (!firstIndexById.has(transition[field])) {
        add('TRANSITION_UNKNOWN_ELEMENT', 'error', `Transition ${field} "${transition[field]}" names no element`, ['transitions', index, field], ids);
      }
    }
  });

  (request.groups ?? []).forEach((group, index) => {
    group.members.forEach((member, memberIndex) => {
      if (!firstIndexById.has(member)) {
        add('GROUP_UNKNOWN_MEMBER', 'error', `Group "${group.id}" member "${member}" names no element`, ['groups', index, 'members', memberIndex], [member]);
      }
    });
  });

  elements.forEach((element, index) => {
    if (element.visible === false) return;
    const here = ['elements', index];
    const label = describe(element, index);
    const time = timeline.elements[index];
    const info = 'source_url' in element ? media[element.source_url] : undefined;
    if (time.from >= timeline.durationInFrames) {
      add('ELEMENT_STARTS_AFTER_END', 'error', `${label} starts at ${round(time.startSeconds)} s, at or after the composition end (${round(timeline.durationSeconds)} s), so it never shows`,
        element.time === undefined ? here : [...here, 'time'], [element.id]);
    } else if (time.durationInFrames <= 0) {
      const pastSource = (element.type === 'video' || element.type === 'audio') && info?.duration !== undefined && (element.in_point ?? 0) >= info.duration;
      add('ELEMENT_ZERO_DURATION', 'error',
        pastSource ? `${label} starts its clip at in_point ${element.in_point} s, at or after the end of the source (${info?.duration} s)` : `${label} lasts less than one frame`,
        pastSource ? [...here, 'in_point'] : here, [element.id]);
    } else if (request.duration != null && time.ownSeconds !== null && time.endSeconds > request.duration + 1e-9) {
      add('ELEMENT_CUT_AT_END', 'info', `${label} ends at ${round(time.endSeconds)} s and is cut at the composition end (${round(request.duration)} s)`, here, [element.id]);
    }
    if (element.type === 'video' || element.type === 'audio') {
      if (element.out_point !== undefined && info?.duration !== undefined && element.out_point > info.duration + 1e-9) {
        add('OUT_POINT_BEYOND_SOURCE', 'warning', `${label} has out_point ${element.out_point} s but its source lasts ${info.duration} s`, [...here, 'out_point'], [element.id]);
      }
      if (element.type === 'audio' && info?.has_audio === false) {
        add('SOURCE_WITHOUT_AUDIO', 'warning', `${label} plays a source that has no audio stream`, [...here, 'source_url'], [element.id]);
      }
      if (element.type === 'video' && info?.has_video === false) {
        add('SOURCE_WITHOUT_VIDEO', 'warning', `${label} plays a source that has no video stream`, [...here, 'source_url'], [element.id]);
      }
    }
    if (element.type !== 'audio') checkLayout(element, here, label, canvas, media, add);
    if (element.type === 'text') {
      const fitted = estimatedAutoFontSize(element, canvas, media);
      if (fitted?.overflows) {
        add('TEXT_OVERFLOWS_AT_MIN_SIZE', 'warning', `${label} does not fit its box even at min_font_size ${fitted.size} px; it is drawn at that size and overflows`, [...here, 'font_size'], [element.id]);
      }
      const font = FONTS.find((candidate) => candidate.family === (element.font_family ?? 'Inter'));
      if (font && element.font_weight !== undefined && !(font.weights as readonly number[]).includes(element.font_weight)) {
        add('FONT_WEIGHT_UNAVAILABLE', 'info', `${font.family} ships weights ${font.weights.join(', ')}; ${element.font_weight} is drawn with the nearest`, [...here, 'font_weight'], [element.id]);
      }
      if (font && element.font_style === 'italic' && !font.italic) {
        add('FONT_STYLE_UNAVAILABLE', 'info', `${font.family} has no italic; the browser slants the upright face`, [...here, 'font_style'], [element.id]);
      }
    }
  });

  findMotionViolations(request, timeline, add);
  findLookViolations(request, add);

  if (request.alpha) {
    const opaque = request.background_image_url ? 'background_image_url' : request.background_gradient ? 'background_gradient' : isOpaque(request.background_color ?? '#000000ff') ? 'background_color' : undefined;
    if (opaque) {
      add('ALPHA_BACKGROUND_OPAQUE', 'warning', `alpha is true but ${opaque} covers the canvas, so the output has no transparent pixels; use a background_color with alpha 00 (e.g. "#00000000")`, [opaque]);
    }
  }

  return found.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
}

/** At most `max` findings, then a `VIOLATIONS_TRUNCATED` marker carrying the full count. */
export function truncateViolations(violations: Violation[], max = MAX_VIOLATIONS_RETURNED): Array<Violation | TruncationMarker> {
  if (violations.length <= max) return violations;
  const kept = [...violations].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]).slice(0, max);
  return [
    ...kept,
    {
      code: 'VIOLATIONS_TRUNCATED',
      severity: 'info',
      message: `${violations.length} findings; only the first ${max} are listed (a dry run lists all)`,
      pointer: '',
      element_ids: [],
      total: violations.length,
    },
  ];
}

type Add = (code: string, severity: Violation['severity'], message: string, path: (string | number)[], ids?: (string | undefined)[]) => void;

/** Off-canvas and never-visible checks on the element's transformed box (x/y rotations foreshorten it). */
function checkLayout(element: VisualElement, here: (string | number)[], label: string, canvas: Canvas, media: Record<string, MediaInfo>, add: Add): void {
  const box = resolveBox(element, canvas, media);
  if (box.opacity === 0 || box.width === 0 || box.height === 0 || box.scaleX === 0 || box.scaleY === 0) {
    add('ELEMENT_NEVER_VISIBLE', 'warning', `${label} has zero opacity, size or scale`, here, [element.id]);
    return;
  }
  if (box.width === null || box.height === null) return; // text sized by its content: unknown here
  const radians = (degrees: number) => (degrees * Math.PI) / 180;
  const scaleX = box.scaleX * Math.cos(radians(box.yRotation));
  const scaleY = box.scaleY * Math.cos(radians(box.xRotation));
  const left = -anchorPixels(box.xAnchor, box.width);
  const top = -anchorPixels(box.yAnchor, box.height);
  const corners = [
    [left, top], [left + box.width, top], [left, top + box.height], [left + box.width, top + box.height],
  ].map(([cx, cy]) => {
    const sx = cx * scaleX;
    const sy = cy * scaleY;
    const angle = radians(box.zRotation);
    return [box.x + sx * Math.cos(angle) - sy * Math.sin(angle), box.y + sx * Math.sin(angle) + sy * Math.cos(angle)];
  });
  const xs = corners.map(([x]) => x);
  const ys = corners.map(([, y]) => y);
  const offX = Math.max(...xs) <= 0 || Math.min(...xs) >= canvas.width;
  const offY = Math.max(...ys) <= 0 || Math.min(...ys) >= canvas.height;
  if (offX || offY) {
    const path = offX && element.x !== undefined ? [...here, 'x'] : offY && element.y !== undefined ? [...here, 'y'] : here;
    add('ELEMENT_OFF_CANVAS', 'error', `${label} lies entirely outside the ${canvas.width}x${canvas.height} canvas`, path, [element.id]);
  }
}

function describe(element: Element, index: number): string {
  return element.id === undefined ? `The ${element.type} element at /elements/${index}` : `The ${element.type} element "${element.id}"`;
}

function isOpaque(color: string): boolean {
  return HEX_COLOR_PATTERN.test(color) && (color.length === 7 || color.slice(7).toLowerCase() === 'ff');
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
