import type React from 'react';
import type { ResolvedElement, ResolvedRequest, VisualElement } from '../schema';
import type { RenderRequest } from '../schema/request';
import { LookProvider } from './context';
import { Blend } from './Look';
import { Matte } from './matte';

/**
 * One visual element with its look: the look fields handed to ElementBox and the media layers,
 * its track matte, then its blend mode over the layers below.
 */
export const LookLayer: React.FC<{
  element: ResolvedElement;
  request: RenderRequest;
  resolved: ResolvedRequest;
  load: (url: string) => string;
  /** The element's paint order now (motion/element-style.ts), carried by the wrappers that isolate it. */
  zIndex?: number;
  children: React.ReactNode;
}> = ({ element, request, resolved, load, zIndex, children }) => {
  const raw = request.elements![element.index] as VisualElement;
  const matteSource = raw.matte ? (resolved.elements.find((candidate) => candidate.id === raw.matte!.source && candidate.index !== element.index) ?? null) : null;
  return (
    <LookProvider element={raw} lookKey={`e${element.index}`} load={load}>
      <Blend element={raw} zIndex={zIndex}>
        {raw.matte ? (
          <Matte target={element} targetRaw={raw} source={matteSource} canvas={resolved} load={load} zIndex={zIndex}>
            {children}
          </Matte>
        ) : (
          children
        )}
      </Blend>
    </LookProvider>
  );
};

export { matteSourceIds } from './matte-sources';
