import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString } from 'class-validator';
import { IsText } from '../../common/validation/is-text.validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import { HTTP_URL_PATTERN } from '../../common/openapi/url-pattern';
import { URL_MAX_LENGTH } from '../../common/validation/http-url.validator';
import type { DeliveryStatus } from '../webhook-delivery.entity';
import { SUBSCRIBABLE_EVENTS } from '../webhook-events';
import { OptionalFlag } from '../../common/validation/optional-fields';

/** Event names are checked against the catalog by the service, which can point at the offending item. */
const MAX_EVENT_NAMES = 20;

export class CreateWebhookDto {
  @ApiProperty({
    description: 'HTTPS endpoint that receives the events (plain http only where the deployment allows it); a public address',
    example: 'https://example.com/hooks/video',
    minLength: 1,
    maxLength: URL_MAX_LENGTH,
    // WebhooksService checks the URL rule (and more: https, public address) with every problem at once.
    format: 'uri',
    pattern: HTTP_URL_PATTERN,
  })
  @IsText(URL_MAX_LENGTH)
  url: string;

  @ApiProperty({ description: 'Events to receive', enum: SUBSCRIBABLE_EVENTS, isArray: true, minItems: 1, example: ['render.completed', 'render.failed'] })
  @IsArray()
  @ArrayMaxSize(MAX_EVENT_NAMES)
  @IsString({ each: true })
  events: string[];
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ description: 'As on registration', minLength: 1, maxLength: URL_MAX_LENGTH, format: 'uri', pattern: HTTP_URL_PATTERN })
  @IsOptional()
  @IsText(URL_MAX_LENGTH)
  url?: string;

  @ApiPropertyOptional({ enum: SUBSCRIBABLE_EVENTS, isArray: true, minItems: 1 })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_EVENT_NAMES)
  @IsString({ each: true })
  events?: string[];

  @OptionalFlag({ description: 'A disabled webhook receives no new events, and its pending retries stop' })
  enabled?: boolean;
}

export const DELIVERY_STATUSES: DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

export class ListDeliveriesDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}
