import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
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
  @ApiOperation({ summary: 'Register a webhook; the answer carries the workspace signing `secret`' })
  register(@CurrentWorkspace() ws: Workspace, @Body() body: CreateWebhookDto) {
    return this.webhooks.register(ws, body);
  }

  @Get()
  @ApiOperation({ summary: 'List webhooks, newest first' })
  list(@CurrentWorkspace() ws: Workspace, @Query() query: PageQueryDto) {
    return this.webhooks.list(ws, query.limit ?? PAGE_LIMIT.default, query.cursor);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One webhook' })
  get(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.webhooks.get(ws, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change the URL, the events or the enabled state' })
  update(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Body() body: UpdateWebhookDto) {
    return this.webhooks.update(ws, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook and its delivery log' })
  async remove(@CurrentWorkspace() ws: Workspace, @Param('id') id: string): Promise<void> {
    await this.webhooks.remove(ws, id);
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send a `webhook.test` event; 202 with the queued delivery' })
  test(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.webhooks.sendTest(ws, id);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({ summary: 'Replace the workspace signing secret (re-keys every webhook); answers with the new `secret`' })
  rotateSecret(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.webhooks.rotateSecret(ws, id);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: 'Deliveries to this webhook, newest first, with the outcome of their latest attempt' })
  deliveries(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Query() query: ListDeliveriesDto) {
    return this.webhooks.deliveries(ws, id, query);
  }

  @Post(':id/deliveries/:delivery_id/retry')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send a delivery again now; 202 with the delivery' })
  retry(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Param('delivery_id') deliveryId: string) {
    return this.webhooks.retry(ws, id, deliveryId);
  }
}
