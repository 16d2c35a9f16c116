import type { RenderRequest } from './request';
import { jsonPointer } from './suggest';

/** A URL the renderer reads, with where it first appears in the request. */
export interface ExternalSource {
  url: string;
  pointer: string;
  kind: 'video' | 'audio' | 'image' | 'background' | 'watermark' | 'lut' | 'font';
}

/**
 * Every distinct URL the renderer would load (visible elements and their LUTs, background image,
 * watermark),
 * once each, so the worker can download each before rendering and pass the local copies as
 * `sources`.
 */
export function externalSources(request: RenderRequest): ExternalSource[] {
  const found = new Map<string, ExternalSource>();
  const add = (url: string | null | undefined, kind: ExternalSource['kind'], path: (string | number)[]) => {
    if (url && !found.has(url)) found.set(url, { url, kind, pointer: jsonPointer(path) });
  };
  add(request.background_image_url, 'background', ['background_image_url']);
  (request.elements ?? []).forEach((element, index) => {
    if (element.type !== 'text' && element.type !== 'shape' && element.type !== 'waveform' && element.visible !== false) {
      add(element.source_url, element.type, ['elements', index, 'source_url']);
      if (element.type === 'video' || element.type === 'image') add(element.lut_url, 'lut', ['elements', index, 'lut_url']);
    }
  });
  add(request.watermark_url, 'watermark', ['watermark_url']);
  (request.fonts ?? []).forEach((font, index) => add(font.source_url, 'font', ['fonts', index, 'source_url']));
  return [...found.values()];
}
