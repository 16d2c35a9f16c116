import { ANALYSES } from './transcribe/analysis-types';
import { GOOGLE_CAPABILITIES } from './transcribe/engines/google-speech.engine';
import { POCKETSPHINX_CAPABILITIES } from './transcribe/engines/pocketsphinx.engine';
import { EngineCapabilities, SpeechEngineName } from './transcribe/engines/speech-engine';

/** Every task type the catalog names (`transcribe` and three it does not run yet). */
export const TASK_TYPES = ['transcribe', 'remove_background', 'super_resolution', 'gaze_redirect'] as const;
export type TaskType = (typeof TASK_TYPES)[number];

export const SUPPORTED_TASK_TYPES: readonly TaskType[] = ['transcribe'];

/** `POST /v1/tasks/{type}` names types with hyphens (`remove-background`); jobs carry underscores. */
export function taskTypeOfPath(segment: string): TaskType | null {
  const name = segment.replace(/-/g, '_');
  return (TASK_TYPES as readonly string[]).includes(name) ? (name as TaskType) : null;
}

export const ENGINE_CAPABILITIES: Record<SpeechEngineName, EngineCapabilities> = {
  pocketsphinx: POCKETSPHINX_CAPABILITIES,
  google: GOOGLE_CAPABILITIES,
};

/** The task part of `/v1/capabilities`: the catalog, and what the configured transcribe engine can do. */
export function taskCapabilities(engine: SpeechEngineName) {
  return {
    task_types: TASK_TYPES.map((name) => ({ name, supported: SUPPORTED_TASK_TYPES.includes(name) })),
    transcribe: {
      engine,
      options: ENGINE_CAPABILITIES[engine],
      analyses: [...ANALYSES],
      engines: ENGINE_CAPABILITIES,
    },
  };
}
