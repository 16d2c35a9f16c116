import type { Element } from '../schema/elements';
import { parseDegrees, parsePercent, toFraction } from '../schema/primitives';
import type { Group, RenderRequest } from '../schema/request';
import type { AUDIO_FEATURES } from '../schema/vocabulary';
import { resolveMotions, type CustomAnimation, type ResolvedMotion } from './element-motion';

/**
 * Groups (`groups[]`): transforms over member elements, composed down the `parent` tree.
 *
 * A group turns, scales and moves its members about its `pivot` (canvas px or percent; default
 * the centre of its members' bounding box): `translate`, then `x_rotation`/`y_rotation` (viewed in
 * perspective from the pivot), `rotation_degrees`, `scale`. Its `opacity` multiplies each
 * member's. A child group's members also take every ancestor's transform, outermost last.
 *
 * `layout: stack` places the members one after another in `direction` (`row` default) with
 * `gap` px between boxes, centred on `origin` (default the canvas centre), aligned across by
 * `align` (`center` default). Members keep their own anchors; text without a size is measured
 * roughly (0.6 em per character), so give stacked text a width and height for exact places.
 *
 * `animations`: presets or custom keyframes on the group clock (seconds from its first member's
 * start; `"end"` = its last member's end). Scope `group` (default) moves the whole group about its
 * pivot (percent offsets are of the group's box); scope `members` plays the animation on each
 * member about its own anchor, member i starting `delay + i × spacing` later. `audio` drives
 * scale/opacity/translate/rotate from a feature of the composition's sound (see audio.ts).
 */

export type AudioFeature = (typeof AUDIO_FEATURES)[number];

export interface AudioDriver {
  feature: AudioFeature;
  /** Added scale at full level (0.5: 150 %). */
  scale: number;
  /** Opacity lost at silence (1: invisible when silent). */
  opacity: number;
  /** px upwards at full level. */
  translate: number;
  /** Degrees at full level. */
  rotate: number;
}

export interface GroupLayer {
  id: string;
  pivot: { x: number; y: number };
  translate: { x: number; y: number };
  scale: number;
  rotation: number;
  xRotation: number;
  yRotation: number;
  opacity: number;
  /** The group's bounding box size, for percent offsets of group animations. */
  size: { width: number; height: number };
  /** Composition seconds where the group clock starts. */
  start: number;
  animations: ResolvedMotion[];
  audio: AudioDriver[];
}

export interface MemberAnimation {
  /** Outermost first. */
  layers: GroupLayer[];
  /** Scope `members` animations, on the member's own clock. */
  motions: ResolvedMotion[];
  audio: AudioDriver[];
}

export interface GroupSpan {
  index: number;
  element: Element;
  start: number;
  end: number;
  /** The element's box on the canvas; null for audio. */
  box: { x: number; y: number; width: number | null; height: number | null; xAnchor: Relative; yAnchor: Relative } | null;
}

type Relative = { unit: 'px' | '%'; value: number };

/** Parent ids with cycles broken (the link that closes a cycle is dropped), and first-group membership. */
export function groupStructure(request: RenderRequest): { parentOf: Map<string, string>; groupOfMember: Map<string, string>; cycles: string[] } {
  const groups = request.groups ?? [];
  const byId = new Map(groups.map((group) => [group.id, group]));
  const parentOf = new Map<string, string>();
  const cycles: string[] = [];
  for (const group of groups) {
    if (group.parent === undefined || !byId.has(group.parent)) continue;
    // Walk up from the intended parent: reaching this group again means a cycle.
    let cursor: string | undefined = group.parent;
    let cyclic = false;
    const seen = new Set<string>();
    while (cursor !== undefined && !seen.has(cursor)) {
      if (cursor === group.id) {
        cyclic = true;
        break;
      }
      seen.add(cursor);
      cursor = parentOf.get(cursor);
    }
    if (cyclic) cycles.push(group.id);
    else parentOf.set(group.id, group.parent);
  }
  const groupOfMember = new Map<string, string>();
  for (const group of groups) for (const member of group.members) if (!groupOfMember.has(member)) groupOfMember.set(member, group.id);
  return { parentOf, groupOfMember, cycles };
}

function length(value: number | string | undefined, reference: number, fallback: number): number {
  if (value === undefined) return fallback;
  return typeof value === 'number' ? value : (parsePercent(value) / 100) * reference;
}

function anchorPx(anchor: Relative, size: number): number {
  return anchor.unit === 'px' ? anchor.value : (anchor.value / 100) * size;
}

/** Box size, measuring text without one roughly. */
function boxSize(span: GroupSpan, canvas: { width: number; height: number }): { width: number; height: number } {
  const box = span.box!;
  if (box.width !== null && box.height !== null) return { width: box.width, height: box.height };
  const element = span.element;
  const fontSize = element.type === 'text' ? (typeof element.font_size === 'number' ? element.font_size : canvas.height / 20) : 0;
  const lineHeight = element.type === 'text' && typeof element.line_height === 'number' ? element.line_height : 1.2;
  const lines = element.type === 'text' ? (element.text ?? '').split('\n') : [''];
  return {
    width: box.width ?? Math.min(canvas.width, Math.max(...lines.map((line) => line.length)) * 0.6 * fontSize),
    height: box.height ?? lines.length * lineHeight * fontSize,
  };
}

/** Canvas rectangle of a member (without its rotation or scale). */
function rect(span: GroupSpan, canvas: { width: number; height: number }) {
  const { width, height } = boxSize(span, canvas);
  const left = span.box!.x - anchorPx(span.box!.xAnchor, width);
  const top = span.box!.y - anchorPx(span.box!.yAnchor, height);
  return { left, top, right: left + width, bottom: top + height, width, height };
}

/** Anchor positions that `layout: stack` gives its members, keyed by element index. */
export function stackPositions(group: Group, members: GroupSpan[], canvas: { width: number; height: number }): Map<number, { x: number; y: number }> {
  const positions = new Map<number, { x: number; y: number }>();
  const layout = group.layout;
  if (!layout || members.length === 0) return positions;
  const row = (layout.direction ?? 'row') === 'row';
  const gap = layout.gap ?? 0;
  const align = layout.align ?? 'center';
  const origin = { x: length(layout.origin?.x, canvas.width, canvas.width / 2), y: length(layout.origin?.y, canvas.height, canvas.height / 2) };
  const sizes = members.map((member) => boxSize(member, canvas));
  const along = sizes.map((size) => (row ? size.width : size.height));
  const across = sizes.map((size) => (row ? size.height : size.width));
  const total = along.reduce((sum, value) => sum + value, 0) + gap * (members.length - 1);
  const thickness = Math.max(...across);
  let cursor = (row ? origin.x : origin.y) - total / 2;
  members.forEach((member, i) => {
    const crossStart = (row ? origin.y : origin.x) - thickness / 2;
    const cross = align === 'start' ? crossStart : align === 'end' ? crossStart + thickness - across[i] : crossStart + (thickness - across[i]) / 2;
    const left = row ? cursor : cross;
    const top = row ? cross : cursor;
    positions.set(member.index, {
      x: left + anchorPx(member.box!.xAnchor, sizes[i].width),
      y: top + anchorPx(member.box!.yAnchor, sizes[i].height),
    });
    cursor += along[i] + gap;
  });
  return positions;
}

/**
 * Per drawn element: the group layers above it and its member-scope animations. `spans` carry
 * boxes after stack layout.
 */
export function resolveGroups(
  request: RenderRequest,
  spans: GroupSpan[],
  canvas: { width: number; height: number },
  customs: ReadonlyMap<string, CustomAnimation>,
): Map<number, MemberAnimation> {
  const groups = request.groups ?? [];
  const result = new Map<number, MemberAnimation>();
  if (groups.length === 0) return result;
  const { parentOf, groupOfMember } = groupStructure(request);
  const spanById = new Map<string, GroupSpan>();
  for (const span of spans) if (span.element.id !== undefined && !spanById.has(span.element.id)) spanById.set(span.element.id, span);
  const byId = new Map(groups.map((group) => [group.id, group]));

  // Direct members (first group wins) and all members down the tree.
  const direct = new Map<string, GroupSpan[]>();
  for (const group of groups) {
    direct.set(group.id, group.members.filter((id) => groupOfMember.get(id) === group.id).map((id) => spanById.get(id)).filter((span): span is GroupSpan => span !== undefined));
  }
  const children = new Map<string, string[]>();
  for (const [child, parent] of parentOf) children.set(parent, [...(children.get(parent) ?? []), child]);
  const allMembers = (id: string, seen = new Set<string>()): GroupSpan[] => {
    if (seen.has(id)) return [];
    seen.add(id);
    return [...(direct.get(id) ?? []), ...(children.get(id) ?? []).flatMap((child) => allMembers(child, seen))];
  };

  const layers = new Map<string, GroupLayer>();
  for (const group of groups) {
    if (layers.has(group.id)) continue;
    const members = allMembers(group.id);
    const visual = members.filter((span) => span.box !== null);
    const rects = visual.map((span) => rect(span, canvas));
    const bounds = rects.length
      ? { left: Math.min(...rects.map((r) => r.left)), top: Math.min(...rects.map((r) => r.top)), right: Math.max(...rects.map((r) => r.right)), bottom: Math.max(...rects.map((r) => r.bottom)) }
      : { left: 0, top: 0, right: canvas.width, bottom: canvas.height };
    const start = members.length ? Math.min(...members.map((span) => span.start)) : 0;
    const end = members.length ? Math.max(...members.map((span) => span.end)) : 0;
    const groupAnimations = (group.animations ?? []).filter((animation) => (animation.scope ?? 'group') === 'group');
    layers.set(group.id, {
      id: group.id,
      pivot: {
        x: length(group.pivot?.x, canvas.width, (bounds.left + bounds.right) / 2),
        y: length(group.pivot?.y, canvas.height, (bounds.top + bounds.bottom) / 2),
      },
      translate: { x: length(group.translate?.x, canvas.width, 0), y: length(group.translate?.y, canvas.height, 0) },
      scale: group.scale === undefined ? 1 : parsePercent(group.scale) / 100,
      rotation: group.rotation_degrees ?? 0,
      xRotation: parseDegrees(group.x_rotation ?? 0),
      yRotation: parseDegrees(group.y_rotation ?? 0),
      opacity: toFraction(group.opacity ?? 1),
      size: { width: bounds.right - bounds.left, height: bounds.bottom - bounds.top },
      start,
      animations: resolveMotions(
        groupAnimations.filter((animation) => animation.type !== undefined || animation.custom !== undefined).map((animation) => shiftDelay(animation)),
        end - start,
        customs,
      ),
      audio: groupAnimations.flatMap((animation) => (animation.audio ? [audioDriver(animation.audio)] : [])),
    });
  }

  for (const span of spans) {
    const groupId = span.element.id === undefined ? undefined : groupOfMember.get(span.element.id);
    if (groupId === undefined || !byId.has(groupId)) continue;
    const chain: GroupLayer[] = [];
    const motions: ResolvedMotion[] = [];
    const audio: AudioDriver[] = [];
    for (let cursor: string | undefined = groupId; cursor !== undefined; cursor = parentOf.get(cursor)) {
      chain.unshift(layers.get(cursor)!);
      const group = byId.get(cursor)!;
      const layer = layers.get(cursor)!;
      const members = allMembers(cursor);
      const position = members.indexOf(span);
      for (const animation of group.animations ?? []) {
        if (animation.scope !== 'members') continue;
        if (animation.audio) audio.push(audioDriver(animation.audio));
        if (animation.type === undefined && animation.custom === undefined) continue;
        const groupEnd = Math.max(...members.map((member) => member.end));
        // Member i starts delay + i × spacing after the group time, on the member's clock.
        const offset = (animation.delay ?? 0) + (animation.spacing ?? 0) * position;
        const [motion] = resolveMotions([{ ...animation, time: 0, delay: undefined, spacing: undefined, scope: undefined, audio: undefined } as never], groupEnd - layer.start, customs);
        if (!motion) continue;
        const groupTime = animation.time === 'end' ? groupEnd - layer.start - motion.duration : typeof animation.time === 'number' ? animation.time : 0;
        motions.push({ ...motion, start: layer.start + groupTime + offset - span.start });
      }
    }
    result.set(span.index, { layers: chain, motions, audio });
  }
  return result;
}

/** A group-scope animation with `delay` folded into its time. */
function shiftDelay(animation: NonNullable<Group['animations']>[number]) {
  const { delay, spacing: _spacing, scope: _scope, audio: _audio, ...motion } = animation;
  if (!delay || motion.time === 'end') return motion;
  return { ...motion, time: (typeof motion.time === 'number' ? motion.time : 0) + delay };
}

function audioDriver(audio: NonNullable<NonNullable<Group['animations']>[number]['audio']>): AudioDriver {
  return { feature: audio.feature, scale: audio.scale ?? 0, opacity: audio.opacity ?? 0, translate: audio.translate ?? 0, rotate: audio.rotate ?? 0 };
}
