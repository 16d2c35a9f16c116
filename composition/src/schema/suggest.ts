import { distance } from 'fastest-levenshtein';

/**
 * The candidate closest to `input` by edit distance, or undefined when none is close enough to be
 * a likely typo: at most 2 edits and fewer than half the input's characters. Case is ignored, so
 * "inter" suggests "Inter".
 */
export function closestMatch(input: string, candidates: Iterable<string>): string | undefined {
  const needle = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(needle, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const maxEdits = Math.min(2, Math.floor(needle.length / 2));
  return best !== undefined && best !== input && bestDistance <= maxEdits ? best : undefined;
}

/** RFC 6901 pointer for a path of keys and indexes ('' is the whole document). */
export function jsonPointer(path: readonly PropertyKey[]): string {
  return path.map((part) => '/' + String(part).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}
