import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Job as QueueJob } from 'pg-boss';
import type { Readable } from 'node:stream';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { FetchError, GuardedFetcher } from '../infra/http/guarded-fetcher';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { QueueService } from '../infra/queue/queue.service';
import { DeliveryAttemptPayload, WEBHOOK_DELIVERY_QUEUE } from './delivery-queue';
import { DeliverySchedulerService } from './delivery-scheduler.service';
import { retryDelayAfter } from './retry-schedule';
import { SigningSecretsService } from './signing-secrets.service';
import { DeliveryStatus } from './webhook-delivery.entity';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { EventType, isProgressEvent } from './webhook-events';
import { signWebhook } from './webhook-signer';
import { DeliveryOutcomeLabel, MetricsService } from '../metrics/metrics.service';

/**
 * Attempts run side by side in each worker process, so a slow or dead endpoint (each attempt is
 * cut off after WEBHOOK_TIMEOUT_S) holds up only its own attempts, never other endpoints'.
 */
const DELIVERY_CONCURRENCY = 16;
/** How much of an endpoint's answer is kept on the delivery, for the deliveries list. */
const EXCERPT_BYTES = 1024;

interface AttemptTarget {
  workspaceId: string;
  webhookId: string | null;
  /** The webhook's current URL, or the job's own `webhook_url`. */
  url: string;
  webhookEnabled: boolean | null;
  eventId: string;
  type: EventType;
  timestamp: Date;
  data: Record<string, unknown>;
}

interface AttemptOutcome {
  responseStatus: number | null;
  responseExcerpt: string | null;
  /** Null when the endpoint answered 2xx. */
  error: string | null;
  /** A failure that a retry cannot fix (the URL itself is unusable). */
  final: boolean;
}

/**
 * The `webhook-delivery` queue's handler: one queue entry is one attempt. It signs the event with
 * the workspace's current secret, POSTs it through the guarded fetcher, records the outcome on the
 * delivery and, on failure, queues the next attempt per WEBHOOK_RETRY_SCHEDULE with a delay
 * (pg-boss keeps it in the database, so it survives restarts of every process).
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger('WebhookDelivery');

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly transactions: TransactionRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queue: QueueService,
    private readonly fetcher: GuardedFetcher,
    private readonly secrets: SigningSecretsService,
    private readonly scheduler: DeliverySchedulerService,
    private readonly metrics: MetricsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // pg-boss's own retries only cover a handler that throws (the database was unreachable);
    // endpoint failures are retried on the webhook schedule instead.
    await this.queue.declare(WEBHOOK_DELIVERY_QUEUE, {
      retryLimit: 5,
      retryDelay: 10,
      retryBackoff: true,
      expireInSeconds: this.config.webhooks.timeoutSeconds + 60,
    });
    if (!this.queue.runsWorkers) return;
    this.queue.registerWorker(
      WEBHOOK_DELIVERY_QUEUE,
      async (jobs: QueueJob<DeliveryAttemptPayload>[]) => {
        for (const job of jobs) await this.attempt(job.data);
      },
      { localConcurrency: DELIVERY_CONCURRENCY, batchSize: 1 },
    );
  }

  private async attempt(payload: DeliveryAttemptPayload): Promise<void> {
    const target = await this.load(payload);
    if (!target) return; // superseded by a manual retry, finished, or deleted with its webhook
    if (target.webhookId && !target.webhookEnabled && !payload.manual) {
      await this.giveUp(payload, 'The webhook is disabled; enable it and retry the delivery');
    } else if (/^http:/i.test(target.url) && !this.config.webhooks.allowHttp) {
      // A job's own webhook_url, or a deployment that stopped allowing http since registration.
      await this.giveUp(payload, 'Webhook URLs must use https');
    } else {
      await this.record(payload, target, await this.post(target));
    }
  }

  /** Ends a delivery that must not be sent, without counting an attempt. */
  private async giveUp(payload: DeliveryAttemptPayload, reason: string): Promise<void> {
    await this.deliveries.abandon(payload.delivery_id, payload.token, reason);
    this.metrics.webhookAttempt('abandoned');
  }

  private async load(payload: DeliveryAttemptPayload): Promise<AttemptTarget | null> {
    const row = await this.deliveries.loadAttempt(payload.delivery_id);
    if (!row || row.status !== 'pending' || row.attemptToken !== payload.token) return null;
    return {
      workspaceId: row.workspaceId,
      webhookId: row.webhookId,
      url: row.webhookUrl ?? row.deliveryUrl,
      webhookEnabled: row.webhookEnabled,
      eventId: row.eventId,
      type: row.type,
      timestamp: row.eventCreatedAt,
      data: row.data,
    };
  }

  private async post(target: AttemptTarget): Promise<AttemptOutcome> {
    const body = JSON.stringify({ type: target.type, timestamp: target.timestamp.toISOString(), data: target.data });
    const secret = await this.secrets.get(target.workspaceId);
    // Signed at each attempt: verifiers refuse timestamps more than 5 minutes old, and a rotated
    // secret applies to retries too.
    const headers = signWebhook(secret, target.eventId, Math.floor(Date.now() / 1000), body);
    const timeoutMs = this.config.webhooks.timeoutSeconds * 1000;
    try {
      const response = await this.fetcher.request(target.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
        connectTimeoutMs: timeoutMs,
        readTimeoutMs: timeoutMs,
        // A webhook endpoint answers itself; following a redirect would re-send the signed body elsewhere.
        maxRedirects: 0,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const excerpt = await readExcerpt(response.body);
      const ok = response.status >= 200 && response.status <= 299;
      const error = ok ? null : `The endpoint answered HTTP ${response.status}`;
      return { responseStatus: response.status, responseExcerpt: excerpt, error, final: false };
    } catch (error) {
      const final = error instanceof FetchError && error.reason === 'invalid_url';
      return { responseStatus: null, responseExcerpt: null, error: this.describe(error), final };
    }
  }

  private describe(error: unknown): string {
    if (!(error instanceof FetchError)) return `Delivery failed: ${(error as Error).message}`;
    switch (error.reason) {
      case 'aborted':
      case 'connect_timeout':
      case 'read_timeout':
        return `No answer within ${this.config.webhooks.timeoutSeconds} s`;
      case 'too_many_redirects':
        return 'The endpoint answered with a redirect; webhook deliveries do not follow redirects';
      default:
        return error.message;
    }
  }

  /**
   * Records the attempt. Only the attempt the delivery is waiting for decides what happens next;
   * one superseded by a manual retry while it was in flight is counted but changes nothing else.
   */
  private async record(payload: DeliveryAttemptPayload, target: AttemptTarget, outcome: AttemptOutcome): Promise<void> {
    let counted: DeliveryOutcomeLabel | null = null;
    await this.transactions.run(async (tx) => {
      const current = await this.deliveries.lockForAttempt(tx, payload.delivery_id);
      if (!current) return;
      const attempts = current.attempts + 1;
      const decides = current.attemptToken === payload.token;
      const succeeded = outcome.error === null;
      // Progress is stale by the time a retry would go: one attempt only.
      const retries = decides && !succeeded && !outcome.final && !isProgressEvent(target.type);
      const retryIn = retries ? retryDelayAfter(this.config.webhooks.retryScheduleSeconds, attempts) : null;
      const status: DeliveryStatus = succeeded ? 'succeeded' : retryIn === null ? 'failed' : 'pending';
      await this.deliveries.recordAttempt(tx, {
        deliveryId: payload.delivery_id,
        attempts,
        url: target.url,
        responseStatus: outcome.responseStatus,
        responseExcerpt: outcome.responseExcerpt,
        error: outcome.error,
        decides,
        status,
      });
      if (retryIn !== null) await this.scheduler.schedule(tx, payload.delivery_id, retryIn, { manual: false });
      counted = !decides ? 'superseded' : status === 'pending' ? 'retrying' : status;
    });
    if (counted) this.metrics.webhookAttempt(counted);
    if (outcome.error) this.logger.warn(`Delivery ${payload.delivery_id} (${target.type}) attempt failed: ${outcome.error}`);
  }
}

/** The start of an answer, as text; a body that breaks off or stalls keeps what arrived. */
async function readExcerpt(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= EXCERPT_BYTES) break;
    }
  } catch {
    // The status already decided the attempt; the excerpt is only a clue for the user.
  } finally {
    body.destroy();
  }
  // PostgreSQL text cannot hold NUL characters.
  return Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8').replace(/\0/g, '');
}
