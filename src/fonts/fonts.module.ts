import { Global, Module } from '@nestjs/common';
import { FontCacheRepository } from './font-cache.repository';
import { FontCacheService } from './font-cache.service';
import { FontCatalogueService } from './font-catalogue.service';
import { RenderFontsService } from './font-files';
import { FontsController } from './fonts.controller';
import { FontsService } from './fonts.service';

/** Google Fonts families and font files beyond the bundled ones, for the worker and the dry run. */
@Global()
@Module({
  providers: [FontCatalogueService, RenderFontsService, FontCacheService, FontCacheRepository],
  exports: [FontCatalogueService, RenderFontsService, FontCacheService],
})
export class FontsModule {}

/** GET /v1/fonts/{family}, where the REST API is served. */
@Module({
  controllers: [FontsController],
  providers: [FontsService],
})
export class FontsApiModule {}
