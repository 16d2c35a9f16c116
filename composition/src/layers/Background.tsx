import type React from 'react';
import { AbsoluteFill, Img } from 'remotion';
import type { ResolvedRequest } from '../schema';

/** background_color, then background_image_url (cover), then background_gradient, behind every element. */
export const Background: React.FC<{ request: ResolvedRequest; load: (url: string) => string }> = ({ request, load }) => (
  <>
    <AbsoluteFill style={{ backgroundColor: request.backgroundColor }} />
    {request.backgroundImageUrl ? (
      <AbsoluteFill>
        <Img src={load(request.backgroundImageUrl)} style={{ width: '100%', height: '100%', objectFit: 'cover' }} />
      </AbsoluteFill>
    ) : null}
    {request.backgroundGradient ? <AbsoluteFill style={{ background: request.backgroundGradient }} /> : null}
  </>
);
