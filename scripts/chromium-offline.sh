#!/bin/sh
# Debian's Chromium for Remotion and puppeteer (`browserExecutable`), kept off the network: every
# host name resolves to nothing except loopback (the worker's local file server), and the component
# updater and sync stay quiet (docs/architecture.md, "Rendering").
# The headless shell (package chromium-headless-shell) is the same Blink without the full browser's
# start tab and address-bar pages: a 1080p render peaks ≈ 470 MB lower (docs/performance.md).
# The full browser stays the fallback where only `chromium` is installed.
browser=/usr/lib/chromium/chromium-headless-shell
[ -x "$browser" ] || browser=/usr/lib/chromium/chromium
exec "$browser" \
  --host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1" \
  --disable-component-update \
  --disable-sync \
  "$@"
