import { distance } from 'fastest-levenshtein';

/**
 * The closest candidate to `input`, or undefined when nothing is close enough to be a likely typo
 * (at most 2 edits, and fewer than half the characters of the input).
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
  if (best === undefined) return undefined;
  const maxEdits = Math.min(2, Math.floor(Math.max(needle.length, 1) / 2));
  return bestDistance > 0 && bestDistance <= maxEdits ? best : undefined;
}

/** RFC 6901 JSON pointer for a path of keys and indexes. */
export function jsonPointer(path: (string | number)[]): string {
  return path.map((part) => '/' + String(part).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}
