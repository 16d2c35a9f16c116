import { EASING_DESCRIPTIONS } from '../motion/easing';
import { PRESETS } from '../motion/presets';
import { TEXT_PRESETS } from '../motion/text-split';
import { TRANSITION_DESCRIPTIONS } from '../motion/transitions';
import { EFFECT_DESCRIPTIONS } from './look-descriptions';
import {
  BLEND_MODES, EASINGS, EFFECTS, FONTS, FORMAT_DESCRIPTIONS, MOTIONS, OUTPUT_FORMATS, TRANSITIONS,
} from './vocabulary';

export interface CatalogEntry {
  name: string;
  supported: boolean;
  description?: string;
}

/**
 * The enum catalogs of `GET /v1/capabilities`; every entry is drawn. `text_animations` lists the
 * built-in values of a text element's `animation_preset`.
 */
export const CATALOGS: {
  formats: CatalogEntry[];
  effects: CatalogEntry[];
  motions: CatalogEntry[];
  transitions: CatalogEntry[];
  blend_modes: CatalogEntry[];
  easings: CatalogEntry[];
  text_animations: CatalogEntry[];
  fonts: CatalogEntry[];
} = {
  formats: OUTPUT_FORMATS.map((name) => ({ name, supported: true, description: FORMAT_DESCRIPTIONS[name] })),
  effects: EFFECTS.map((name) => ({ name, supported: true, description: EFFECT_DESCRIPTIONS[name] })),
  motions: MOTIONS.map((name) => ({ name, supported: true, description: PRESETS[name].description })),
  transitions: TRANSITIONS.map((name) => ({ name, supported: true, description: TRANSITION_DESCRIPTIONS[name] })),
  blend_modes: BLEND_MODES.map((name) => ({ name, supported: true })),
  easings: EASINGS.map((name) => ({ name, supported: true, description: EASING_DESCRIPTIONS[name] })),
  text_animations: Object.entries(TEXT_PRESETS).map(([name, preset]) => ({
    name,
    supported: true,
    description: `${preset.description}; split by ${preset.split}, ${preset.stagger} s apart (animation_preset)`,
  })),
  fonts: FONTS.map((font) => ({
    name: font.family,
    supported: true,
    description: `weights ${font.weights.join(', ')}${font.italic ? '; italic' : ''}`,
  })),
};
