import { PAGE_LIMIT } from '../common/pagination/pagination';
import { Controller, Delete, Get, HttpCode, Param, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../common/openapi/api-docs.decorators';
import type { Response } from 'express';
import { CurrentWorkspace } from '../common/auth/decorators';
import { Workspace } from '../workspaces/workspace.entity';
import { AssetsService } from './assets.service';
import { ListAssetsDto } from './dto/list-assets.dto';

@ApiTags('assets')
@ApiKeyAuth()
@Controller('v1/workspace/assets')
export class AssetsController {
  constructor(private readonly assets: AssetsService) {}

  @Get()
  @ApiOperation({ summary: 'List assets, newest first: images at once, video and audio once their duration is known' })
  list(@CurrentWorkspace() ws: Workspace, @Query() query: ListAssetsDto) {
    return this.assets.list(ws, { ...query, limit: query.limit ?? PAGE_LIMIT.default });
  }

  @Get(':asset_id')
  @ApiOperation({ summary: 'One asset, listed or not yet, with `bytes_uploaded` checked against storage' })
  get(@CurrentWorkspace() ws: Workspace, @Param('asset_id') id: string) {
    return this.assets.detail(ws, id);
  }

  @Get(':asset_id/content')
  @ApiOperation({ summary: "The asset's bytes: a redirect to a short-lived signed URL (this is the asset's `source_url`)" })
  async content(@CurrentWorkspace() ws: Workspace, @Param('asset_id') id: string, @Res() res: Response): Promise<void> {
    res.redirect(302, await this.assets.contentUrl(ws, id));
  }

  @Delete(':asset_id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete the asset and its stored file; requests naming its URL afterwards get source_not_found' })
  async remove(@CurrentWorkspace() ws: Workspace, @Param('asset_id') id: string): Promise<void> {
    await this.assets.remove(ws, id);
  }
}
