// Child process of bench/render.mts: bundles (cached) and renders the hand-written baseline with a
// plain renderMedia() call, as a user would: fresh browser, <OffthreadVideo>, default settings.
// Prints one JSON line: { seconds } for the render alone (bundling excluded).
import { bundle } from '@remotion/bundler';
import { renderMedia, selectComposition } from '@remotion/renderer';
import { existsSync } from 'node:fs';
import path from 'node:path';

const [clip, logo, output, cacheDir, browserExecutable] = process.argv.slice(2);
const bundleDir = path.join(cacheDir, 'bench-baseline-bundle');
if (!existsSync(path.join(bundleDir, 'index.html'))) {
  await bundle({ entryPoint: path.join(import.meta.dirname, 'index.tsx'), outDir: bundleDir });
}
const started = performance.now();
const inputProps = { clip, logo };
const composition = await selectComposition({ serveUrl: bundleDir, id: 'Baseline', inputProps, browserExecutable });
await renderMedia({ composition, serveUrl: bundleDir, codec: 'h264', outputLocation: output, inputProps, browserExecutable, concurrency: 1 });
console.log(JSON.stringify({ seconds: (performance.now() - started) / 1000 }));
