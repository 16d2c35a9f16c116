// The sources of the previewed request, loaded as a render loads them: through the service's
// guarded fetcher (POST /v1/playground/media), never by the browser from the URL itself. A
// source the render would refuse is refused here with the render's error, and is left out of
// the preview rather than shown from wherever the browser could reach.
import { externalSources, type ExternalSource, type MediaInfo, type RenderRequest } from '@video-render-service/composition';
import { ApiFailure, proxiedMedia, type ErrorEnvelope } from './api';

export type SourceState =
  | { state: 'loading' }
  | { state: 'ready'; objectUrl: string; info: MediaInfo }
  | { state: 'failed'; code: string; message: string };

export interface PreviewNote {
  pointer: string;
  message: string;
}

/** Loads each source once per key and remembers the outcome; `onChange` fires as loads finish. */
export class PreviewMedia {
  private readonly states = new Map<string, SourceState>();
  private readonly aborts = new AbortController();
  private key = '';

  constructor(private readonly onChange: () => void) {}

  /** The sources of `request` not tried yet with `key` start loading. */
  want(request: RenderRequest, key: string): void {
    if (key !== this.key) {
      this.key = key;
      for (const state of this.states.values()) if (state.state === 'ready') URL.revokeObjectURL(state.objectUrl);
      this.states.clear();
    }
    if (!key) return;
    for (const source of externalSources(request)) {
      if (this.states.has(source.url)) continue;
      this.states.set(source.url, { state: 'loading' });
      void this.load(source, key);
    }
  }

  get(url: string): SourceState | undefined {
    return this.states.get(url);
  }

  dispose(): void {
    this.aborts.abort();
    for (const state of this.states.values()) if (state.state === 'ready') URL.revokeObjectURL(state.objectUrl);
  }

  private async load(source: ExternalSource, key: string): Promise<void> {
    let next: SourceState;
    try {
      const blob = await proxiedMedia(key, source.url, this.aborts.signal);
      const objectUrl = URL.createObjectURL(blob);
      next = { state: 'ready', objectUrl, info: await probe(objectUrl, source.kind) };
    } catch (error) {
      if (this.aborts.signal.aborted) return;
      next =
        error instanceof ApiFailure
          ? { state: 'failed', code: error.envelope.code, message: atRequestField(error.envelope, source.pointer) }
          : { state: 'failed', code: 'network', message: String(error) };
    }
    if (key !== this.key) return;
    this.states.set(source.url, next);
    this.onChange();
  }
}

/**
 * The media route names the field of its own body (`/url`); the page says it of the request's
 * field that holds the URL (`/elements/0/source_url`), as a render's error would.
 */
function atRequestField(envelope: ErrorEnvelope, pointer: string): string {
  const own = envelope.details?.pointer;
  return typeof own === 'string' && own !== '' ? envelope.message.split(` ${own} `).join(` ${pointer} `) : envelope.message;
}

/** Duration and size as the worker's probe reports them, read by the browser from the loaded bytes. */
function probe(objectUrl: string, kind: ExternalSource['kind']): Promise<MediaInfo> {
  if (kind === 'lut') return Promise.resolve({});
  return new Promise((resolve) => {
    if (kind === 'image' || kind === 'background' || kind === 'watermark') {
      const image = new Image();
      image.onload = () => resolve({ width: image.naturalWidth, height: image.naturalHeight });
      image.onerror = () => resolve({});
      image.src = objectUrl;
      return;
    }
    const media = document.createElement(kind === 'audio' ? 'audio' : 'video');
    media.preload = 'metadata';
    media.onloadedmetadata = () => {
      const info: MediaInfo = { duration: Number.isFinite(media.duration) ? media.duration : undefined, has_audio: true };
      if (media instanceof HTMLVideoElement && media.videoWidth > 0) Object.assign(info, { width: media.videoWidth, height: media.videoHeight, has_video: true });
      resolve(info);
    };
    media.onerror = () => resolve({});
    media.src = objectUrl;
  });
}

/**
 * What the Player shows: the request with every source that is not loaded left out (hidden
 * elements, no background image, LUT or watermark), the loaded ones mapped to their bytes via
 * `sources` (as the worker maps them to local copies), and a note for each left out.
 */
export function previewOf(request: RenderRequest, media: PreviewMedia, hasKey: boolean) {
  const notes: PreviewNote[] = [];
  const sources: Record<string, string> = {};
  const info: Record<string, MediaInfo> = {};
  const usable = (url: string | null | undefined, pointer: string): boolean => {
    if (!url) return true;
    const state = media.get(url);
    if (state?.state === 'ready') {
      sources[url] = state.objectUrl;
      info[url] = state.info;
      return true;
    }
    if (!hasKey) notes.push({ pointer, message: 'Not in the preview: type an API key so the service can fetch this source as a render would' });
    else if (state?.state === 'failed') notes.push({ pointer, message: `Not in the preview (${state.code}): ${state.message}` });
    else notes.push({ pointer, message: 'Loading this source through the service…' });
    return false;
  };
  const shown: RenderRequest = { ...request };
  if (!usable(request.background_image_url, '/background_image_url')) delete shown.background_image_url;
  if (!usable(request.watermark_url, '/watermark_url')) delete shown.watermark_url;
  shown.elements = (request.elements ?? []).map((element, index) => {
    if (element.type === 'text' || element.type === 'shape' || element.type === 'waveform' || element.visible === false) return element;
    const copy = { ...element };
    if (!usable(element.source_url, `/elements/${index}/source_url`)) copy.visible = false;
    if ((copy.type === 'video' || copy.type === 'image') && !usable(copy.lut_url, `/elements/${index}/lut_url`)) delete copy.lut_url;
    return copy;
  }) as RenderRequest['elements'];
  return { request: shown, sources, media: info, notes };
}
