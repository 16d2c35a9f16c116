import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, MetricObjectWithValues, MetricValue, Registry } from 'prom-client';
import { QueueStatsRepository } from '../infra/queue/queue-stats.repository';

/** Every metric name starts with this (Prometheus naming: one prefix per application). */
const PREFIX = 'vrs_';

export type JobOutcomeLabel = 'completed' | 'failed' | 'cancelled';
type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

export type DeliveryOutcomeLabel = 'succeeded' | 'retrying' | 'failed' | 'superseded' | 'abandoned';

/**
 * The process's Prometheus metrics (`GET /metrics`). Counters and histograms count what this
 * process did (HTTP requests it answered, jobs and webhook attempts it ran), as Prometheus expects
 * from each scraped process; the queue gauges are read from pg-boss's tables at each scrape, so
 * every process reports the same, cluster-wide values (aggregate them with max, not sum).
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  private readonly httpRequests = new Counter({
    name: `${PREFIX}http_requests_total`,
    help: 'HTTP requests answered, by method, route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  private readonly httpDuration = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'Time to answer an HTTP request (until the last byte; event streams last as long as their job)',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly jobsFinished = new Counter({
    name: `${PREFIX}jobs_finished_total`,
    help: 'Jobs this process ended, by kind (render, task) and outcome',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly jobDuration = new Histogram({
    name: `${PREFIX}job_duration_seconds`,
    help: 'From the first start of a job to its end (retries included), by kind and outcome',
    labelNames: ['kind', 'outcome'] as const,
    buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600],
    registers: [this.registry],
  });

  private readonly jobRetries = new Counter({
    name: `${PREFIX}job_retries_total`,
    help: 'Job attempts that failed unexpectedly and were handed back to the queue to retry',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  private readonly renderFrames = new Counter({
    name: `${PREFIX}render_frames_total`,
    help: 'Video frames rendered and encoded by this process',
    registers: [this.registry],
  });

  private readonly renderFps = new Histogram({
    name: `${PREFIX}render_frames_per_second`,
    help: 'Frames per second of each finished video render (frames / time in the renderer, encoding included)',
    buckets: [1, 2, 5, 10, 20, 30, 60, 120, 240, 480],
    registers: [this.registry],
  });

  private readonly webhookDeliveries = new Counter({
    name: `${PREFIX}webhook_delivery_attempts_total`,
    help: 'Webhook delivery attempts by outcome: succeeded, retrying (failed, another attempt is scheduled), failed (no attempt left), superseded (a manual retry took over), abandoned (disabled webhook or http URL)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  /** Node's and the process's own metrics (CPU, memory, event loop), as opposed to what the service did. */
  private readonly processMetrics = new Set<string>();
  private readonly queueGauges = new Set([`${PREFIX}queue_depth`, `${PREFIX}queue_oldest_age_seconds`]);
  private worker: (() => Promise<MetricsJson>) | null = null;

  constructor(queues: QueueStatsRepository) {
    const before = new Set(this.registry.getMetricsAsArray().map((metric) => metric.name));
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
    for (const metric of this.registry.getMetricsAsArray()) if (!before.has(metric.name)) this.processMetrics.add(metric.name);
    const queueRows = () => queues.waiting();
    new Gauge({
      name: `${PREFIX}queue_depth`,
      help: 'Queue entries waiting to be worked on and due now, by queue (read from pg-boss at each scrape)',
      labelNames: ['queue'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const row of await queueRows()) this.set({ queue: row.name }, row.depth);
      },
    });
    new Gauge({
      name: `${PREFIX}queue_oldest_age_seconds`,
      help: 'How long the oldest due, waiting entry of each queue has waited (0 when none waits)',
      labelNames: ['queue'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const row of await queueRows()) this.set({ queue: row.name }, Math.max(0, row.oldest_seconds ?? 0));
      },
    });
  }

  /**
   * The `all` role's worker process (record 0129): its counters and histograms are added to this
   * process's, so that the service's totals mean what they mean with the worker inside; its process
   * metrics are listed beside this process's with the label process="worker"; the queue gauges
   * (the same in every process) come from this one.
   */
  addWorkerProcess(metrics: () => Promise<MetricsJson>): void {
    this.worker = metrics;
  }

  /** The text `GET /metrics` answers. */
  async exposition(): Promise<string> {
    if (!this.worker) return this.registry.metrics();
    const [own, worker] = await Promise.all([this.registry.getMetricsAsJSON(), this.worker()]);
    const labelled = worker
      .filter((metric) => !this.queueGauges.has(metric.name))
      .map((metric) =>
        this.processMetrics.has(metric.name) ? { ...metric, values: metric.values.map((value) => ({ ...value, labels: { ...value.labels, process: 'worker' } })) } : metric,
      );
    // Summed by name and labels: a series only one process has passes through unchanged.
    const sum = (metrics: MetricsJson) => metrics.map((metric) => ({ ...metric, aggregator: 'sum' as const }));
    return AggregatorRegistry.aggregate([sum(own), sum(labelled)]).metrics();
  }

  /** Express middleware: counts each request when its answer is finished, by route template. */
  readonly httpMiddleware = (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on('close', () => {
      // The template (`/v1/renders/:id`), never the raw path: ids would make a series per job.
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
      this.httpDuration.observe({ method: req.method, route }, seconds);
    });
    next();
  };

  jobFinished(kind: string, outcome: JobOutcomeLabel, startedAt: Date | null): void {
    this.jobsFinished.inc({ kind, outcome });
    if (startedAt) this.jobDuration.observe({ kind, outcome }, Math.max(0, (Date.now() - startedAt.getTime()) / 1000));
  }

  jobRetried(kind: string): void {
    this.jobRetries.inc({ kind });
  }

  videoRendered(frames: number, seconds: number): void {
    this.renderFrames.inc(frames);
    if (seconds > 0) this.renderFps.observe(frames / seconds);
  }

  webhookAttempt(outcome: DeliveryOutcomeLabel): void {
    this.webhookDeliveries.inc({ outcome });
  }
}
