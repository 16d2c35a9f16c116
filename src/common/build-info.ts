import { readFileSync } from 'node:fs';
import * as path from 'node:path';

export const SERVICE_VERSION = '0.2.0';
export const API_VERSION = 'v1';

export interface BuildInfo {
  commit: string | null;
  built_at: string | null;
}

/** Written by scripts/write-build-info.js at `npm run build`; GIT_COMMIT overrides the commit. */
export function readBuildInfo(commitOverride: string | null): BuildInfo {
  let info: BuildInfo = { commit: null, built_at: null };
  try {
    info = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'build-info.json'), 'utf8')) as BuildInfo;
  } catch {
    // Running from sources (tests): no build happened.
  }
  return { commit: commitOverride ?? info.commit ?? null, built_at: info.built_at ?? null };
}
