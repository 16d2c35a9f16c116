import { createContext } from 'react';
import type { FixedOpacity } from '../schema';

/** The element's forced opacity factor at the current frame (CompositionProps.fixedOpacity), or null. */
export const FixedOpacityContext = createContext<0 | 1 | null>(null);

/** frame → element → factor. */
export function fixedOpacityByFrame(entries: readonly FixedOpacity[] | undefined): Map<number, Map<number, 0 | 1>> {
  const byFrame = new Map<number, Map<number, 0 | 1>>();
  for (const { frame, element, factor } of entries ?? []) {
    const elements = byFrame.get(frame) ?? new Map<number, 0 | 1>();
    elements.set(element, factor);
    byFrame.set(frame, elements);
  }
  return byFrame;
}
