// `npm run pack:composition [-- <folder>]`: packs composition/ as <folder>/composition.tgz (default
// examples/player), the file the example app's `file:composition.tgz` dependency installs. `npm
// pack` builds the package first (its `prepack`); the folder is created when missing.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const destination = path.resolve(process.argv[2] ?? path.join(root, 'examples/player'));
const target = path.join(destination, 'composition.tgz');

mkdirSync(destination, { recursive: true });
// npm names the tarball after the package and version; it is packed aside and copied (not renamed:
// the temporary folder may be on another file system) under the name the example depends on.
const scratch = mkdtempSync(path.join(tmpdir(), 'vrs-pack-'));
try {
  const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
  const [made] = JSON.parse(
    execFileSync(npm[0], [...npm[1], 'pack', '--json', '--pack-destination', scratch], {
      cwd: path.join(root, 'composition'),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  copyFileSync(path.join(scratch, made.filename), target);
  console.log(`${made.name}@${made.version}: ${made.entryCount} files → ${target}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
