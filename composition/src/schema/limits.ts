/**
 * Size limits of what a request may carry, defined once: the schema enforces them, the
 * capabilities document publishes them, and the REST DTOs that share a field (metadata) use the
 * same check. They bound what one tenant can make the service store, parse and send back.
 */
/** Canvas size and frame rate a request may ask for. */
export const CANVAS_LIMITS = {
  size: { min: 16, max: 8192 },
  frame_rate: { min: 1, max: 240, default: 30 },
} as const;

export const REQUEST_LIMITS = {
  /** Caller key-value pairs, serialised as UTF-8 JSON. */
  metadata_bytes: 16384,
  /** Nesting of objects and arrays inside metadata (the top-level object is depth 1). */
  metadata_depth: 10,
  /** Elements of one render request (plans may allow fewer: limits.plans). */
  elements: 1000,
  /** Transitions, groups and custom animations of one request. */
  transitions: 1000,
  groups: 1000,
  custom_animations: 200,
  /** Keyframes of one animation, motions or effects of one element, members of one group. */
  list_items: 200,
  /** Names and references (ids, animation names, matte sources). */
  name_length: 200,
  /** The text of one text element. */
  text_length: 10000,
} as const;

function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
  let deepest = 0;
  for (const child of children) deepest = Math.max(deepest, depthOf(child));
  return 1 + deepest;
}

/** Why `metadata` is refused, or null when it fits (REQUEST_LIMITS). */
export function metadataProblem(metadata: unknown): string | null {
  const depth = depthOf(metadata);
  if (depth > REQUEST_LIMITS.metadata_depth) {
    return `metadata is nested ${depth} levels deep; at most ${REQUEST_LIMITS.metadata_depth} are allowed`;
  }
  const bytes = new TextEncoder().encode(JSON.stringify(metadata) ?? '').length;
  if (bytes > REQUEST_LIMITS.metadata_bytes) {
    return `metadata is ${bytes} bytes as JSON; at most ${REQUEST_LIMITS.metadata_bytes} bytes are allowed`;
  }
  return null;
}
