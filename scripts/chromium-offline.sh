#!/bin/sh
# Debian's Chromium for Remotion (`browserExecutable`), kept off the network: every host name
# resolves to nothing except loopback (the worker's local file server), and the component
# updater and sync stay quiet (docs/architecture.md, "Rendering"). With no GPU, WebGL (the colour
# grade and LUTs of composition/src/look) needs Chromium's software fallback, SwiftShader, allowed
# explicitly; it changes nothing for pages that use no WebGL.
exec /usr/lib/chromium/chromium \
  --host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1" \
  --disable-component-update \
  --disable-sync \
  --enable-unsafe-swiftshader \
  "$@"
