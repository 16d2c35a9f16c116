import * as path from 'node:path';

/** What a stored media file is: the three kinds the service renders and transcribes. */
export const MEDIA_KINDS = ['video', 'audio', 'image'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

/** What an upload may be: media, or a font file (TrueType, OpenType, WOFF, WOFF2) for the request's `fonts`. */
export const UPLOAD_KINDS = [...MEDIA_KINDS, 'font'] as const;
export type UploadKind = (typeof UPLOAD_KINDS)[number];

/** Font files' types: font/… (registered) and the older application/… ones servers and tools still send. */
const FONT_TYPE = /^(?:font\/|application\/(?:x-)?font-|application\/vnd\.ms-opentype$)/;

/** `type/subtype` with optional parameters, printable ASCII only: it travels in a URL and a header. */
export const CONTENT_TYPE_PATTERN = /^[A-Za-z0-9][\w!#$&^.+-]*\/[A-Za-z0-9][\w!#$&^.+-]*(\s*;[\x20-\x7e]*)?$/;

/** Extensions of the common types, for storage keys (players and ffprobe like a familiar one). */
const EXTENSION_BY_TYPE: Record<string, string> = {
  'video/mp4': '.mp4',
  'video/webm': '.webm',
  'video/quicktime': '.mov',
  'video/x-matroska': '.mkv',
  'video/mpeg': '.mpg',
  'video/ogg': '.ogv',
  'audio/mpeg': '.mp3',
  'audio/mp4': '.m4a',
  'audio/aac': '.aac',
  'audio/wav': '.wav',
  'audio/x-wav': '.wav',
  'audio/wave': '.wav',
  'audio/ogg': '.ogg',
  'audio/flac': '.flac',
  'audio/opus': '.opus',
  'audio/webm': '.weba',
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'image/avif': '.avif',
  'image/svg+xml': '.svg',
  'font/ttf': '.ttf',
  'font/otf': '.otf',
  'font/woff': '.woff',
  'font/woff2': '.woff2',
};

const TYPE_BY_EXTENSION: Record<string, string> = Object.fromEntries(
  Object.entries(EXTENSION_BY_TYPE).reverse().map(([type, extension]) => [extension, type]),
);

/** `video/mp4; codecs=…` → `video/mp4`. */
export function essenceOf(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

/** video/*, audio/* and image/* are assets; nothing else is. */
export function assetKindOf(contentType: string): MediaKind | null {
  const top = essenceOf(contentType).split('/')[0];
  return top === 'video' || top === 'audio' || top === 'image' ? top : null;
}

/**
 * The kind of an upload: media by its type, a font by a font type. Null for anything else. The bytes
 * are checked once they land (ffprobe for media, the font reader for fonts).
 */
export function uploadKindOf(contentType: string): UploadKind | null {
  const media = assetKindOf(contentType);
  if (media) return media;
  return FONT_TYPE.test(essenceOf(contentType)) ? 'font' : null;
}

/** `.mp4` from a file name or URL path ending in one, lower-cased; '' when there is none. */
export function extensionOfName(name: string): string {
  const match = /\.([A-Za-z0-9]{1,8})$/.exec(name);
  return match ? `.${match[1].toLowerCase()}` : '';
}

/**
 * The extension of a URL's path (`.mp4`), lower-cased, for naming the local copy of a source so
 * that ffprobe and Chromium see its container; '' when it has none or the URL does not parse.
 */
export function extensionOfUrl(url: string): string {
  try {
    const ext = path.extname(new URL(url).pathname).toLowerCase();
    return /^\.[a-z0-9]{1,5}$/.test(ext) ? ext : '';
  } catch {
    return '';
  }
}

/** The name's own extension, else the usual one of the content type, else none. */
export function storageExtension(name: string | null, contentType: string | null): string {
  return (name ? extensionOfName(name) : '') || (contentType ? EXTENSION_BY_TYPE[essenceOf(contentType)] ?? '' : '');
}

/** For files served without a Content-Type: the type their extension usually has. */
export function contentTypeOfExtension(extension: string): string | null {
  return TYPE_BY_EXTENSION[extension] ?? null;
}

/**
 * A web page, not media: what a URL of a page (or a login wall) answers instead of the file. Never
 * stored: served back from the service's storage it would be a document on the service's origin.
 */
export function isWebPage(contentType: string | null | undefined): boolean {
  const essence = essenceOf(contentType ?? '');
  return essence === 'text/html' || essence === 'application/xhtml+xml';
}
