import type { z } from 'zod';
import { closestMatch } from './suggest';

interface Referencing {
  elements?: ReadonlyArray<{ type: string; id?: string; transcript?: { source: string } }>;
}

/** Ids of transcribe tasks look like this; anything else a transcript names must be an element of the request. */
export const TASK_ID_PATTERN = /^task_[A-Za-z0-9]+$/;

/**
 * `transcript.source` names a video or audio element of the request, or else a transcribe task
 * (`task_…`, checked against the workspace's tasks by the server).
 */
export function checkTranscriptSources(request: Referencing, ctx: z.RefinementCtx): void {
  const elements = request.elements ?? [];
  const speaking = elements.filter((element) => (element.type === 'video' || element.type === 'audio') && element.id !== undefined).map((element) => element.id!);
  elements.forEach((element, index) => {
    const source = element.transcript?.source;
    if (element.type !== 'text' || source === undefined) return;
    const path = ['elements', index, 'transcript', 'source'];
    const named = elements.find((candidate) => candidate.id === source);
    if (named) {
      if (named.type !== 'video' && named.type !== 'audio') {
        ctx.addIssue({ code: 'custom', path, message: `"${source}" is a ${named.type} element; captions come from the speech of a video or audio element`, params: { type: 'value_error' } });
      }
      return;
    }
    if (TASK_ID_PATTERN.test(source)) return;
    const suggestion = closestMatch(source, speaking);
    const known = speaking.length ? `; video/audio element ids here: ${speaking.map((id) => `"${id}"`).join(', ')}` : '; give the video or audio element an "id"';
    ctx.addIssue({
      code: 'custom',
      path,
      message: `"${source}" is neither the id of a video or audio element of this request nor a transcribe task id ("task_…")${suggestion ? ` (did you mean "${suggestion}"?)` : known}`,
      params: { type: 'value_error' },
    });
  });
}
