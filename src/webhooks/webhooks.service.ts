import { Inject, Injectable } from '@nestjs/common';
import { ApiError, ValidationErrorItem } from '../common/errors/api-error';
import { newId } from '../common/ids';
import { RateLimitService } from '../common/rate-limit/rate-limit.service';
import { decodeCursor, Page, toPage, PAGE_LIMIT } from '../common/pagination/pagination';
import { closestMatch } from '../common/validation/suggest';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { AddressPolicy } from '../infra/http/address-policy';
import { Workspace } from '../workspaces/workspace.entity';
import { WorkspaceCapsService } from '../workspaces/workspace-caps.service';
import { DeliverySchedulerService } from './delivery-scheduler.service';
import { CreateWebhookDto, ListDeliveriesDto, UpdateWebhookDto } from './dto/webhook.dto';
import { SigningSecretsService } from './signing-secrets.service';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { isProgressEvent, SUBSCRIBABLE_EVENTS, SubscribableEvent } from './webhook-events';
import { webhookUrlProblem } from './webhook-url';
import { Webhook } from './webhook.entity';
import { WebhookRepository } from './webhook.repository';
import { DeliveryView, toDeliveryView, toWebhookView, WebhookView } from './webhook.views';

/** Workspace webhooks. Every lookup is scoped to the caller's workspace: another's id is 404. */
@Injectable()
export class WebhooksService {
  private readonly addressPolicy: AddressPolicy;

  constructor(
    private readonly transactions: TransactionRepository,
    private readonly webhooks: WebhookRepository,
    private readonly deliveryRows: WebhookDeliveryRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly secrets: SigningSecretsService,
    private readonly scheduler: DeliverySchedulerService,
    private readonly rateLimits: RateLimitService,
    private readonly caps: WorkspaceCapsService,
  ) {
    this.addressPolicy = new AddressPolicy({ allowPrivateNetwork: config.allowPrivateNetwork });
  }

  async register(workspace: Workspace, body: CreateWebhookDto): Promise<WebhookView & { secret: string }> {
    const events = this.parse(body);
    const id = newId('wh');
    return this.transactions.run(async (tx) => {
      await this.caps.assertBelow(tx, workspace, 'webhooks', () => this.webhooks.countInWorkspace(tx, workspace.id));
      const webhook = await this.webhooks.insert(tx, { id, workspaceId: workspace.id, url: body.url, events: events!, enabled: true });
      const secret = await this.secrets.get(workspace.id, tx);
      return { ...toWebhookView(webhook), secret };
    });
  }

  async list(workspace: Workspace, limit: number, cursor?: string): Promise<Page<WebhookView>> {
    const before = decodeCursor(cursor, 'wh');
    return toPage(await this.webhooks.listInWorkspace(workspace.id, limit + 1, before), limit, toWebhookView);
  }

  async get(workspace: Workspace, id: string): Promise<WebhookView> {
    return toWebhookView(await this.find(workspace, id));
  }

  async update(workspace: Workspace, id: string, body: UpdateWebhookDto): Promise<WebhookView> {
    const webhook = await this.find(workspace, id);
    const events = this.parse(body);
    await this.webhooks.update(
      webhook.id,
      {
        ...(body.url !== undefined ? { url: body.url } : {}),
        ...(events !== undefined ? { events } : {}),
        ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      },
    );
    return this.get(workspace, id);
  }

  /** Its deliveries go with it, and their pending retries stand down. */
  async remove(workspace: Workspace, id: string): Promise<void> {
    const webhook = await this.find(workspace, id);
    await this.webhooks.delete(webhook.id);
  }

  /** Queues a `webhook.test` event for this webhook alone, whatever it subscribes to and even when disabled. */
  async sendTest(workspace: Workspace, id: string): Promise<DeliveryView> {
    const webhook = await this.find(workspace, id);
    // Each test makes the service call out: bounded per workspace, like a side effect should be.
    await this.rateLimits.enforce('webhook_test', workspace.id);
    const [delivery] = await this.transactions.run((tx) =>
      this.scheduler.createEvent(
        tx,
        {
          workspaceId: workspace.id,
          type: 'webhook.test',
          data: { webhook_id: webhook.id, message: 'A test event; a 2xx answer marks the delivery succeeded' },
          jobId: null,
        },
        [{ webhookId: webhook.id, url: webhook.url }],
        { manual: true },
      ),
    );
    return toDeliveryView(delivery, 'webhook.test');
  }

  /** A new workspace secret: every webhook (and per-request URL) is signed with it from now on. */
  async rotateSecret(workspace: Workspace, id: string): Promise<WebhookView & { secret: string }> {
    const webhook = await this.find(workspace, id);
    const secret = await this.secrets.rotate(workspace.id);
    return { ...toWebhookView(webhook), secret };
  }

  async deliveries(workspace: Workspace, id: string, query: ListDeliveriesDto): Promise<Page<DeliveryView>> {
    const webhook = await this.find(workspace, id);
    const limit = query.limit ?? PAGE_LIMIT.default;
    const before = decodeCursor(query.cursor, 'dlv');
    const rows = await this.deliveryRows.listForWebhook(webhook.id, { status: query.status, before }, limit + 1);
    const types = await this.deliveryRows.eventTypes(rows.map((row) => row.eventId));
    return toPage(rows, limit, (row) => toDeliveryView(row, types.get(row.eventId)!));
  }

  /**
   * Sends the delivery again now, whatever its status. It counts as its next attempt; if that fails
   * too, automatic retries go on while the schedule has attempts left.
   */
  async retry(workspace: Workspace, id: string, deliveryId: string): Promise<DeliveryView> {
    const webhook = await this.find(workspace, id);
    return this.transactions.run(async (tx) => {
      const delivery = await this.deliveryRows.findForWebhook(tx, webhook.id, deliveryId);
      if (!delivery) throw ApiError.notFound('Delivery');
      await this.scheduler.schedule(tx, delivery.id, 0, { manual: true });
      const types = await this.deliveryRows.eventTypes([delivery.eventId], tx);
      return toDeliveryView(await this.deliveryRows.getById(tx, delivery.id), types.get(delivery.eventId)!);
    });
  }

  private async find(workspace: Workspace, id: string): Promise<Webhook> {
    const webhook = await this.webhooks.findInWorkspace(workspace.id, id);
    if (!webhook) throw ApiError.notFound('Webhook');
    return webhook;
  }

  /** A job's own `webhook_url` must pass the same rules as a registered one; 422 at submit otherwise. */
  assertJobWebhookUrl(url: string | null | undefined): void {
    if (!url) return;
    const problem = webhookUrlProblem(url, { allowHttp: this.config.webhooks.allowHttp, addressPolicy: this.addressPolicy });
    if (problem) throw ApiError.validation([{ ...problem, loc: ['body', 'webhook_url'], pointer: '/webhook_url' }]);
  }

  /**
   * Checks the URL and event names of a registration or update; every problem is reported at once.
   * Returns the event names, deduplicated, when they were given.
   */
  private parse(body: { url?: string; events?: string[] }): SubscribableEvent[] | undefined {
    const errors: ValidationErrorItem[] = [];
    if (body.url !== undefined) {
      const problem = webhookUrlProblem(body.url, { allowHttp: this.config.webhooks.allowHttp, addressPolicy: this.addressPolicy });
      if (problem) errors.push({ ...problem, loc: ['body', 'url'], pointer: '/url' });
    }
    if (body.events !== undefined && body.events.length === 0) {
      errors.push({ type: 'too_short', loc: ['body', 'events'], msg: 'List should have at least 1 item', pointer: '/events' });
    }
    body.events?.forEach((name, index) => {
      if ((SUBSCRIBABLE_EVENTS as readonly string[]).includes(name)) return;
      const item: ValidationErrorItem = {
        type: 'enum',
        loc: ['body', 'events', index],
        msg: isProgressEvent(name)
          ? `"${name}" is sent only to a job's own webhook_url and cannot be subscribed to`
          : `Input should be one of ${SUBSCRIBABLE_EVENTS.map((e) => `"${e}"`).join(', ')}`,
        pointer: `/events/${index}`,
      };
      const suggestion = closestMatch(name, SUBSCRIBABLE_EVENTS);
      if (suggestion) item.suggestion = suggestion;
      errors.push(item);
    });
    if (errors.length > 0) throw ApiError.validation(errors);
    return body.events && ([...new Set(body.events)] as SubscribableEvent[]);
  }
}
