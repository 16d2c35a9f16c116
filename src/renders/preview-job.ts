import { planPreview, RenderedPreviewOptions, ResolvedRequest } from '../../composition/src/schema';
import { ApiError } from '../common/errors/api-error';

/**
 * At submit: the preview's times must lie on the request's timeline (else 422 pointing into
 * `preview`). The options are stored on the job as sent; the worker plans the frames again once
 * the media are probed, as their lengths may move the end.
 */
export function assertPreviewFits(preview: RenderedPreviewOptions, resolved: ResolvedRequest): void {
  const planned = planPreview(preview, resolved);
  if ('problems' in planned) throw ApiError.validation(planned.problems);
}
