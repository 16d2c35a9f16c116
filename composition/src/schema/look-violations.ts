import type { RenderRequest } from './request';

type Add = (code: string, severity: 'error' | 'warning' | 'info', message: string, path: (string | number)[], ids?: (string | undefined)[]) => void;

/** Findings about the look fields (mattes, masks, blend modes): see composition/README.md. */
export function findLookViolations(request: RenderRequest, add: Add): void {
  const elements = request.elements ?? [];
  const byId = new Map<string, number>();
  elements.forEach((element, index) => {
    if (element.id !== undefined && !byId.has(element.id)) byId.set(element.id, index);
  });
  elements.forEach((element, index) => {
    if (element.type === 'audio' || element.visible === false) return;
    const here = ['elements', index];
    const { matte } = element;
    if (matte) {
      const sourceIndex = byId.get(matte.source);
      const source = sourceIndex === undefined ? undefined : elements[sourceIndex];
      const outcome = matte.invert ? 'the element is drawn without a matte' : 'nothing of the element is drawn';
      if (matte.source === element.id) {
        add('MATTE_SELF', 'error', `Element "${element.id}" cannot be its own matte; ${outcome}`, [...here, 'matte', 'source'], [element.id]);
      } else if (!source) {
        add('MATTE_UNKNOWN_SOURCE', 'error', `matte source "${matte.source}" names no element; ${outcome}`, [...here, 'matte', 'source'], [element.id]);
      } else if (source.type === 'audio') {
        add('MATTE_SOURCE_AUDIO', 'error', `matte source "${matte.source}" is an audio element, which has no picture; ${outcome}`, [...here, 'matte', 'source'], [element.id, matte.source]);
      } else if (source.visible === false) {
        add('MATTE_SOURCE_HIDDEN', 'error', `matte source "${matte.source}" has visible: false, so it shapes nothing; ${outcome}`, [...here, 'matte', 'source'], [element.id, matte.source]);
      } else {
        if (source.type === 'video') {
          add('MATTE_SOURCE_VIDEO_BOX', 'warning', `matte source "${matte.source}" is a video: it acts as its box (an opaque rectangle), not its pictures`, [...here, 'matte', 'source'], [element.id, matte.source]);
        }
        if (source.matte) {
          add('MATTE_SOURCE_HAS_MATTE', 'warning', `matte source "${matte.source}" has a matte of its own, which does not apply when it serves as a matte`, [...here, 'matte', 'source'], [element.id, matte.source]);
        }
        if (source.blend_mode !== undefined || (source.effects ?? []).length > 0) {
          add('MATTE_SOURCE_LOOK_IGNORED', 'info', `matte source "${matte.source}" is not drawn, so its blend mode and effects do not show`, [...here, 'matte', 'source'], [element.id, matte.source]);
        }
      }
    }
    if (element.mask_shape === undefined && (element.mask !== undefined || (element.mask_keyframes ?? []).length > 0)) {
      add('MASK_WITHOUT_SHAPE', 'info', 'mask or mask_keyframes without mask_shape: the mask is a rectangle', [...here, element.mask !== undefined ? 'mask' : 'mask_keyframes'], [element.id]);
    }
    const keyframeTimes = (element.mask_keyframes ?? []).map((keyframe) => keyframe.time);
    if (new Set(keyframeTimes).size !== keyframeTimes.length) {
      add('MASK_KEYFRAMES_SAME_TIME', 'warning', 'two mask_keyframes share a time; the later one in the list wins from that time on', [...here, 'mask_keyframes'], [element.id]);
    }
    const backdropBlur = element.type === 'video' || element.type === 'image' ? (element.backdrop_blur ?? 0) : 0;
    if (request.alpha && backdropBlur > 0) {
      add('BACKDROP_BLUR_OVER_TRANSPARENT', 'info', 'backdrop_blur blurs the layers below; where there are none (alpha output) it blurs transparency', [...here, 'backdrop_blur'], [element.id]);
    }
    if (element.blend_mode !== undefined && element.blend_mode !== 'normal' && backdropBlur > 0) {
      add('BACKDROP_BLUR_WITH_BLEND_MODE', 'warning', 'backdrop_blur does not reach the layers below an element with a blend mode (the blend isolates it)', [...here, 'backdrop_blur'], [element.id]);
    }
  });
}
