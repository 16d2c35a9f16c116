import { DynamicModule, Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { AbandonedAssets } from './abandoned-assets';
import { AssetProbeWorker } from './asset-probe.worker';
import { AssetRepository } from './asset.repository';
import { AssetUrls } from './asset-urls';
import { AssetImports } from './asset-imports.service';
import { AssetsController } from './assets.controller';
import { AssetsService } from './assets.service';
import { ExternalCopies } from './external-copies.service';
import { IngestWorker } from './ingest.worker';
import { MediaIntake } from './media-intake.service';

/**
 * Assets and media intake: renders, tasks and uploads import it for MediaIntake and AssetsService.
 * Routes only where the REST API is served; the probe, ingest and sweep queues everywhere (their
 * handlers run only in the worker roles).
 */
@Module({})
export class AssetsModule {
  // Nest tells dynamic modules apart by object identity: every importer must get the same one.
  private static readonly byRole = new Map<boolean, DynamicModule>();

  static forRole(servesApi: boolean): DynamicModule {
    const known = AssetsModule.byRole.get(servesApi);
    if (known) return known;
    const module: DynamicModule = {
      module: AssetsModule,
      imports: [JobsModule],
      controllers: servesApi ? [AssetsController] : [],
      providers: [AssetRepository, AssetUrls, AssetsService, AssetImports, MediaIntake, ExternalCopies, IngestWorker, AssetProbeWorker, AbandonedAssets],
      exports: [AssetRepository, AssetUrls, AssetsService, AssetImports, MediaIntake],
    };
    AssetsModule.byRole.set(servesApi, module);
    return module;
  }
}
