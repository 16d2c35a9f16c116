import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiRoute } from '../common/openapi/api-docs.decorators';
import { BrandKitDto, BrandKitPageDto } from './dto/brand-kit.response';
import { ApiKeyAuth } from '../common/openapi/api-docs.decorators';
import { CurrentWorkspace } from '../common/auth/decorators';
import { PAGE_LIMIT } from '../common/pagination/pagination';
import { Workspace } from '../workspaces/workspace.entity';
import { BrandKitsService } from './brand-kits.service';
import { CreateBrandKitDto, ListBrandKitsDto, UpdateBrandKitDto } from './dto/brand-kit.dto';

@ApiTags('brand-kits')
@ApiKeyAuth()
@Controller('v1/brand-kits')
export class BrandKitsController {
  constructor(private readonly kits: BrandKitsService) {}

  @Post()
  @HttpCode(202)
  @ApiRoute({ summary: 'Extract a brand kit from a page', description: '202 with status `extracting`; the `brand_kit.ready` event follows.', ok: [202, BrandKitDto, 'Extraction started'], errors: [402, 413, 422] })
  create(@CurrentWorkspace() ws: Workspace, @Body() body: CreateBrandKitDto) {
    return this.kits.create(ws, body);
  }

  @Get()
  @ApiRoute({ summary: 'List brand kits, newest first', ok: [200, BrandKitPageDto, 'A page of brand kits'], errors: [422] })
  list(@CurrentWorkspace() ws: Workspace, @Query() query: ListBrandKitsDto) {
    return this.kits.list(ws, query.limit ?? PAGE_LIMIT.default, query.cursor);
  }

  @Get(':id')
  @ApiRoute({ summary: 'One brand kit', ok: [200, BrandKitDto, 'The brand kit'], errors: [404] })
  get(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.kits.get(ws, id);
  }

  @Patch(':id')
  @ApiRoute({
    summary: "Rename a brand kit or set its fonts",
    description:
      '`fonts` replaces heading, body and `files` together. Each file is an uploaded font of this workspace (POST /v1/uploads with a font content_type, read as a font once it lands); ' +
      'its `family` defaults to the name inside the file. A render with `brand_kit_id` registers the files in its `fonts`, so `{{brand.fonts.heading}}` draws with them. ' +
      '409 while the kit is still extracting.',
      ok: [200, BrandKitDto, 'The brand kit as changed'],
      errors: [404, 409, 422],
  })
  update(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Body() body: UpdateBrandKitDto) {
    return this.kits.update(ws, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiRoute({ summary: 'Delete a brand kit', noContent: 'Deleted', errors: [404] })
  remove(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.kits.remove(ws, id);
  }
}
