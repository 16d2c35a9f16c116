import { EFFECT_DESCRIPTIONS } from './look-descriptions';
import {
  BLEND_MODES, EASINGS, EFFECTS, FONTS, FORMAT_DESCRIPTIONS, MOTIONS, OUTPUT_FORMATS, TRANSITIONS,
} from './vocabulary';

export interface CatalogEntry {
  name: string;
  supported: boolean;
  description?: string;
}

const unsupported = (names: readonly string[]): CatalogEntry[] => names.map((name) => ({ name, supported: false }));

/**
 * The enum catalogs of `GET /v1/capabilities`. Effects, motions, transitions, blend modes and
 * easings are accepted by the schema but not drawn yet (their fields are rejected with
 * `unsupported_feature`).
 */
export const CATALOGS: {
  formats: CatalogEntry[];
  effects: CatalogEntry[];
  motions: CatalogEntry[];
  transitions: CatalogEntry[];
  blend_modes: CatalogEntry[];
  easings: CatalogEntry[];
  fonts: CatalogEntry[];
} = {
  formats: OUTPUT_FORMATS.map((name) => ({ name, supported: true, description: FORMAT_DESCRIPTIONS[name] })),
  effects: EFFECTS.map((name) => ({ name, supported: true, description: EFFECT_DESCRIPTIONS[name] })),
  motions: unsupported(MOTIONS),
  transitions: unsupported(TRANSITIONS),
  blend_modes: BLEND_MODES.map((name) => ({ name, supported: true })),
  easings: unsupported(EASINGS),
  fonts: FONTS.map((font) => ({
    name: font.family,
    supported: true,
    description: `weights ${font.weights.join(', ')}${font.italic ? '; italic' : ''}`,
  })),
};
