import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { externalSources, validateRenderRequest } from '../../composition/src/schema';
import { mapLimited } from '../common/concurrency';
import { JobSchedulerService } from '../jobs/job-scheduler.service';
import { JobRunnerService, JobWork } from '../jobs/job-runner.service';
import { QuotaService } from '../jobs/quota.service';
import { AssetsService } from './assets.service';
import { ExternalCopiesService, IngestFailure } from './external-copies.service';
import { INGEST_DEAD_LETTER_QUEUE, INGEST_QUEUE, INGEST_RETRY_LIMIT } from './intake-queues';
import { MediaIntakeService } from './media-intake.service';

/** Files of one job copied at once. */
const COPY_CONCURRENCY = 3;

/**
 * The `ingest` queue's work, run by the one job lifecycle (JobRunnerService, stage `ingesting`): copies
 * every external file of the job into storage (ExternalCopiesService: once per URL per workspace),
 * announces each new copy with `asset.ready`; the runner then moves the job to `queued` and this
 * work enqueues its render in the same transaction. A copy that fails fails the job with
 * `ingest_failed` (`codec_unsupported` when the file is undecodable); cancellation, retries and
 * dead-lettering are the runner's.
 */
@Injectable()
export class IngestWorker implements OnApplicationBootstrap {
  constructor(
    private readonly runner: JobRunnerService,
    private readonly copies: ExternalCopiesService,
    private readonly intake: MediaIntakeService,
    private readonly assets: AssetsService,
    private readonly scheduler: JobSchedulerService,
    private readonly quota: QuotaService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.runner.serve(this.work, 2);
  }

  private readonly work: JobWork = {
    kind: 'render',
    stage: 'ingesting',
    queue: INGEST_QUEUE,
    deadLetterQueue: INGEST_DEAD_LETTER_QUEUE,
    label: 'Copying the sources',
    failureCode: 'ingest_failed',
    retryLimit: INGEST_RETRY_LIMIT,
    run: async (job, signal) => {
      const parsed = validateRenderRequest(job.request);
      if (!parsed.ok) throw new IngestFailure('ingest_failed', `Stored request is invalid: ${parsed.errors[0].msg}`);
      // The first copy that fails stops the others.
      const firstFailure = new AbortController();
      const copySignal = AbortSignal.any([signal, firstFailure.signal]);
      await mapLimited(this.intake.externalOnly(externalSources(parsed.value)), COPY_CONCURRENCY, async (source) => {
        try {
          const { asset, copied } = await this.copies.ensureCopy(job.workspaceId, source, copySignal);
          if (copied) await this.assets.announceReady(asset, job.webhookUrl); // one asset.ready per file copied
        } catch (error) {
          firstFailure.abort(error);
          throw error;
        }
      });
      return {};
    },
    advance: async (tx, job) => {
      await this.scheduler.enqueue(tx, job, await this.quota.planName(job.workspaceId, tx));
    },
  };
}
