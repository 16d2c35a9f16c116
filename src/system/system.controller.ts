import { Controller, Get, HttpStatus, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiOk, ApiRoute } from '../common/openapi/api-docs.decorators';
import { CapabilitiesDto, HealthDto, ReadinessDto, VersionDto } from './dto/system.response';
import type { Response } from 'express';
import { Public } from '../common/auth/decorators';
import { SystemService } from './system.service';

@ApiTags('system')
@Public()
@Controller('v1')
export class SystemController {
  constructor(private readonly system: SystemService) {}

  @Get('health')
  @ApiRoute({ summary: 'Liveness: the process answers', ok: [200, HealthDto, 'Alive'] })
  health() {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiRoute({ summary: 'Readiness: 503 while the database, queue or storage is unavailable', ok: [200, ReadinessDto, 'Ready'] })
  @ApiOk(503, ReadinessDto, 'A dependency is unavailable (same body, `status: unavailable`)')
  async ready(@Res({ passthrough: true }) res: Response) {
    const body = await this.system.readiness();
    if (body.status !== 'ok') res.status(HttpStatus.SERVICE_UNAVAILABLE);
    return body;
  }

  @Get('version')
  @ApiRoute({ summary: 'The running version', ok: [200, VersionDto, 'The version'] })
  version() {
    return this.system.version();
  }

  @Get('capabilities')
  @ApiRoute({ summary: 'Machine-readable catalog: formats, effects, schemas, limits, rate limits, onboarding', ok: [200, CapabilitiesDto, 'The catalog'] })
  capabilities() {
    return this.system.capabilities();
  }
}
