// Child process of bench/engine.mts's texts row: the service's own composition bundle rendered with
// a plain renderMedia() call and Remotion's defaults, as a user of the published composition would:
// fresh browser, default concurrency, JPEG quality and x264 settings, the service's input props.
// Prints one JSON line: { seconds } for selectComposition and renderMedia (the bundle is prebuilt).
import { renderMedia, selectComposition } from '@remotion/renderer';
import { readFileSync } from 'node:fs';

const [serveUrl, compositionId, propsFile, output, browserExecutable] = process.argv.slice(2);
const inputProps = JSON.parse(readFileSync(propsFile, 'utf8')) as Record<string, unknown>;
const started = performance.now();
const composition = await selectComposition({ serveUrl, id: compositionId, inputProps, browserExecutable, logLevel: 'error' });
await renderMedia({ composition, serveUrl, codec: 'h264', outputLocation: output, inputProps, browserExecutable, logLevel: 'error' });
console.log(JSON.stringify({ seconds: (performance.now() - started) / 1000 }));
