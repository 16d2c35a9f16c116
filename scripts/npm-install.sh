#!/usr/bin/env bash
# The npm step of scripts/install.sh: the exact dependency tree of package-lock.json, the pinned
# Node.js runtime (the `node` package) included. Extra arguments go to npm
# (test/clean-install.e2e-spec.ts passes --package-lock-only).
set -euo pipefail
cd "$(dirname "$0")/.."

# No step downloads a browser: Remotion and puppeteer use Debian's chromium.
export PUPPETEER_SKIP_DOWNLOAD=1

# npm checks every package's `engines` against the Node that runs npm. The machine's own Node may
# be older than the one the service runs on (Debian 12's is 20), so npm runs on the pinned Node:
# the installed one, or on a first install the same build fetched from the npm registry on its own
# (the package the `node` package itself installs), kept in node_modules/.cache.
runtime="$(node -p 'require("./package-lock.json").packages["node_modules/node"].version')"
if [ -x node_modules/node/bin/node ] && [ "$(node_modules/node/bin/node -v)" = "v$runtime" ]; then
  export PATH="$PWD/node_modules/node/bin:$PATH"
elif [ "$(node -v)" != "v$runtime" ]; then
  boot="$PWD/node_modules/.cache/node-runtime"
  package="$(node -p '(process.platform === "darwin" && process.arch === "arm64" ? "node-bin" : "node") + "-" + process.platform + "-" + process.arch')"
  if [ ! -x "$boot/node_modules/$package/bin/node" ]; then
    npm install --prefix "$boot" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$package@$runtime"
  fi
  export PATH="$boot/node_modules/$package/bin:$PATH"
fi

# .npmrc makes an unreviewed dependency install script fail the install (`strict-allow-scripts`);
# package.json's `allowScripts` says which ones run (docs/decisions/0011-install-scripts.md). package-lock.json lists
# every platform's optional binaries, so the install leaves it as it is (`npm ci` would too, but
# it would delete node_modules on every change of the lock).
npm install --no-audit --no-fund "$@"
