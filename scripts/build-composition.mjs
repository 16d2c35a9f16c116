// `npm run build:composition`: composition/ as an installable package (composition/dist). esbuild
// makes one ESM file per entry with every package import left to the consumer's bundler (peers:
// React and Remotion; dependencies: zod, fastest-levenshtein and the @fontsource CSS); tsc writes
// the type declarations. dist/package.json marks the files as ES modules: composition/package.json
// cannot say "type": "module", because the server compiles composition/src as CommonJS.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const composition = path.join(root, 'composition');
const dist = path.join(composition, 'dist');

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
await build({
  entryPoints: { index: path.join(composition, 'src/package.ts'), schema: path.join(composition, 'src/schema/index.ts') },
  outdir: dist,
  bundle: true,
  packages: 'external',
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  jsx: 'automatic',
  sourcemap: true,
  logLevel: 'warning',
});
writeFileSync(path.join(dist, 'package.json'), `${JSON.stringify({ type: 'module', sideEffects: ['./index.js'] }, null, 2)}\n`);
execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(composition, 'tsconfig.build.json')], { stdio: 'inherit' });
