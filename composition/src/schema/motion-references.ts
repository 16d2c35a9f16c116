import type { z } from 'zod';
import { TEXT_PRESETS } from '../motion/text-split';
import { closestMatch } from './suggest';

interface Referencing {
  elements?: ReadonlyArray<{ type: string; motion?: ReadonlyArray<{ custom?: string }>; animation_preset?: string }>;
  groups?: ReadonlyArray<{ animations?: ReadonlyArray<{ type?: string; custom?: string; audio?: unknown; scope?: string }> }>;
  custom_animations?: { element?: ReadonlyArray<{ name: string }>; text?: ReadonlyArray<{ name: string }> } | null;
}

/**
 * Names that must resolve: `motion[].custom` (an element entry of custom_animations, or a text
 * entry on text elements), `animation_preset` (a text entry or a built-in text preset), group
 * animation `custom`; unique entry names; a group animation says what it does.
 */
export function checkMotionReferences(request: Referencing, ctx: z.RefinementCtx): void {
  const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message, params: { type: 'value_error' } });
  const elementNames = (request.custom_animations?.element ?? []).map((entry) => entry.name);
  const textNames = (request.custom_animations?.text ?? []).map((entry) => entry.name);
  const unknown = (name: string, known: string[], what: string) => {
    const suggestion = closestMatch(name, known);
    const list = known.length ? `; known: ${known.map((candidate) => `"${candidate}"`).join(', ')}` : `; define it in custom_animations.${what}`;
    return `"${name}" names no custom_animations.${what} entry${suggestion ? ` (did you mean "${suggestion}"?)` : list}`;
  };
  for (const [kind, names] of [['element', elementNames], ['text', textNames]] as const) {
    names.forEach((name, index) => {
      if (names.indexOf(name) !== index) issue(['custom_animations', kind, index, 'name'], `Another custom_animations.${kind} entry is already named "${name}"`);
    });
  }
  (request.elements ?? []).forEach((element, index) => {
    let textAnimations = 0;
    (element.motion ?? []).forEach((motion, motionIndex) => {
      if (motion.custom === undefined) return;
      if (element.type === 'text' && textNames.includes(motion.custom)) {
        textAnimations += 1;
        return;
      }
      if (!elementNames.includes(motion.custom)) {
        issue(['elements', index, 'motion', motionIndex, 'custom'], unknown(motion.custom, element.type === 'text' ? [...elementNames, ...textNames] : elementNames, element.type === 'text' ? 'element or .text' : 'element'));
      }
    });
    if (element.animation_preset !== undefined) {
      textAnimations += 1;
      const known = [...textNames, ...Object.keys(TEXT_PRESETS)];
      if (!known.includes(element.animation_preset)) {
        const suggestion = closestMatch(element.animation_preset, known);
        issue(['elements', index, 'animation_preset'], `"${element.animation_preset}" is neither a built-in text animation (${Object.keys(TEXT_PRESETS).join(', ')}) nor a custom_animations.text entry${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`);
      }
    }
    if (textAnimations > 1) issue(['elements', index, 'animation_preset'], 'A text element takes one text animation: set animation_preset or one motion[].custom naming a text entry');
  });
  (request.groups ?? []).forEach((group, index) => {
    (group.animations ?? []).forEach((animation, animationIndex) => {
      const here = ['groups', index, 'animations', animationIndex];
      if (animation.type !== undefined && animation.custom !== undefined) issue([...here, 'type'], 'Set at most one of "type" or "custom"');
      if (animation.type === undefined && animation.custom === undefined && animation.audio === undefined) issue([...here, 'type'], 'Set "type", "custom" or "audio"');
      if (animation.custom !== undefined && !elementNames.includes(animation.custom)) issue([...here, 'custom'], unknown(animation.custom, elementNames, 'element'));
      // A group has no box of its own to clip; each member can be wiped.
      if (animation.type === 'wipe' && (animation.scope ?? 'group') === 'group') issue([...here, 'scope'], 'A wipe reveals an element\'s own box: use "scope": "members" to wipe each member of the group');
    });
  });
}
