import type { RenderRequest } from '../schema/request';

/** Ids of elements that serve as another element's matte: they shape it and are not drawn themselves. */
export function matteSourceIds(request: RenderRequest): Set<string> {
  const ids = new Set<string>();
  for (const element of request.elements ?? []) {
    if (element.type !== 'audio' && element.visible !== false && element.matte && element.matte.source !== element.id) ids.add(element.matte.source);
  }
  return ids;
}
