/** Longest URL accepted anywhere (a source, a webhook, an upload's source_url). */
export const URL_MAX_LENGTH = 2083;

/**
 * The one rule for a URL the service will fetch, shared by the render schema (zod, also in
 * browsers), the REST DTOs (class-validator) and the guarded fetcher: 1–2083 characters, an
 * absolute http(s) URL as the WHATWG URL parser reads it, with a host and no user:password.
 * Returns why `raw` breaks it, or null.
 */
export function httpUrlProblem(raw: string): string | null {
  if (raw.length < 1 || raw.length > URL_MAX_LENGTH) return `A URL must be 1 to ${URL_MAX_LENGTH} characters (got ${raw.length})`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Input should be an http(s) URL: not a valid absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `Input should be an http(s) URL: only http and https URLs are fetched (got ${url.protocol.slice(0, -1)})`;
  if (!url.hostname) return 'The URL has no host';
  if (url.username || url.password) return 'URLs with credentials (user:password@) are not accepted';
  return null;
}
