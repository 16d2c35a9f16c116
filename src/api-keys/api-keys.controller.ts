import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiRoute } from '../common/openapi/api-docs.decorators';
import { ApiKeyPageDto, CreatedApiKeyDto } from './dto/api-key.response';
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
  @ApiRoute({ summary: 'Create an API key', description: 'The plaintext `key` is returned only here.', ok: [201, CreatedApiKeyDto, 'The new key'], errors: [402, 413, 422] })
  create(@CurrentWorkspace() ws: Workspace, @Body() body: CreateApiKeyDto) {
    return this.apiKeys.createForWorkspace(ws, body.name ?? 'api key');
  }

  @Get()
  @ApiRoute({ summary: 'List API keys, newest first, revoked ones included', ok: [200, ApiKeyPageDto, 'A page of keys'], errors: [422] })
  list(@CurrentWorkspace() ws: Workspace, @Query() query: PageQueryDto) {
    return this.apiKeys.list(ws.id, query.limit ?? PAGE_LIMIT.default, query.cursor);
  }

  @Delete(':key_id')
  @HttpCode(204)
  @ApiRoute({ summary: 'Revoke an API key; it is rejected from then on', noContent: 'Revoked (also when it already was)', errors: [404] })
  async revoke(@CurrentWorkspace() ws: Workspace, @Param('key_id') keyId: string): Promise<void> {
    await this.apiKeys.revoke(ws.id, keyId);
  }
}
