import type { z } from 'zod';
import { closestMatch } from './suggest';
import { AUDIO_FORMATS } from './vocabulary';

interface Referencing {
  output_format?: string;
  audio_normalize?: unknown;
  elements?: ReadonlyArray<{ type: string; id?: string; duck?: { under: 'speech' | string[] }; source?: string }>;
}

/**
 * Ids that must resolve to sound: `duck.under` names other audio/video elements, a waveform's
 * `source` names an audio/video element; `audio_normalize` needs an output with a sound track.
 */
export function checkSoundReferences(request: Referencing, ctx: z.RefinementCtx): void {
  const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message, params: { type: 'value_error' } });
  const elements = request.elements ?? [];
  const sounds = elements.filter((element) => element.type === 'audio' || element.type === 'video').flatMap((element) => (element.id ? [element.id] : []));
  const unknown = (id: string) => {
    const suggestion = closestMatch(id, sounds);
    return `"${id}" is not the id of an audio or video element${suggestion ? ` (did you mean "${suggestion}"?)` : sounds.length ? `; known: ${sounds.map((s) => `"${s}"`).join(', ')}` : ''}`;
  };
  elements.forEach((element, index) => {
    const under = element.duck?.under;
    if (Array.isArray(under)) {
      under.forEach((id, position) => {
        if (id === element.id) issue(['elements', index, 'duck', 'under', position], 'An element cannot duck under itself');
        else if (!sounds.includes(id)) issue(['elements', index, 'duck', 'under', position], unknown(id));
      });
    }
    if (element.type === 'waveform' && element.source !== undefined && !sounds.includes(element.source)) issue(['elements', index, 'source'], unknown(element.source));
  });
  const format = request.output_format ?? 'mp4';
  if (request.audio_normalize && !(AUDIO_FORMATS as readonly string[]).includes(format)) {
    issue(['audio_normalize'], `audio_normalize needs an output with sound (${AUDIO_FORMATS.join(', ')}), not "${format}"`);
  }
}
