import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { PageDto } from '../../common/openapi/page.dto';
import { SUBSCRIBABLE_EVENTS } from '../webhook-events';

@ApiSchema({ name: 'Webhook' })
export class WebhookDto {
  @ApiProperty({ example: 'wh_01JD8Z3N5Q7W9X2Y4A6B8C0D1E' })
  id: string;

  @ApiProperty({ example: 'https://example.com/hooks/video' })
  url: string;

  @ApiProperty({ enum: SUBSCRIBABLE_EVENTS, isArray: true, example: ['render.completed', 'render.failed'] })
  events: string[];

  @ApiProperty()
  enabled: boolean;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

/** Registration and rotation show the workspace signing secret (Standard Webhooks, `whsec_…`). */
@ApiSchema({ name: 'WebhookWithSecret' })
export class WebhookWithSecretDto extends WebhookDto {
  @ApiProperty({ description: 'Verify deliveries with it (Standard Webhooks)', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
  secret: string;
}

@ApiSchema({ name: 'WebhookDelivery' })
export class WebhookDeliveryDto {
  @ApiProperty({ example: 'dlv_01JD8Z3N5Q7W9X2Y4A6B8C0D1E' })
  id: string;

  @ApiProperty({ description: 'The `webhook-id` header: the same for every attempt and retry of one event' })
  event_id: string;

  @ApiProperty({ example: 'render.completed' })
  event_type: string;

  @ApiProperty({ type: 'string', nullable: true, description: 'Null for a per-request `webhook_url`' })
  webhook_id: string | null;

  @ApiProperty()
  url: string;

  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] })
  status: string;

  @ApiProperty({ type: 'integer' })
  attempts: number;

  @ApiProperty({ type: 'integer', nullable: true })
  response_status_code: number | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'The first bytes of the answer' })
  response_excerpt: string | null;

  @ApiProperty({ type: 'string', nullable: true })
  error: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  next_attempt_at: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  last_attempt_at: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

export const WebhookPageDto = PageDto(WebhookDto, 'WebhookPage');
export const WebhookDeliveryPageDto = PageDto(WebhookDeliveryDto, 'WebhookDeliveryPage');
