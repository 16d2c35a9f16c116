/** Where an asset's bytes live in storage: `{workspace_id}/assets/{asset_id}{.ext}`. */
export function assetStorageKey(workspaceId: string, assetId: string, extension: string): string {
  return `${workspaceId}/assets/${assetId}${extension}`;
}

const ASSET_STORAGE_KEY = /^[^/]+\/assets\/asset_[0-9A-Z]{26}(\.[a-z0-9]{1,8})?$/;

/** Whether a storage key has the shape of an asset's (other keys are not the assets module's business). */
export function isAssetStorageKey(key: string): boolean {
  return ASSET_STORAGE_KEY.test(key);
}
