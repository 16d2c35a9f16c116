import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../common/openapi/api-docs.decorators';
import type { Request, Response } from 'express';
import { CurrentWorkspace } from '../common/auth/decorators';
import { Workspace } from '../workspaces/workspace.entity';
import { JobEventStreamService } from './job-event-stream.service';

const SUMMARY = 'Follow the job as Server-Sent Events';
const DESCRIPTION =
  '`event: status` (the status changed; the first event always is one) and `event: progress` (percent or stage changed), each with the Job object as JSON in `data`, until the job ends; then the stream closes. Comment lines keep an idle stream open.';
/** The stream's documented answer: text/event-stream whose `data` lines are Job objects. */
const EVENT_STREAM = ApiResponse({
  status: 200,
  description: 'The event stream',
  content: {
    'text/event-stream': {
      schema: { type: 'string', description: 'Events `status` and `progress`; `data` is a Job (components.schemas.Job)' },
      example: 'event: status\ndata: {"id":"render_01…","status":"queued","progress_percent":0,…}\n\nevent: progress\ndata: {"id":"render_01…","status":"processing","progress_percent":40,…}\n\n',
    },
  },
});

@ApiKeyAuth()
@Controller('v1')
export class JobEventsController {
  constructor(private readonly events: JobEventStreamService) {}

  @Get('renders/:id/events')
  @ApiTags('renders')
  @ApiOperation({ summary: SUMMARY, description: DESCRIPTION })
  @EVENT_STREAM
  @ApiErrors(404)
  renderEvents(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Req() req: Request, @Res() res: Response) {
    return this.events.stream(ws, 'render', id, req, res);
  }

  @Get('tasks/:id/events')
  @ApiTags('tasks')
  @ApiOperation({ summary: SUMMARY, description: DESCRIPTION })
  @EVENT_STREAM
  @ApiErrors(404)
  taskEvents(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Req() req: Request, @Res() res: Response) {
    return this.events.stream(ws, 'task', id, req, res);
  }
}
