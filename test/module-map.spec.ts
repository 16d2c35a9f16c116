import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * docs/architecture.md's module map is a fenced `modules` block: one line per folder of src/, its
 * *.module.ts files (relative to the folder, comma-separated; `-` for none), then what it holds.
 * This holds the map against the code, so a folder or module added without a line fails here.
 */
const root = join(__dirname, '..');
const src = join(root, 'src');

interface MapLine {
  folder: string;
  modules: string[];
}

function mapOfDocs(): MapLine[] {
  const text = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const block = /^```modules\n([\s\S]*?)^```$/m.exec(text);
  if (!block) throw new Error('docs/architecture.md has no ```modules block');
  return block[1]
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const match = /^(\S+)\s+(-|\S+(?:, \S+)*)\s{2,}\S/.exec(line);
      if (!match) throw new Error(`module map line not understood: ${line}`);
      return { folder: match[1], modules: match[2] === '-' ? [] : match[2].split(', ').sort() };
    });
}

function moduleFilesUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.module.ts')) found.push(relative(dir, path));
    }
  };
  walk(dir);
  return found.sort();
}

const folders = readdirSync(src)
  .filter((name) => statSync(join(src, name)).isDirectory())
  .sort();

describe('the module map in docs/architecture.md', () => {
  const map = mapOfDocs();

  it('has one line per folder of src/, in order, and no other', () => {
    expect(map.map((line) => line.folder)).toEqual(folders);
  });

  it.each(folders)('names the module files of src/%s', (folder) => {
    const line = map.find((entry) => entry.folder === folder);
    expect(line?.modules).toEqual(moduleFilesUnder(join(src, folder)));
  });
});
