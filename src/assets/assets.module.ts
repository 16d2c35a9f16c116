import { DynamicModule, Module } from '@nestjs/common';
import { modulePerRole } from '../common/module-per-role';
import { JobsModule } from '../jobs/jobs.module';
import { AbandonedAssetsWorker } from './abandoned-assets.worker';
import { AssetProbeService } from './asset-probe.service';
import { AssetProbeWorker } from './asset-probe.worker';
import { AssetRepository } from './asset.repository';
import { AssetUrlsService } from './asset-urls.service';
import { AssetImportsService } from './asset-imports.service';
import { AssetsController } from './assets.controller';
import { AssetsService } from './assets.service';
import { ExternalCopiesService } from './external-copies.service';
import { IngestWorker } from './ingest.worker';
import { MediaIntakeService } from './media-intake.service';

/**
 * Assets and media intake: renders, tasks and uploads import it for MediaIntakeService and AssetsService.
 * Routes only where the REST API is served; the probe, ingest and sweep queues everywhere (their
 * handlers run only in the worker roles).
 */
@Module({})
export class AssetsModule {
  static forRole(servesApi: boolean): DynamicModule {
    return modulePerRole(AssetsModule, servesApi, () => ({
      imports: [JobsModule],
      controllers: servesApi ? [AssetsController] : [],
      providers: [AssetRepository, AssetUrlsService, AssetsService, AssetImportsService, MediaIntakeService, ExternalCopiesService, IngestWorker, AssetProbeService, AssetProbeWorker, AbandonedAssetsWorker],
      exports: [AssetRepository, AssetUrlsService, AssetsService, AssetImportsService, MediaIntakeService],
    }));
  }
}
