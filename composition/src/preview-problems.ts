/**
 * What the browser could not load for a preview (a font file, a picture, LUT or sound its host does
 * not let this page read), reported instead of drawing a fallback in silence: a `console.error` naming
 * the URL and the reason, and every listener given to `onPreviewProblem`. Only the `<Player>`
 * reports; in a server render the same failures fail the render, as they always did.
 */
export type PreviewProblem = {
  /** What was being loaded: a shipped font file, a graded image, a `.cube` LUT, the sound of an audio or video element. */
  kind: 'font' | 'image' | 'lut' | 'sound';
  url: string;
  /** One sentence: what failed, why, and what it changes in the preview. */
  message: string;
};

const listeners = new Set<(problem: PreviewProblem) => void>();
const reported = new Set<string>();

/** Calls `listener` with every problem reported from now on; returns the function that stops it. */
export function onPreviewProblem(listener: (problem: PreviewProblem) => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** Reports a problem once per kind and URL (a Player redraws often). */
export function reportPreviewProblem(problem: PreviewProblem): void {
  const key = `${problem.kind} ${problem.url}`;
  if (reported.has(key)) return;
  reported.add(key);
  console.error(`@video-render-service/composition: ${problem.message}`);
  for (const listener of listeners) listener(problem);
}

/**
 * Whether the page can read `url`, and if not why, in words: a CORS refusal (a no-cors request
 * reaches the host but a cors one is refused), an HTTP status, or the network error.
 */
export async function whyUnreadable(url: string): Promise<{ readable: boolean; reason: string }> {
  try {
    const response = await fetch(url, { mode: 'cors', cache: 'no-store' });
    await response.body?.cancel();
    return response.ok ? { readable: true, reason: 'the file was read but could not be decoded' } : { readable: false, reason: `its host answered HTTP ${response.status}` };
  } catch (corsError) {
    try {
      await fetch(url, { mode: 'no-cors', cache: 'no-store' });
      const origin = typeof location === 'undefined' ? 'this page' : location.origin;
      return { readable: false, reason: `its host does not let ${origin} read it (CORS: the response needs Access-Control-Allow-Origin)` };
    } catch {
      return { readable: false, reason: `it could not be fetched (${String(corsError)})` };
    }
  }
}
