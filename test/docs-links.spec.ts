import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** Every relative link of README.md and docs/ names a file or folder that exists. */
const root = join(__dirname, '..');

function markdownUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownUnder(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** Inline links and images, outside fenced code: [text](target) and ![alt](target). */
function linksOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
  return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]);
}

const files = [join(root, 'README.md'), ...markdownUnder(join(root, 'docs'))];
const relativeLinks = files.flatMap((file) =>
  linksOf(file)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'))
    .map((target) => ({ file: relative(root, file), target })),
);

describe('links in README.md and docs/', () => {
  it('finds the documents and their relative links', () => {
    expect(files.length).toBeGreaterThan(20);
    expect(relativeLinks.length).toBeGreaterThan(50);
  });

  it('point at files that exist', () => {
    const broken = relativeLinks
      .filter(({ file, target }) => !existsSync(join(root, dirname(file), decodeURI(target.split('#')[0]))))
      .map(({ file, target }) => `${file}: ${target}`);
    expect(broken).toEqual([]);
  });
});
