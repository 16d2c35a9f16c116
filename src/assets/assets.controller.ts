import { PAGE_LIMIT } from '../common/pagination/pagination';
import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiIdempotencyKey, ApiOk, ApiRoute } from '../common/openapi/api-docs.decorators';
import { RateLimit } from '../common/rate-limit/rate-limit.guard';
import { AssetDetailDto, AssetPageDto } from './dto/asset.response';
import { ApiKeyAuth } from '../common/openapi/api-docs.decorators';
import type { Response } from 'express';
import { CurrentWorkspace } from '../common/auth/decorators';
import { Workspace } from '../workspaces/workspace.entity';
import { AssetsService } from './assets.service';
import { ListAssetsDto } from './dto/list-assets.dto';
import { ImportAssetDto } from './dto/import-asset.dto';
import { AssetImportsService } from './asset-imports.service';

@ApiTags('assets')
@ApiKeyAuth()
@Controller('v1/workspace/assets')
export class AssetsController {
  constructor(
    private readonly assets: AssetsService,
    private readonly imports: AssetImportsService,
  ) {}

  @Get()
  @ApiRoute({ summary: 'List assets, newest first: images at once, video and audio once their duration is known', ok: [200, AssetPageDto, 'A page of assets'], errors: [422] })
  list(@CurrentWorkspace() ws: Workspace, @Query() query: ListAssetsDto) {
    return this.assets.list(ws, { ...query, limit: query.limit ?? PAGE_LIMIT.default });
  }

  @Post()
  @RateLimit('task_submit')
  @ApiIdempotencyKey()
  @ApiRoute({
    summary: 'Create an asset from a public URL',
    description:
      'The service downloads the file (its network rules apply: no private addresses; at most the upload size limit), probes and stores it, then answers with the `present` asset and its `source_url`. A URL already stored in this workspace (by this route or `ingest_external`) is answered at once with 200. Sends `asset.ready` when a copy is made.',
      ok: [201, AssetDetailDto, 'The new asset, stored and probed'],
      errors: [409, 413, 422, 429],
  })
  @ApiOk(200, AssetDetailDto, 'The URL was already stored, or a replay of the same Idempotency-Key')
  async import(
    @CurrentWorkspace() ws: Workspace,
    @Body() body: ImportAssetDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    // A caller that hangs up stops the download.
    const hungUp = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) hungUp.abort();
    });
    const outcome = await this.imports.importFromUrl(ws, body, idempotencyKey, hungUp.signal);
    res.status(outcome.created ? 201 : 200);
    return outcome.body;
  }

  @Get(':asset_id')
  @ApiRoute({ summary: 'One asset, listed or not yet, with `bytes_uploaded` checked against storage', ok: [200, AssetDetailDto, 'The asset'], errors: [404] })
  get(@CurrentWorkspace() ws: Workspace, @Param('asset_id') id: string) {
    return this.assets.detail(ws, id);
  }

  @Get(':asset_id/content')
  @ApiRoute({ summary: "The asset's bytes: a redirect to a short-lived signed URL (this is the asset's `source_url`)", errors: [404] })
  @ApiResponse({ status: 302, description: 'Redirect to the signed URL', headers: { Location: { description: 'The signed URL', schema: { type: 'string' } } } })
  async content(@CurrentWorkspace() ws: Workspace, @Param('asset_id') id: string, @Res() res: Response): Promise<void> {
    res.redirect(302, await this.assets.contentUrl(ws, id));
  }

  @Delete(':asset_id')
  @HttpCode(204)
  @ApiRoute({ summary: 'Delete the asset and its stored file; requests naming its URL afterwards get source_not_found', noContent: 'Deleted', errors: [404, 409] })
  async remove(@CurrentWorkspace() ws: Workspace, @Param('asset_id') id: string): Promise<void> {
    await this.assets.remove(ws, id);
  }
}
