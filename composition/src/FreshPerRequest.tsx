import type React from 'react';
import { useMemo } from 'react';
import { Main } from './Main';
import type { CompositionProps } from './schema';

/**
 * `Main` keyed by its props' content, for the server's bundle: a worker's browser tab draws stills
 * of one request after another, and a new request must mount a fresh tree (no state, no pending
 * loads of the previous one). The same request keeps its key, so a video render never remounts.
 */
export const FreshPerRequest: React.FC<CompositionProps> = (props) => {
  const key = useMemo(() => JSON.stringify([props.request, props.media, props.sources, props.transcripts]), [props.request, props.media, props.sources, props.transcripts]);
  return <Main key={key} {...props} />;
};
