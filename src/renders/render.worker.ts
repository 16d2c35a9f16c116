import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ChildPriority } from '../infra/media/child-priority';
import { Storage } from '../infra/storage/storage';
import { ReadinessRegistryService } from '../infra/readiness/readiness-registry.service';
import { JobRunnerService, JobWork } from '../jobs/job-runner.service';
import { ChunkedRenderService } from './chunks/chunked-render.service';
import { RemotionRenderer } from './engine/remotion-renderer';
import { RenderPipelineService } from './render-pipeline.service';
import { RENDER_DEAD_LETTER_QUEUE, RENDER_QUEUE, RENDER_RETRY_LIMIT } from './render-queue';

/**
 * The `render` queue's handler: the shared JobRunnerService claims the row, runs the pipeline, records
 * the outcome. A worker that dies mid-render stops heart-beating; pg-boss then hands the job to
 * another worker, which claims the row again (it is still `processing`) and renders from the start.
 */
@Injectable()
export class RenderWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RenderWorker');
  private priority: ChildPriority | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runner: JobRunnerService,
    private readonly pipeline: RenderPipelineService,
    private readonly renderer: RemotionRenderer,
    private readonly storage: Storage,
    private readonly chunks: ChunkedRenderService,
    private readonly readiness: ReadinessRegistryService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.runner.serve(this.work, this.config.render.concurrency, () => {
      this.readiness.register('renderer', () => this.renderer.ready());
      // Renders' processes yield the CPU to the API and PostgreSQL beside them.
      this.priority = new ChildPriority(this.config.render.niceness);
      this.priority.start();
      this.renderer.warmUp().catch((error) => this.logger.error(`Warm-up failed: ${(error as Error).message}`));
    });
  }

  onApplicationShutdown(): void {
    this.priority?.stop();
  }

  private readonly work: JobWork = {
    kind: 'render',
    queue: RENDER_QUEUE,
    deadLetterQueue: RENDER_DEAD_LETTER_QUEUE,
    label: 'Render',
    retryLimit: RENDER_RETRY_LIMIT,
    run: async (job, signal, report) => {
      const artifact = await this.pipeline.run(job, signal, report);
      return { output: artifact.output, outputKey: artifact.key, outputSeconds: artifact.output.duration, diagnostics: artifact.diagnostics };
    },
    discard: async (outcome) => {
      if (outcome.outputKey) await this.storage.delete(outcome.outputKey);
    },
    // A split render's chunk files are kept between its attempts; none is left once it is dead.
    afterDeath: (job) => this.chunks.abandon(job),
  };
}
