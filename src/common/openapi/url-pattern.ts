/**
 * The URLs the service's URL rule accepts (composition/src/schema/url-rule.ts: an absolute http(s)
 * URL as the WHATWG parser reads it, with a host, without user:password), as a JSON Schema pattern
 * for the document: a dotted host name (the last label starts with a letter, so it is never read
 * as an IPv4 number; no `--` in a label, so never a broken `xn--` name), an optional port within
 * 0-65535, then a path, query and fragment of visible ASCII (anything else is percent-encoded). It is a little stricter than the
 * rule (IP-literal and non-ASCII hosts are accepted by the service but not matched here), never
 * looser: every string it matches passes the rule (test/openapi-strictness.spec.ts checks samples).
 */
const LABEL = '[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*';
const LAST_LABEL = '[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*';
const PORT = '(?::(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?';

export const HTTP_URL_PATTERN = `^https?://(?:${LABEL}\\.)+${LAST_LABEL}${PORT}(?:[/?#][\\x21-\\x7e]*)?$`;
