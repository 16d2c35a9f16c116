import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../common/openapi/api-docs.decorators';
import type { Request, Response } from 'express';
import { CurrentWorkspace } from '../common/auth/decorators';
import { Workspace } from '../workspaces/workspace.entity';
import { JobEventStream } from './job-event-stream';

const SUMMARY = 'Server-Sent Events: `status` and `progress` events (the Job object as JSON) until the job ends, then the stream closes';

@ApiKeyAuth()
@Controller('v1')
export class JobEventsController {
  constructor(private readonly events: JobEventStream) {}

  @Get('renders/:id/events')
  @ApiTags('renders')
  @ApiProduces('text/event-stream')
  @ApiOperation({ summary: SUMMARY })
  renderEvents(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Req() req: Request, @Res() res: Response) {
    return this.events.stream(ws, 'render', id, req, res);
  }

  @Get('tasks/:id/events')
  @ApiTags('tasks')
  @ApiProduces('text/event-stream')
  @ApiOperation({ summary: SUMMARY })
  taskEvents(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Req() req: Request, @Res() res: Response) {
    return this.events.stream(ws, 'task', id, req, res);
  }
}
