import { Column, Entity } from 'typeorm';
import { CreatedAtColumn, IdColumn, JsonbObjectColumn, UpdatedAtColumn, WorkspaceIdColumn } from '../infra/database/columns';

export type BrandKitStatus = 'extracting' | 'ready' | 'failed';
export type CornerFeel = 'sharp' | 'soft' | 'pill';
export type PaletteRole = 'primary' | 'secondary' | 'accent' | 'bg' | 'ink';
export type Palette = Partial<Record<PaletteRole, string>>;
/** A font file of the kit: an uploaded font asset, registered under `family` in renders naming the kit. */
export interface BrandFontFile {
  family: string;
  source_url: string;
  weight?: number;
  style?: 'normal' | 'italic';
}
export type BrandFonts = Partial<Record<'heading' | 'body', string>> & { files?: BrandFontFile[] };

export interface BrandKitError {
  code: string;
  message: string;
}

/** Values extracted from a web page (spec 2.4). A field not confidently extracted is absent. */
@Entity('brand_kits')
export class BrandKit {
  @IdColumn()
  id: string;

  @WorkspaceIdColumn()
  workspaceId: string;

  @Column('text', { nullable: true })
  name: string | null;

  @Column('text', { name: 'source_url' })
  sourceUrl: string;

  @Column('text')
  status: BrandKitStatus;

  @JsonbObjectColumn()
  palette: Palette;

  @JsonbObjectColumn()
  fonts: BrandFonts;

  @Column('text', { name: 'logo_url', nullable: true })
  logoUrl: string | null;

  @Column('text', { name: 'corner_feel', nullable: true })
  cornerFeel: CornerFeel | null;

  /** Per-field scores 0–1, keyed like `palette.primary`. */
  @JsonbObjectColumn()
  confidence: Record<string, number>;

  @Column('jsonb', { nullable: true })
  error: BrandKitError | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}
