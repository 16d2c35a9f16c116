import type { Element } from '../schema/elements';
import type { RenderRequest } from '../schema/request';
import { resolveMotions, type CustomAnimation, type ResolvedMotion } from './element-motion';
import { groupStructure, resolveGroups, stackPositions, type GroupSpan, type MemberAnimation } from './groups';
import { resolveTextAnimation, type TextAnimation } from './text-split';
import { transitionWindow, DEFAULT_TRANSITION_SECONDS, type TransitionName, type TransitionWindow } from './transitions';

/**
 * Everything that moves one element, resolved once per request (pure; the composition evaluates
 * it frame by frame): its own motions, the transitions it takes part in, the groups it belongs
 * to, its text animation and its paint order.
 */
export interface TransitionRole {
  type: TransitionName;
  role: 'from' | 'to';
  window: TransitionWindow;
  /** CSS z-index while the transition runs. */
  order: number;
}

export interface ElementAnimation {
  motions: ResolvedMotion[];
  transitions: TransitionRole[];
  /** The groups above the element (outermost first) and their member-scope animations. */
  groups: MemberAnimation | null;
  text: TextAnimation | null;
  /** CSS z-index outside transitions: back-to-front position × 4, leaving room for pairs. */
  order: number;
}

export interface ResolvedTransition {
  index: number;
  type: TransitionName;
  window: TransitionWindow;
}

export interface AnimationPlan {
  byIndex: Map<number, ElementAnimation>;
  transitions: ResolvedTransition[];
}

interface Span extends GroupSpan {
  zIndex: number;
}

export function customAnimations(request: RenderRequest): { element: Map<string, CustomAnimation>; text: Map<string, NonNullable<NonNullable<RenderRequest['custom_animations']>['text']>[number]> } {
  return {
    element: new Map((request.custom_animations?.element ?? []).map((entry) => [entry.name, entry])),
    text: new Map((request.custom_animations?.text ?? []).map((entry) => [entry.name, entry])),
  };
}

/**
 * `spans` are the drawn elements back to front (already sorted by z_index, then request order).
 */
export function planAnimations(request: RenderRequest, spans: Span[], canvas: { width: number; height: number }): AnimationPlan {
  const customs = customAnimations(request);
  const byIndex = new Map<number, ElementAnimation>();
  const spanByIndex = new Map(spans.map((span) => [span.index, span]));
  const rank = new Map(spans.map((span, position) => [span.index, (position + 1) * 4]));
  const groups = resolveGroups(request, spans, canvas, customs.element);
  for (const span of spans) {
    const element = span.element;
    byIndex.set(span.index, {
      motions: [
        ...('motion' in element ? resolveMotions(element.motion, span.end - span.start, customs.element) : []),
        ...(groups.get(span.index)?.motions ?? []),
      ],
      transitions: [],
      groups: groups.get(span.index) ?? null,
      text: element.type === 'text' ? resolveTextAnimation(element, customs.text) : null,
      order: rank.get(span.index)!,
    });
  }
  const indexById = new Map<string, number>();
  (request.elements ?? []).forEach((element, index) => {
    if (element.id !== undefined && !indexById.has(element.id)) indexById.set(element.id, index);
  });
  const transitions: ResolvedTransition[] = [];
  (request.transitions ?? []).forEach((transition, index) => {
    const from = spanByIndex.get(indexById.get(transition.from_id) ?? -1);
    const to = spanByIndex.get(indexById.get(transition.to_id) ?? -1);
    if (!from || !to || from === to) return;
    const window = transitionWindow(from, to, transition.duration ?? DEFAULT_TRANSITION_SECONDS);
    if (!window) return;
    // The pair draws where the front-most of the two does, or where an element of z_index would.
    const base = transition.z_index === undefined
      ? Math.max(rank.get(from.index)!, rank.get(to.index)!)
      : spans.filter((span) => span.zIndex <= transition.z_index!).length * 4;
    byIndex.get(from.index)!.transitions.push({ type: transition.type, role: 'from', window, order: base + 1 });
    byIndex.get(to.index)!.transitions.push({ type: transition.type, role: 'to', window, order: base + 2 });
    transitions.push({ index, type: transition.type, window });
  });
  return { byIndex, transitions };
}

/**
 * Adds `animation` to every drawn element (back to front) after placing the members of stacked
 * groups; returns the elements and the transitions that run.
 */
export function attachAnimations<T extends ResolvedLike>(request: RenderRequest, drawn: T[], canvas: { width: number; height: number }, fps: number): { elements: T[]; transitions: ResolvedTransition[] } {
  const source = request.elements ?? [];
  let elements = drawn;
  const stacked = (request.groups ?? []).filter((group) => group.layout);
  if (stacked.length) {
    const { groupOfMember } = groupStructure(request);
    const positions = new Map<number, { x: number; y: number }>();
    for (const group of stacked) {
      const members = group.members
        .filter((id) => groupOfMember.get(id) === group.id)
        .map((id) => drawn.find((element) => element.id === id && element.box))
        .filter((element): element is T => element !== undefined)
        .map((element) => toSpan(element, source, fps));
      for (const [index, position] of stackPositions(group, members, canvas)) positions.set(index, position);
    }
    elements = drawn.map((element) => {
      const position = positions.get(element.index);
      return position && element.box ? { ...element, box: { ...element.box, ...position } } : element;
    });
  }
  const spans = elements.map((element) => toSpan(element, source, fps));
  const plan = planAnimations(request, spans, canvas);
  return {
    elements: elements.map((element) => ({ ...element, animation: plan.byIndex.get(element.index) })),
    transitions: plan.transitions,
  };
}

interface ResolvedLike {
  index: number;
  id: string | null;
  from: number;
  durationInFrames: number;
  box?: GroupSpan['box'];
}

function toSpan(element: ResolvedLike, source: readonly Element[], fps: number): Span {
  const original = source[element.index];
  return {
    index: element.index,
    element: original,
    start: element.from / fps,
    end: (element.from + element.durationInFrames) / fps,
    zIndex: original.type === 'audio' ? 0 : (original.z_index ?? 0),
    box: element.box ?? null,
  };
}
