import { Controller, Get, Header, Param } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../common/openapi/api-docs.decorators';
import { SkillsService } from './skills.service';

@ApiTags('skills')
@ApiKeyAuth()
@ApiHeader({ name: 'X-Run-Id', required: false, description: "The agent's run id, recorded in the request log" })
@Controller('v1/skills')
export class SkillsController {
  constructor(private readonly skills: SkillsService) {}

  @Get()
  @ApiOperation({ summary: 'List the guides written for AI agents and developers' })
  list() {
    return this.skills.list();
  }

  @Get(':name')
  @Header('Content-Type', 'text/markdown; charset=utf-8')
  @ApiProduces('text/markdown')
  @ApiOperation({ summary: 'One guide, as markdown' })
  get(@Param('name') name: string) {
    return this.skills.get(name);
  }
}
