import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../common/openapi/api-docs.decorators';
import { CurrentWorkspace } from '../common/auth/decorators';
import { PageQueryDto, PAGE_LIMIT } from '../common/pagination/pagination';
import { Workspace } from '../workspaces/workspace.entity';
import { ApiKeysService } from './api-keys.service';
import { CreateApiKeyDto } from './dto/create-api-key.dto';

@ApiTags('api-keys')
@ApiKeyAuth()
@Controller('v1/api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Post()
  @ApiOperation({ summary: 'Create an API key; the plaintext `key` is returned only here' })
  create(@CurrentWorkspace() ws: Workspace, @Body() body: CreateApiKeyDto) {
    return this.apiKeys.createForWorkspace(ws, body.name ?? 'api key');
  }

  @Get()
  @ApiOperation({ summary: 'List API keys, newest first, revoked ones included' })
  list(@CurrentWorkspace() ws: Workspace, @Query() query: PageQueryDto) {
    return this.apiKeys.list(ws.id, query.limit ?? PAGE_LIMIT.default, query.cursor);
  }

  @Delete(':key_id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API key; it is rejected from then on' })
  async revoke(@CurrentWorkspace() ws: Workspace, @Param('key_id') keyId: string): Promise<void> {
    await this.apiKeys.revoke(ws.id, keyId);
  }
}
