import { Controller, Get, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiError } from '../common/errors/api-error';
import { ApiKeyAuth, ApiRoute } from '../common/openapi/api-docs.decorators';
import { FontFamilyDto } from './dto/font-family.response';
import { FontsService } from './fonts.service';

@ApiTags('fonts')
@ApiKeyAuth()
@Controller('v1/fonts')
export class FontsController {
  constructor(private readonly fonts: FontsService) {}

  @Get(':family')
  @ApiRoute({
    summary: 'The faces of a font family, for a browser Player',
    description:
      'A Google Fonts family is fetched into the service\'s storage on first use (as a render would), then its woff2 faces are listed with URLs. ' +
      'Shipped families list no faces: the composition package bundles them. The catalogue is `font_catalogue.families` of GET /v1/capabilities.',
      ok: [200, FontFamilyDto, 'The family and its faces'],
      errors: [404, 422],
  })
  async family(@Param('family') family: string): Promise<FontFamilyDto> {
    const found = await this.fonts.family(family);
    if ('suggestion' in found) throw new ApiError('not_found', `Font family "${family}" not found${found.suggestion ? `; did you mean "${found.suggestion}"?` : ''}`, found.suggestion ? { suggestion: found.suggestion } : undefined);
    return found;
  }
}
