import { Global, Module } from '@nestjs/common';
import { FontCacheRepository } from './font-cache.repository';
import { FontCacheService } from './font-cache.service';
import { FontCatalogueService } from './font-catalogue.service';
import { RenderFonts } from './font-files';

/** Google Fonts families and font files beyond the bundled ones, for the worker and the dry run. */
@Global()
@Module({
  providers: [FontCatalogueService, RenderFonts, FontCacheService, FontCacheRepository],
  exports: [FontCatalogueService, RenderFonts, FontCacheService],
})
export class FontsModule {}
