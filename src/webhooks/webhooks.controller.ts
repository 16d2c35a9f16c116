import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiRateLimited, ApiRoute } from '../common/openapi/api-docs.decorators';
import { RATE_LIMITS } from '../common/rate-limit/rate-limits';
import { WebhookDeliveryDto, WebhookDeliveryPageDto, WebhookDto, WebhookPageDto, WebhookWithSecretDto } from './dto/webhook.response';
import { ApiKeyAuth } from '../common/openapi/api-docs.decorators';
import { CurrentWorkspace } from '../common/auth/decorators';
import { PageQueryDto, PAGE_LIMIT } from '../common/pagination/pagination';
import { Workspace } from '../workspaces/workspace.entity';
import { CreateWebhookDto, ListDeliveriesDto, UpdateWebhookDto } from './dto/webhook.dto';
import { WebhooksService } from './webhooks.service';

@ApiTags('webhooks')
@ApiKeyAuth()
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @ApiRoute({
    summary: 'Register a webhook',
    description: 'The answer carries the workspace signing `secret` (Standard Webhooks).',
    ok: [201, WebhookWithSecretDto, 'The webhook, with the signing secret'],
    errors: [402, 413, 422],
  })
  register(@CurrentWorkspace() ws: Workspace, @Body() body: CreateWebhookDto) {
    return this.webhooks.register(ws, body);
  }

  @Get()
  @ApiRoute({ summary: 'List webhooks, newest first', ok: [200, WebhookPageDto, 'A page of webhooks'], errors: [422] })
  list(@CurrentWorkspace() ws: Workspace, @Query() query: PageQueryDto) {
    return this.webhooks.list(ws, query.limit ?? PAGE_LIMIT.default, query.cursor);
  }

  @Get(':id')
  @ApiRoute({ summary: 'One webhook', ok: [200, WebhookDto, 'The webhook'], errors: [404] })
  get(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.webhooks.get(ws, id);
  }

  @Patch(':id')
  @ApiRoute({ summary: 'Change the URL, the events or the enabled state', ok: [200, WebhookDto, 'The updated webhook'], errors: [404, 413, 422] })
  update(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Body() body: UpdateWebhookDto) {
    return this.webhooks.update(ws, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiRoute({ summary: 'Delete a webhook and its delivery log', noContent: 'Deleted', errors: [404] })
  async remove(@CurrentWorkspace() ws: Workspace, @Param('id') id: string): Promise<void> {
    await this.webhooks.remove(ws, id);
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiRoute({ summary: 'Send a `webhook.test` event', ok: [202, WebhookDeliveryDto, 'The queued delivery'], errors: [404, 409] })
  @ApiRateLimited([{ scope: 'webhook_test', ...RATE_LIMITS.webhook_test }])
  test(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.webhooks.sendTest(ws, id);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiRoute({ summary: 'Replace the workspace signing secret', description: 'Re-keys every webhook; answers with the new `secret`.', ok: [200, WebhookWithSecretDto, 'The webhook, with the new secret'], errors: [404] })
  rotateSecret(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.webhooks.rotateSecret(ws, id);
  }

  @Get(':id/deliveries')
  @ApiRoute({ summary: 'Deliveries to this webhook, newest first, with the outcome of their latest attempt', ok: [200, WebhookDeliveryPageDto, 'A page of deliveries'], errors: [404, 422] })
  deliveries(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Query() query: ListDeliveriesDto) {
    return this.webhooks.deliveries(ws, id, query);
  }

  @Post(':id/deliveries/:delivery_id/retry')
  @HttpCode(202)
  @ApiRoute({ summary: 'Send a delivery again now', ok: [202, WebhookDeliveryDto, 'The delivery, queued again'], errors: [404, 409] })
  retry(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Param('delivery_id') deliveryId: string) {
    return this.webhooks.retry(ws, id, deliveryId);
  }
}
