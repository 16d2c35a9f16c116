// Part of `npm run build`: makes the Remotion bundle of composition/ once (reusing the cache when
// the sources are unchanged) and ships it in dist/composition-bundle, so no render bundles.
const { cpSync, rmSync } = require('node:fs');
const { loadConfig } = require('../dist/src/config/app-config');
const { ensureCompositionBundle, PREBUILT_BUNDLE_DIR } = require('../dist/src/renders/engine/composition-bundle');

(async () => {
  const cached = await ensureCompositionBundle(loadConfig().render.cacheDir);
  if (cached !== PREBUILT_BUNDLE_DIR) {
    rmSync(PREBUILT_BUNDLE_DIR, { recursive: true, force: true });
    cpSync(cached, PREBUILT_BUNDLE_DIR, { recursive: true });
  }
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
