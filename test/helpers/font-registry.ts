import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

/** A family the stand-in registry serves: its @fontsource id, its name, and the woff2 file (on disk) it ships. */
export interface StandInFamily {
  id: string;
  family: string;
  file: string;
}

/**
 * `@fontsource/lobster`: Playfair Display's latin regular file under the name "Lobster" (about 22 KB);
 * `@fontsource/pacifico`: Oswald's, as "Pacifico" (about 12 KB).
 */
export const LOBSTER_AND_PACIFICO: StandInFamily[] = [
  { id: 'lobster', family: 'Lobster', file: require.resolve('@fontsource/playfair-display/files/playfair-display-latin-400-normal.woff2') },
  { id: 'pacifico', family: 'Pacifico', file: require.resolve('@fontsource/oswald/files/oswald-latin-400-normal.woff2') },
];

/**
 * A stand-in for the npm registry on loopback serving @fontsource packages built from fonts
 * already on disk, counting requests per package (and in all).
 */
export async function fakeRegistry(work: string, families: StandInFamily[] = LOBSTER_AND_PACIFICO) {
  const hits: Record<string, { packument: number; tarball: number }> = {};
  let total = 0;
  for (const { id, family, file } of families) {
    const root = path.join(work, 'registry', id, 'package');
    mkdirSync(path.join(root, 'files'), { recursive: true });
    copyFileSync(file, path.join(root, 'files', `${id}-latin-400-normal.woff2`));
    writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: `@fontsource/${id}`, version: '5.2.8' }));
    writeFileSync(
      path.join(root, '400.css'),
      `/* ${id}-latin-400-normal */\n@font-face {\n  font-family: '${family}';\n  font-style: normal;\n  font-display: swap;\n  font-weight: 400;\n` +
        `  src: url(./files/${id}-latin-400-normal.woff2) format('woff2');\n  unicode-range: U+0000-00FF,U+0131,U+0152-0153;\n}\n`,
    );
    execFileSync('tar', ['-czf', path.join(work, 'registry', `${id}.tgz`), '-C', path.join(work, 'registry', id), 'package']);
    hits[id] = { packument: 0, tarball: 0 };
  }
  const server = createServer((req, res) => {
    total += 1;
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const packument = /^\/@fontsource%2f([a-z-]+)$/.exec(req.url ?? '');
    const tarball = /^\/([a-z-]+)\.tgz$/.exec(req.url ?? '');
    if (packument && hits[packument[1]]) {
      const id = packument[1];
      hits[id].packument += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: `@fontsource/${id}`, 'dist-tags': { latest: '5.2.8' }, versions: { '5.2.8': { dist: { tarball: `${base}/${id}.tgz` } } } }));
    } else if (tarball && hits[tarball[1]]) {
      hits[tarball[1]].tarball += 1;
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(path.join(work, 'registry', `${tarball[1]}.tgz`)));
    } else {
      res.writeHead(404).end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: (id: string) => ({ ...hits[id] }),
    /** Every request the stand-in answered, for any package. */
    total: () => total,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A TrueType file whose family name (every record, Mac and Windows encodings) is replaced by one of the same length. */
export function renamedFont(file: string, from: string, to: string): Buffer {
  const bytes = readFileSync(file);
  const utf16 = (text: string) => Buffer.from(text, 'utf16le').swap16();
  for (const [a, b] of [[Buffer.from(from, 'latin1'), Buffer.from(to, 'latin1')], [utf16(from), utf16(to)]]) {
    for (let at = bytes.indexOf(a); at !== -1; at = bytes.indexOf(a, at + 1)) b.copy(bytes, at);
  }
  return bytes;
}
