// Builds clients/typescript as the package `@video-render-service/client` (its `build` and `prepack`):
// tsc into dist/, plus what tsc does not emit: the generated OpenAPI types the declarations import
// (src/generated/openapi.d.ts) and the OpenAPI document the package exports (`…/openapi.json`).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const client = path.join(root, 'clients/typescript');

execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(client, 'tsconfig.json')], { stdio: 'inherit' });
mkdirSync(path.join(client, 'dist/generated'), { recursive: true });
copyFileSync(path.join(client, 'src/generated/openapi.d.ts'), path.join(client, 'dist/generated/openapi.d.ts'));
copyFileSync(path.join(root, 'openapi/openapi.json'), path.join(client, 'openapi.json'));
