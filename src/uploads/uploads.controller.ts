import { Body, Controller, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
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
  @ApiOperation({
    summary: 'Reserve an upload slot: PUT the bytes to `upload_url` (same Content-Type) within an hour, then use `source_url` in requests',
  })
  create(@CurrentWorkspace() ws: Workspace, @Body() body: CreateUploadDto) {
    return this.uploads.reserve(ws, body);
  }
}
