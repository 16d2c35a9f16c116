import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../common/openapi/api-docs.decorators';
import { CurrentWorkspace } from '../common/auth/decorators';
import { PAGE_LIMIT } from '../common/pagination/pagination';
import { Workspace } from '../workspaces/workspace.entity';
import { BrandKitsService } from './brand-kits.service';
import { CreateBrandKitDto, ListBrandKitsDto } from './dto/brand-kit.dto';

@ApiTags('brand-kits')
@ApiKeyAuth()
@Controller('v1/brand-kits')
export class BrandKitsController {
  constructor(private readonly kits: BrandKitsService) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({ summary: 'Extract a brand kit from a page; 202 `extracting`, then `brand_kit.ready`' })
  create(@CurrentWorkspace() ws: Workspace, @Body() body: CreateBrandKitDto) {
    return this.kits.create(ws, body);
  }

  @Get()
  @ApiOperation({ summary: 'List brand kits, newest first' })
  list(@CurrentWorkspace() ws: Workspace, @Query() query: ListBrandKitsDto) {
    return this.kits.list(ws, query.limit ?? PAGE_LIMIT.default, query.cursor);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One brand kit' })
  get(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.kits.get(ws, id);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a brand kit' })
  remove(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.kits.remove(ws, id);
  }
}
