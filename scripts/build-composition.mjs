// `npm run build:composition` (and composition's `prepack`): composition/ as an installable package
// (composition/dist). esbuild makes one ESM file per entry with every package import left to the
// consumer's bundler (peers: React and Remotion; dependencies: zod, fastest-levenshtein); tsc
// writes the type declarations. dist/package.json marks the files as ES modules:
// composition/package.json cannot say "type": "module", because the server compiles
// composition/src as CommonJS.
//
// Fonts: the server's bundle imports the @fontsource stylesheets (src/fonts.ts). The package must
// not: a consumer's bundler would need CSS and font loaders (esbuild has none by default) and the
// emitted CSS linked by hand. So the package gets the same faces as `FontFace`s registered from JS
// (src/font-faces.ts): this build reads every `@font-face` rule of the stylesheets fonts.ts imports,
// copies their woff2 files (and the fonts' OFL licences) to dist/fonts, and replaces the fonts.ts
// import with a table of those rules, each file's URL written as `new URL('./fonts/<file>',
// import.meta.url)` so bundlers that know the pattern emit the files.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const composition = path.join(root, 'composition');
const dist = path.join(composition, 'dist');

const fontFaces = shippedFontFaces();
rmSync(dist, { recursive: true, force: true });
mkdirSync(path.join(dist, 'fonts'), { recursive: true });
for (const face of fontFaces) copyFileSync(face.source, path.join(dist, 'fonts', face.file));
for (const pkg of new Set(fontFaces.map((face) => face.pkg))) {
  copyFileSync(path.join(root, 'node_modules', pkg, 'LICENSE'), path.join(dist, 'fonts', `LICENSE-${pkg.split('/')[1]}.txt`));
}
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
  plugins: [fontFacesInsteadOfCss(fontFaces)],
});
writeFileSync(path.join(dist, 'package.json'), `${JSON.stringify({ type: 'module', sideEffects: ['./index.js'] }, null, 2)}\n`);
execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(composition, 'tsconfig.build.json')], { stdio: 'inherit' });

/** Every `@font-face` rule of the @fontsource stylesheets src/fonts.ts imports, with its woff2 file. */
function shippedFontFaces() {
  const sheets = [...readFileSync(path.join(composition, 'src/fonts.ts'), 'utf8').matchAll(/^import '(@fontsource\/[^/']+)\/([^']+\.css)';$/gm)];
  if (sheets.length === 0) throw new Error('composition/src/fonts.ts imports no @fontsource stylesheet');
  return sheets.flatMap(([, pkg, sheet]) => {
    const css = readFileSync(path.join(root, 'node_modules', pkg, sheet), 'utf8');
    return [...css.matchAll(/@font-face\s*{([^}]*)}/g)].map(([, rule]) => {
      const field = (name) => {
        const value = new RegExp(`(?:^|;)\\s*${name}:\\s*([^;]+);`).exec(rule)?.[1].trim();
        if (!value) throw new Error(`${pkg}/${sheet}: a @font-face without ${name}`);
        return value;
      };
      const file = /url\(\.\/files\/([^)]+\.woff2)\)/.exec(field('src'))?.[1];
      if (!file) throw new Error(`${pkg}/${sheet}: a @font-face without a woff2 file`);
      return {
        pkg,
        family: field('font-family').replace(/^'(.*)'$/, '$1'),
        style: field('font-style'),
        weight: field('font-weight'),
        unicodeRange: field('unicode-range'),
        file,
        source: path.join(root, 'node_modules', pkg, 'files', file),
      };
    });
  });
}

/** An esbuild plugin: Main.tsx's `import './fonts'` (the stylesheets) becomes the FontFace table. */
function fontFacesInsteadOfCss(faces) {
  const ranges = [...new Set(faces.map((face) => face.unicodeRange))];
  const rows = faces.map(
    (face) =>
      `  [${JSON.stringify(face.family)}, ${JSON.stringify(face.style)}, ${JSON.stringify(face.weight)}, ${ranges.indexOf(face.unicodeRange)}, ` +
      `${JSON.stringify(face.file)}, () => new URL(${JSON.stringify(`./fonts/${face.file}`)}, import.meta.url)],`,
  );
  const contents = [
    "import { registerFontFaces } from './font-faces';",
    `const ranges = ${JSON.stringify(ranges)};`,
    'const faces = [',
    ...rows,
    '];',
    'registerFontFaces(faces.map(([family, style, weight, range, file, url]) => ({ family, style, weight, unicodeRange: ranges[range], file, url })));',
    '',
  ].join('\n');
  return {
    name: 'font-faces-instead-of-css',
    setup(build) {
      build.onResolve({ filter: /^\.\/fonts$/ }, (args) =>
        args.importer === path.join(composition, 'src/Main.tsx') ? { path: 'shipped-font-faces', namespace: 'font-faces' } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'font-faces' }, () => ({ contents, loader: 'js', resolveDir: path.join(composition, 'src') }));
      // Nothing else may pull a stylesheet in: the package's consumers need no CSS loader.
      build.onResolve({ filter: /\.css$/ }, (args) => ({ errors: [{ text: `${args.path} (from ${args.importer}): the package must not import CSS` }] }));
    },
  };
}
