import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * composition/src runs in the browser (Remotion and @remotion/player): no Node modules or
 * globals in its shipped files, and no CSS reachable from the schema module Node imports.
 */
const SRC = path.join(__dirname, '..');
const NODE_API = /from ['"](node:|fs|path|http|https|os|child_process|crypto|stream|url|net)['"/]|\b(process|Buffer|__dirname|require)\b[.(]/;

function shippedFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return shippedFiles(file);
    return /\.tsx?$/.test(entry.name) && !/\.(spec|d)\.tsx?$/.test(entry.name) ? [file] : [];
  });
}

describe('composition sources', () => {
  it('use no Node APIs', () => {
    const offenders = shippedFiles(SRC).filter((file) => NODE_API.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('keep React and CSS out of the schema module', () => {
    const offenders = shippedFiles(path.join(SRC, 'schema')).filter((file) => /from ['"](react|remotion|@remotion\/)|\.css['"]/.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
