import type React from 'react';
import { createContext, useContext } from 'react';
import type { EffectsProp } from 'remotion';
import type { VisualElement } from '../schema/elements';
import { Look } from './Look';
import { useGrade } from './use-grade';

interface LookSource {
  /** The element as requested (the look fields are read from it). */
  element: VisualElement;
  /** Unique per element. */
  lookKey: string;
  load: (url: string) => string;
}

const LookContext = createContext<LookSource | null>(null);

/** Gives the layers below (ElementBox, VideoLayer, ImageLayer) the element's look fields. */
export const LookProvider: React.FC<LookSource & { children: React.ReactNode }> = ({ children, ...source }) => (
  <LookContext.Provider value={source}>{children}</LookContext.Provider>
);

/** Frame, mask, shadow and effects around an element's content (see Look); a pass-through without a provider. */
export const LookFrame: React.FC<{ width: number | null; height: number | null; children: React.ReactNode }> = ({ width, height, children }) => {
  const source = useContext(LookContext);
  if (!source) return <>{children}</>;
  return (
    <Look element={source.element} width={width} height={height} lookKey={source.lookKey}>
      {children}
    </Look>
  );
};

const NO_EFFECTS: EffectsProp = [];

/** The colour grade effects of the current video or image element (none without a provider). */
export function useGradeEffects(): EffectsProp {
  const source = useContext(LookContext);
  const effects = useGrade(source?.element ?? FALLBACK, source?.load ?? identity);
  return source ? effects : NO_EFFECTS;
}

const FALLBACK: VisualElement = { type: 'shape' };
const identity = (url: string) => url;
