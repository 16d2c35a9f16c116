import { Global, Module } from '@nestjs/common';
import { FontCatalogueService } from './font-catalogue.service';
import { RenderFonts } from './font-files';

/** Google Fonts families and font files beyond the bundled ones, for the worker and the dry run. */
@Global()
@Module({
  providers: [FontCatalogueService, RenderFonts],
  exports: [FontCatalogueService, RenderFonts],
})
export class FontsModule {}
