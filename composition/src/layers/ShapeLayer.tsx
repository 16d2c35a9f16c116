import type React from 'react';
import type { ResolvedShape } from '../schema';
import { ElementBox } from './ElementBox';

/** SVG so the stroke lies inside the box and ellipses stay exact at any size. */
export const ShapeLayer: React.FC<{ element: ResolvedShape }> = ({ element }) => {
  const { width, height } = element.box;
  const inset = element.strokeColor ? element.strokeWidth / 2 : 0;
  const paint = {
    fill: element.fillColor,
    stroke: element.strokeColor ?? 'none',
    strokeWidth: element.strokeColor ? element.strokeWidth : 0,
  };
  const innerWidth = Math.max(0, width - 2 * inset);
  const innerHeight = Math.max(0, height - 2 * inset);
  return (
    <ElementBox box={element.box} timing={element}>
      <svg width={width} height={height} style={{ display: 'block', overflow: 'visible' }}>
        {element.shape === 'ellipse' ? (
          <ellipse cx={width / 2} cy={height / 2} rx={innerWidth / 2} ry={innerHeight / 2} {...paint} />
        ) : (
          <rect x={inset} y={inset} width={innerWidth} height={innerHeight} rx={element.borderRadius} ry={element.borderRadius} {...paint} />
        )}
      </svg>
    </ElementBox>
  );
};
