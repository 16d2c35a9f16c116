import { BrandKit } from './brand-kit.entity';

/** The Brand kit object of spec 2.4, plus its extraction `status` and `error`. */
export function toBrandKitView(kit: BrandKit) {
  return {
    id: kit.id,
    workspace_id: kit.workspaceId,
    name: kit.name,
    status: kit.status,
    created_at: kit.createdAt.toISOString(),
    updated_at: kit.updatedAt.toISOString(),
    source_url: kit.sourceUrl,
    palette: kit.palette,
    fonts: kit.fonts,
    logo_url: kit.logoUrl,
    corner_feel: kit.cornerFeel,
    confidence: kit.confidence,
    error: kit.error,
  };
}

export type BrandKitView = ReturnType<typeof toBrandKitView>;
