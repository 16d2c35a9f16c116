import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { AppConfig } from '../config/app-config';
import { PROJECT_ROOT } from '../config/paths';

/** Where `npm run build` writes the playground (Vite, playground/vite.config.mts). */
export const PLAYGROUND_DIST = path.join(PROJECT_ROOT, 'dist/playground');

/**
 * The Content-Security-Policy of the playground's files. Scripts, styles, fonts and data come from
 * the service itself; media in the preview are blob: URLs of bytes fetched through the media proxy
 * (so the page loads no source the render would refuse); the finished video comes from the URL
 * the storage signs: the service's public base URL, or the GCS endpoint.
 */
export function playgroundCsp(config: AppConfig): string {
  const outputOrigins = [new URL(config.publicBaseUrl).origin];
  if (config.storage.gcs) outputOrigins.push(new URL(config.storage.gcs.apiEndpoint ?? 'https://storage.googleapis.com').origin);
  return [
    "default-src 'none'",
    "script-src 'self'",
    // CodeMirror and the Player set element styles and insert <style> rules at run time.
    "style-src 'self' 'unsafe-inline'",
    "font-src 'self'",
    "img-src 'self' blob: data:",
    // data: for the Player's own silent clip that unlocks audio playback.
    `media-src 'self' blob: data: ${outputOrigins.join(' ')}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Headers of every playground file; the key typed into the page must not leak through any of them. */
export function playgroundHeaders(config: AppConfig): Record<string, string> {
  return {
    'Content-Security-Policy': playgroundCsp(config),
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
  };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

/**
 * A built file of the playground by its name under dist/playground/assets (Vite's hashed names:
 * letters, digits, `-`, `_` and one extension), or null. Nothing outside that folder is reachable.
 */
export function playgroundAsset(name: string): { body: Buffer; type: string } | null {
  if (!/^[\w-]+(\.[\w-]+)*\.[a-z0-9]+$/i.test(name)) return null;
  const file = path.join(PLAYGROUND_DIST, 'assets', name);
  const type = TYPES[path.extname(name).toLowerCase()];
  if (!type || !existsSync(file)) return null;
  return { body: readFileSync(file), type };
}

export function playgroundIndex(): Buffer | null {
  const file = path.join(PLAYGROUND_DIST, 'index.html');
  return existsSync(file) ? readFileSync(file) : null;
}
