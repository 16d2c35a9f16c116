import { reportPreviewProblem, whyUnreadable } from './preview-problems';

/**
 * One shipped font file as the npm package registers it: the descriptors of its @fontsource
 * `@font-face` rule, and its URL beside the package's code (`dist/fonts/<file>`).
 */
export type ShippedFace = {
  family: string;
  style: string;
  weight: string;
  unicodeRange: string;
  file: string;
  /** `new URL('./fonts/<file>', import.meta.url)`, written out per file so bundlers (Vite, webpack, Parcel) see and emit it. */
  url: () => URL;
};

/**
 * The package's fonts, without CSS: each file becomes a `FontFace` in `document.fonts`, so no
 * bundler has to understand CSS or font files. Faces load only when text uses them, as with the
 * CSS rules (unicode ranges included). A bundler that leaves `new URL(…, import.meta.url)` alone
 * (esbuild) keeps the URL relative to the bundle: the package's `dist/fonts` folder is then served
 * next to it. Under an IIFE bundle `import.meta.url` is empty, so the URL is taken relative to the
 * running script instead. A file that fails to load is reported (console and `onPreviewProblem`).
 * The server render does not use this: it bundles the @fontsource CSS (fonts.ts).
 */
export function registerFontFaces(faces: readonly ShippedFace[]): void {
  if (typeof document === 'undefined' || typeof FontFace === 'undefined') return;
  const script = document.currentScript instanceof HTMLScriptElement ? document.currentScript.src : '';
  const base = script || document.baseURI;
  for (const face of faces) {
    let url: string;
    try {
      url = face.url().href;
    } catch {
      url = new URL(`fonts/${face.file}`, base).href;
    }
    const fontFace = new FontFace(face.family, `url(${JSON.stringify(url)}) format('woff2')`, {
      style: face.style,
      weight: face.weight,
      unicodeRange: face.unicodeRange,
      display: 'swap',
    });
    document.fonts.add(fontFace);
    fontFace.loaded.catch(async () => {
      const { reason } = await whyUnreadable(url);
      reportPreviewProblem({
        kind: 'font',
        url,
        message:
          `the font ${face.family} ${face.weight} ${face.style} did not load from ${url}: ${reason}. Text in it falls back to another font. ` +
          `Serve the package's dist/fonts folder next to your bundle (README: "Previews in a frontend").`,
      });
    });
  }
}

const registered = new Map<string, FontFace>();

/**
 * Faces given in the props (`fontFaces`): added to `document.fonts` once per file and family, before
 * the layers measure text; the text layers' `document.fonts.load` then waits for them.
 */
export function registerPropFontFaces(faces: readonly { family: string; weight: string; style: string; unicode_range?: string; url: string }[] | undefined): void {
  if (typeof document === 'undefined' || typeof FontFace === 'undefined') return;
  const wanted = new Set((faces ?? []).map((face) => `${face.family}\n${face.weight}\n${face.style}\n${face.url}`));
  // A page that draws request after request (the worker's warm tab) keeps no face of an earlier one.
  for (const [key, fontFace] of registered) {
    if (wanted.has(key)) continue;
    document.fonts.delete(fontFace);
    registered.delete(key);
  }
  for (const face of faces ?? []) {
    const key = `${face.family}\n${face.weight}\n${face.style}\n${face.url}`;
    if (registered.has(key)) continue;
    const fontFace = new FontFace(face.family, `url(${JSON.stringify(face.url)})`, {
      style: face.style,
      weight: face.weight,
      ...(face.unicode_range ? { unicodeRange: face.unicode_range } : {}),
      display: 'block',
    });
    registered.set(key, fontFace);
    document.fonts.add(fontFace);
    fontFace.loaded.catch(() => {
      reportPreviewProblem({ kind: 'font', url: face.url, message: `the font ${face.family} ${face.weight} ${face.style} did not load from ${face.url}` });
    });
  }
}
