import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Logger } from '@nestjs/common';
import { PROJECT_ROOT } from '../../config/paths';

const logger = new Logger('CompositionBundle');

/** A bundle made by `npm run build` ships in dist/ and is used as is. */
export const PREBUILT_BUNDLE_DIR = path.join(PROJECT_ROOT, 'dist', 'composition-bundle');
const ENTRY_POINT = path.join(PROJECT_ROOT, 'composition', 'src', 'index.ts');

/**
 * The Remotion bundle of `composition/`, made once and reused by every render: the prebuilt one
 * when its sources hash matches, else one cached under `cacheDir` keyed by that hash, bundling
 * (slow, once) only when neither exists. Only the input props vary per job.
 */
export async function ensureCompositionBundle(cacheDir: string): Promise<string> {
  const hash = sourcesHash();
  if (hash === null) {
    // Deployed image: sources are not shipped, the prebuilt bundle is the only one.
    if (existsSync(path.join(PREBUILT_BUNDLE_DIR, 'index.html'))) return PREBUILT_BUNDLE_DIR;
    throw new Error('No composition bundle: run `npm run build`');
  }
  for (const dir of [PREBUILT_BUNDLE_DIR, path.join(cacheDir, `bundle-${hash}`)]) {
    if (readHash(dir) === hash) return dir;
  }
  return bundleTo(path.join(cacheDir, `bundle-${hash}`), hash);
}

export async function bundleTo(target: string, hash = sourcesHash()): Promise<string> {
  const { bundle } = await import('@remotion/bundler');
  const started = Date.now();
  const temp = `${target}.tmp-${process.pid}`;
  rmSync(temp, { recursive: true, force: true });
  // No source map: Remotion parses it synchronously at every render's start to symbolicate errors,
  // which stalls the API's event loop when the worker shares the process.
  await bundle({ entryPoint: ENTRY_POINT, outDir: temp, enableCaching: true, onProgress: () => undefined, webpackOverride: (config) => ({ ...config, devtool: false }) });
  writeHash(temp, hash ?? 'unknown');
  rmSync(target, { recursive: true, force: true });
  renameSync(temp, target);
  logger.log(`Bundled the composition in ${Date.now() - started} ms into ${target}`);
  return target;
}

function readHash(dir: string): string | null {
  try {
    return readFileSync(path.join(dir, 'sources.sha256'), 'utf8').trim();
  } catch {
    return null;
  }
}

function writeHash(dir: string, hash: string): void {
  writeFileSync(path.join(dir, 'sources.sha256'), `${hash}\n`);
}

/** Hash of every composition source file plus the Remotion version; null when sources are absent. */
export function sourcesHash(): string | null {
  const root = path.join(PROJECT_ROOT, 'composition', 'src');
  if (!existsSync(root)) return null;
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (!name.endsWith('.spec.ts')) hash.update(path.relative(root, full)).update(readFileSync(full));
    }
  };
  walk(root);
  hash.update(JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'node_modules', 'remotion', 'package.json'), 'utf8')).version);
  hash.update('devtool:false');
  return hash.digest('hex').slice(0, 16);
}
