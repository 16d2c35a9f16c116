import { existsSync } from 'node:fs';
import * as path from 'node:path';

/** The folder holding package.json, whether running from `src/` (tests) or `dist/src/` (build). */
function findProjectRoot(start: string): string {
  let dir = start;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = findProjectRoot(__dirname);
