import { groupStructure } from '../motion/groups';
import { PRESETS } from '../motion/presets';
import { DEFAULT_TRANSITION_SECONDS, transitionWindow } from '../motion/transitions';
import type { RenderRequest } from './request';
import type { Timeline } from './resolve';

type Add = (code: string, severity: 'error' | 'warning' | 'info', message: string, path: (string | number)[], ids?: (string | undefined)[]) => void;

/**
 * Findings about motion: transitions between elements that never show together, cycles in group
 * parents, elements claimed by two groups, parents that name no group; and, as information, input
 * that is accepted but has no effect (a direction on a preset without one, a sound in a group,
 * stacked text without a size).
 */
export function findMotionViolations(request: RenderRequest, timeline: Timeline, add: Add): void {
  const elements = request.elements ?? [];
  const indexById = new Map<string, number>();
  elements.forEach((element, index) => {
    if (element.id !== undefined && !indexById.has(element.id)) indexById.set(element.id, index);
  });
  const span = (index: number) => {
    const time = timeline.elements[index];
    return { start: time.from / timeline.fps, end: (time.from + Math.max(0, time.durationInFrames)) / timeline.fps };
  };
  (request.transitions ?? []).forEach((transition, index) => {
    const from = indexById.get(transition.from_id);
    const to = indexById.get(transition.to_id);
    if (from === undefined || to === undefined || from === to) return;
    const a = span(from);
    const b = span(to);
    if (transitionWindow(a, b, transition.duration ?? DEFAULT_TRANSITION_SECONDS)) return;
    add('TRANSITION_ELEMENTS_APART', 'error',
      `Transition from "${transition.from_id}" (${round(a.start)}–${round(a.end)} s) to "${transition.to_id}" (${round(b.start)}–${round(b.end)} s): the two never show together, so it cannot run. Let "${transition.to_id}" follow on the same track without a time (the track overlaps them by the duration) or start it before ${round(a.end)} s`,
      ['transitions', index], [transition.from_id, transition.to_id]);
  });

  elements.forEach((element, index) => {
    if (!('motion' in element)) return;
    (element.motion ?? []).forEach((motion, motionIndex) => {
      if (motion.type !== undefined && motion.direction !== undefined && PRESETS[motion.type].direction === null) {
        add('MOTION_DIRECTION_IGNORED', 'info', `The ${motion.type} preset has no direction; "direction" does nothing here`, ['elements', index, 'motion', motionIndex, 'direction'], [element.id]);
      }
    });
  });

  const groups = request.groups ?? [];
  const { cycles } = groupStructure(request);
  const groupIds = new Set(groups.map((group) => group.id));
  const firstGroupOf = new Map<string, number>();
  groups.forEach((group, index) => {
    if (groups.findIndex((other) => other.id === group.id) !== index) {
      add('DUPLICATE_GROUP_ID', 'error', `Group id "${group.id}" is already used by an earlier group`, ['groups', index, 'id']);
    }
    if (group.parent !== undefined && !groupIds.has(group.parent)) {
      add('GROUP_UNKNOWN_PARENT', 'error', `Group "${group.id}" has parent "${group.parent}", which names no group`, ['groups', index, 'parent']);
    }
    if (cycles.includes(group.id)) {
      add('GROUP_PARENT_CYCLE', 'error', `Group "${group.id}" is its own ancestor through "parent"; that link is ignored`, ['groups', index, 'parent']);
    }
    group.members.forEach((member, memberIndex) => {
      const element = elements[indexById.get(member) ?? -1];
      if (element?.type === 'audio') {
        add('GROUP_MEMBER_NOT_VISUAL', 'info', `"${member}" is an audio element: a group moves nothing of it`, ['groups', index, 'members', memberIndex], [member]);
      } else if (group.layout && element?.type === 'text' && (element.width === undefined || element.height === undefined)) {
        add('STACK_TEXT_WITHOUT_SIZE', 'info', `Text "${member}" has no width and height, so the stack places it by a rough measure (0.6 em a character); set both for an exact place`, ['groups', index, 'members', memberIndex], [member]);
      }
      const first = firstGroupOf.get(member);
      if (first === undefined) firstGroupOf.set(member, index);
      else if (first !== index || group.members.indexOf(member) !== memberIndex) {
        add('GROUP_MEMBER_IN_TWO_GROUPS', 'error', `Element "${member}" is already a member of group "${groups[first].id}"; an element belongs to one group (nest groups with "parent" instead), so this membership is ignored`,
          ['groups', index, 'members', memberIndex], [member]);
      }
    });
  });
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
