export { createClient, unwrap } from './client';
export type {
  ClientOptions, DownloadLink, DownloadedFile, JobKind, JobStatus, RenderRequest, RenderResult, SubmitOptions, SubmittedJob, VideoRenderClient, WaitOptions,
} from './client';
export { JobFailedError, VideoRenderApiError } from './errors';
export type { ErrorCode, ErrorEnvelope, Job, ValidationErrorItem } from './errors';
export { readEventStream, type ServerSentEvent } from './events';
export { Webhook, WebhookVerificationError } from './webhooks';
export type { components, operations, paths } from './generated/openapi';
