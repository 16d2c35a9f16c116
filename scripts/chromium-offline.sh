#!/bin/sh
# Debian's Chromium for Remotion (`browserExecutable`), kept off the network: every host name
# resolves to nothing except loopback (the worker's local file server), and the component
# updater and sync stay quiet (docs/architecture.md, "Rendering").
exec /usr/lib/chromium/chromium \
  --host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1" \
  --disable-component-update \
  --disable-sync \
  "$@"
