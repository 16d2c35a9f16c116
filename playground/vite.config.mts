import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The playground page, built by `npm run build` into dist/playground and served by the service at
// /playground (src/playground). Everything it needs is in the bundle: the composition (from its
// sources, as the package exports it), the shipped fonts, the editor; nothing is loaded from
// elsewhere at run time, and the page's CSP allows nothing else.
const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: '/playground/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic' } },
  resolve: {
    alias: { '@video-render-service/composition': path.join(here, '../composition/src/package.ts') },
  },
  build: {
    outDir: path.join(here, '../dist/playground'),
    emptyOutDir: true,
    // Fonts and images as files under 'self', never data: URLs the CSP would have to allow.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 4096,
    rolldownOptions: {
      // @remotion/player marks itself "use client" for React Server Components; a client bundle has no use for it.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
