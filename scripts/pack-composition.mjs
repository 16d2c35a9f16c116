// `npm run pack:composition [-- <folder>]`: builds composition/ and packs it as <folder>/composition.tgz
// (default examples/player), the file the example app's `file:composition.tgz` dependency installs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const destination = path.resolve(process.argv[2] ?? path.join(root, 'examples/player'));

execFileSync(process.execPath, [path.join(root, 'scripts/build-composition.mjs')], { stdio: 'inherit' });
const scratch = mkdtempSync(path.join(tmpdir(), 'vrs-pack-'));
const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
const [made] = JSON.parse(
  execFileSync(npm[0], [...npm[1], 'pack', '--json', '--pack-destination', scratch], { cwd: path.join(root, 'composition'), encoding: 'utf8' }),
);
renameSync(path.join(scratch, made.filename), path.join(destination, 'composition.tgz'));
rmSync(scratch, { recursive: true, force: true });
console.log(`${made.name}@${made.version}: ${made.entryCount} files → ${path.join(destination, 'composition.tgz')}`);
