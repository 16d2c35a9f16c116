import { Controller, Get, Header, Param } from '@nestjs/common';
import { ApiHeader, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiRoute } from '../common/openapi/api-docs.decorators';
import { SkillListDto } from './dto/skill.response';
import { ApiKeyAuth } from '../common/openapi/api-docs.decorators';
import { SkillsService } from './skills.service';

@ApiTags('skills')
@ApiKeyAuth()
@ApiHeader({ name: 'X-Run-Id', required: false, description: "The agent's run id, recorded in the request log" })
@Controller('v1/skills')
export class SkillsController {
  constructor(private readonly skills: SkillsService) {}

  @Get()
  @ApiRoute({ summary: 'List the guides written for AI agents and developers', ok: [200, SkillListDto, 'The guides'] })
  list() {
    return this.skills.list();
  }

  @Get(':name')
  @Header('Content-Type', 'text/markdown; charset=utf-8')
  @ApiRoute({ summary: 'One guide, as markdown', errors: [404] })
  @ApiResponse({ status: 200, description: 'The guide', content: { 'text/markdown': { schema: { type: 'string' } } } })
  get(@Param('name') name: string) {
    return this.skills.get(name);
  }
}
