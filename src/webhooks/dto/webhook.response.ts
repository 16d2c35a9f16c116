import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { PageDto } from '../../common/openapi/page.dto';
import { SUBSCRIBABLE_EVENTS } from '../webhook-events';
import { ApiId, ApiInteger, ApiNullable, ApiTimestamp, ApiTimestampOrNull } from '../../common/openapi/fields';

@ApiSchema({ name: 'Webhook' })
export class WebhookDto {
  @ApiId('wh')
  id: string;

  @ApiProperty({ example: 'https://example.com/hooks/video' })
  url: string;

  @ApiProperty({ enum: SUBSCRIBABLE_EVENTS, isArray: true, example: ['render.completed', 'render.failed'] })
  events: string[];

  @ApiProperty()
  enabled: boolean;

  @ApiTimestamp()
  created_at: string;

  @ApiTimestamp()
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
  @ApiId('dlv')
  id: string;

  @ApiProperty({ description: 'The `webhook-id` header: the same for every attempt and retry of one event' })
  event_id: string;

  @ApiProperty({ example: 'render.completed' })
  event_type: string;

  @ApiNullable('string', { description: 'Null for a per-request `webhook_url`' })
  webhook_id: string | null;

  @ApiProperty()
  url: string;

  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] })
  status: string;

  @ApiInteger()
  attempts: number;

  @ApiNullable('integer')
  response_status_code: number | null;

  @ApiNullable('string', { description: 'The first bytes of the answer' })
  response_excerpt: string | null;

  @ApiNullable('string')
  error: string | null;

  @ApiTimestampOrNull()
  next_attempt_at: string | null;

  @ApiTimestampOrNull()
  last_attempt_at: string | null;

  @ApiTimestamp()
  created_at: string;

  @ApiTimestamp()
  updated_at: string;
}

export const WebhookPageDto = PageDto(WebhookDto, 'WebhookPage');
export const WebhookDeliveryPageDto = PageDto(WebhookDeliveryDto, 'WebhookDeliveryPage');
