import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { PageDto } from '../../common/openapi/page.dto';
import { UPLOAD_KINDS, UploadKind } from '../../infra/media/media-types';
import { ASSET_ERROR_CODES, ASSET_STATUSES, AssetErrorCode, AssetStatus } from '../asset.entity';
import { ApiId, ApiNullable, ApiTimestamp } from '../../common/openapi/fields';

@ApiSchema({ name: 'AssetError' })
export class AssetErrorDto {
  @ApiProperty({
    enum: ASSET_ERROR_CODES,
    description: '`codec_unsupported` (the probe could not decode the bytes), `source_too_large` (they were above the upload limit and were deleted) or `invalid_source` (a font upload that is not a TrueType, OpenType, WOFF or WOFF2 font)',
  })
  code: AssetErrorCode;

  @ApiProperty()
  message: string;
}

@ApiSchema({ name: 'Asset' })
export class AssetDto {
  @ApiId('asset')
  id: string;

  @ApiProperty({ enum: UPLOAD_KINDS, description: '`font`: an uploaded font file, for the `fonts` of a render request and brand kits' })
  kind: UploadKind;

  @ApiProperty({ example: 'intro.mp4' })
  name: string;

  @ApiProperty({ enum: ASSET_STATUSES, description: '`reserved` (no bytes yet), `probing`, `ingesting` (an external copy), `present` (stored and probed) or `unreadable`' })
  status: AssetStatus;

  @ApiProperty({ example: 'video/mp4' })
  content_type: string;

  @ApiProperty({ description: 'Pass this as `source_url` in render and task requests' })
  source_url: string;

  @ApiNullable('string', { description: 'The external URL this is the stored copy of (`ingest_external`); null for uploads' })
  ingested_from: string | null;

  @ApiNullable('integer')
  size_bytes: number | null;

  @ApiNullable('number', { description: 'Seconds (video and audio)' })
  duration: number | null;

  @ApiNullable('string', { description: 'A font: the family name inside the file (what `font_family` names when the `fonts` entry gives no `family`)', example: 'DejaVu Serif' })
  font_family: string | null;

  @ApiNullable('integer')
  width: number | null;

  @ApiNullable('integer')
  height: number | null;

  @ApiNullable('string', { example: 'h264' })
  video_codec: string | null;

  @ApiNullable('string', { example: 'aac' })
  audio_codec: string | null;

  @ApiProperty({ type: () => AssetErrorDto, nullable: true, description: 'Set when the bytes could not be decoded (`unreadable`)' })
  error: AssetErrorDto | null;

  @ApiTimestamp()
  created_at: string;

  @ApiTimestamp()
  updated_at: string;
}

@ApiSchema({ name: 'AssetDetail' })
export class AssetDetailDto extends AssetDto {
  @ApiProperty({ description: 'Whether the bytes are in storage, checked when this is read' })
  bytes_uploaded: boolean;
}

export const AssetPageDto = PageDto(AssetDto, 'AssetPage');
