import { easingFunction } from '../motion/easing';
import type { VisualElement } from '../schema/elements';
import { activeEffects, frameLook, maskAt, maskSvg } from './resolve-look';

const image = (rest: object): VisualElement => ({ type: 'image', source_url: 'https://example.com/a.png', ...rest }) as VisualElement;

describe('look resolution', () => {
  it('crops in px or percent of the element size, keeping the box', () => {
    expect(frameLook(image({ crop_left: '25%', crop_top: 10, crop_bottom: '50%' }), 200, 100).crop).toEqual({ top: 10, bottom: 50, left: 50, right: 0 });
    expect(frameLook(image({ crop_left: 500 }), 200, 100).crop.left).toBe(200);
  });

  it('draws a border when a colour or width is set, a shadow when any shadow field is', () => {
    expect(frameLook(image({ border_color: '#ff0000' }), 10, 10)).toMatchObject({ borderWidth: 1, borderColor: '#ff0000' });
    expect(frameLook(image({ border_width: 4 }), 10, 10)).toMatchObject({ borderWidth: 4, borderColor: '#000000' });
    expect(frameLook(image({}), 10, 10)).toMatchObject({ borderWidth: 0, shadow: null });
    expect(frameLook(image({ shadow_y: 5 }), 10, 10).shadow).toBe('drop-shadow(0px 5px 0px #000000bf)');
    expect(frameLook({ type: 'shape', border_radius: 12 }, 10, 10).borderRadius).toBe(0);
  });

  it('interpolates mask keyframes with the arriving keyframe easing, holding before and after', () => {
    const element = image({
      mask_shape: 'circle',
      mask: { feather: 4 },
      mask_keyframes: [{ time: 1, scale: '0%' }, { time: 3, scale: '100%', center: { x: 0, y: '50%' }, easing: 'ease_in' }],
    });
    expect(maskAt(element, 200, 100, 0)).toEqual({ shape: 'circle', feather: 4, scale: 0, centerX: 100, centerY: 50 });
    const eased = easingFunction('ease_in')(0.5);
    const middle = maskAt(element, 200, 100, 2)!;
    expect(middle.scale).toBeCloseTo(eased, 10);
    expect(middle.centerX).toBeCloseTo(100 - 100 * eased, 10);
    expect(maskAt(element, 200, 100, 9)).toEqual({ shape: 'circle', feather: 4, scale: 1, centerX: 0, centerY: 50 });
    expect(maskAt(image({}), 200, 100, 0)).toBeNull();
    const spring = image({ mask_shape: 'ellipse', mask_keyframes: [{ time: 0, scale: '0%' }, { time: 1, scale: '100%', spring: { stiffness: 80 } }] });
    expect(maskAt(spring, 10, 10, 0.5)!.scale).toBeCloseTo(easingFunction({ spring: { stiffness: 80 } })(0.5), 10);
  });

  it('writes the mask as an SVG the size of the box, feathered by a blur', () => {
    const svg = maskSvg({ shape: 'ellipse', feather: 10, scale: 0.5, centerX: 50, centerY: 25 }, 100, 50);
    expect(svg).toContain('width="100" height="50"');
    expect(svg).toContain('<ellipse cx="50" cy="25" rx="25" ry="12.5"');
    expect(svg).toContain('stdDeviation="5"');
    expect(maskSvg({ shape: 'rectangle', feather: 0, scale: 1, centerX: 50, centerY: 25 }, 100, 50)).not.toContain('filter');
  });

  it('turns effects on in their time window, intensity 1 by default', () => {
    const element = image({ effects: [{ type: 'blur' }, { type: 'invert', time: 1, duration: 0.5, intensity: '50%' }] });
    expect(activeEffects(element, 0.5)).toEqual([{ type: 'blur', intensity: 1, index: 0 }]);
    expect(activeEffects(element, 1.2)).toEqual([{ type: 'blur', intensity: 1, index: 0 }, { type: 'invert', intensity: 0.5, index: 1 }]);
    expect(activeEffects(element, 1.5)).toEqual([{ type: 'blur', intensity: 1, index: 0 }]);
  });
});
