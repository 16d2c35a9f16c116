import { DynamicModule, Module } from '@nestjs/common';
import { BrandExtractorService } from './brand-extractor.service';
import { BrandKitRepository } from './brand-kit.repository';
import { BrandKitWorker } from './brand-kit.worker';
import { BrandKitsController } from './brand-kits.controller';
import { BrandKitsService } from './brand-kits.service';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { AssetsModule } from '../assets/assets.module';

/** Routes where the REST API is served; the extraction queue and its handler in every role. */
@Module({})
export class BrandKitsModule {
  static forRole(servesApi: boolean): DynamicModule {
    return {
      module: BrandKitsModule,
      // Uploaded fonts a kit's `fonts.files` name.
      imports: [AssetsModule.forRole(servesApi)],
      controllers: servesApi ? [BrandKitsController] : [],
      providers: [BrandKitRepository, BrandExtractorService, BrandKitWorker, ...(servesApi ? [BrandKitsService, TransactionRepository] : [])],
    };
  }
}
