import { Body, Controller, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiRoute } from '../common/openapi/api-docs.decorators';
import { UploadSlotDto } from './dto/upload.response';
import { ApiKeyAuth } from '../common/openapi/api-docs.decorators';
import { CurrentWorkspace } from '../common/auth/decorators';
import { Workspace } from '../workspaces/workspace.entity';
import { CreateUploadDto } from './dto/create-upload.dto';
import { UploadsService } from './uploads.service';

@ApiTags('uploads')
@ApiKeyAuth()
@Controller('v1/uploads')
export class UploadsController {
  constructor(private readonly uploads: UploadsService) {}

  @Post()
  @ApiRoute({
    summary: 'Reserve an upload slot',
    description: 'PUT the bytes to `upload_url` (same Content-Type) within an hour, then use `source_url` in requests.',
    ok: [201, UploadSlotDto, 'The slot'],
    errors: [402, 413, 422],
  })
  create(@CurrentWorkspace() ws: Workspace, @Body() body: CreateUploadDto) {
    return this.uploads.reserve(ws, body);
  }
}
