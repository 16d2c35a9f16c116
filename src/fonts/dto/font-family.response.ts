import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'FontFace' })
export class FontFaceDto {
  @ApiProperty({ example: 'Lobster' })
  family: string;

  @ApiProperty({ example: '400' })
  weight: string;

  @ApiProperty({ enum: ['normal', 'italic'] })
  style: string;

  @ApiPropertyOptional({ example: 'U+0000-00FF,U+0131' })
  unicode_range?: string;

  @ApiProperty({ description: 'The woff2 file (a signed URL, served with CORS for FontFace loading)' })
  url: string;
}

/** GET /v1/fonts/{family}: the faces of a family, for a browser Player (`fontFaces`). */
@ApiSchema({ name: 'FontFamily' })
export class FontFamilyDto {
  @ApiProperty({ example: 'Lobster' })
  family: string;

  @ApiProperty({ enum: ['shipped', 'catalogue'], description: 'shipped: bundled with the composition package (no faces needed); catalogue: a Google Fonts family kept by the service' })
  source: 'shipped' | 'catalogue';

  @ApiProperty({ type: [FontFaceDto], description: 'Pass them as `fontFaces` in the Player\'s inputProps (playerPropsFor(request, media, transcripts, fontFaces))' })
  faces: FontFaceDto[];
}
