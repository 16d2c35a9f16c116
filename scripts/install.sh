#!/usr/bin/env bash
# Installs everything the service needs on a Debian machine: Debian packages, then the exact npm
# dependency tree of package-lock.json (including the pinned Node.js runtime), then builds.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-system-deps.sh

# No step downloads a browser: Remotion and puppeteer use Debian's chromium.
export PUPPETEER_SKIP_DOWNLOAD=1
# `npm install` rather than `npm ci`: the registry mirror reachable here serves only this
# platform's optional binaries (e.g. @swc/core-linux-x64-gnu), so the lock file cannot list the
# other platforms' ones and `npm ci` would refuse it. Versions still come from package-lock.json.
# .npmrc makes an unreviewed dependency install script fail the install (`strict-allow-scripts`);
# package.json's `allowScripts` says which ones run (docs/decisions.md).
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] || [ package.json -nt node_modules/.package-lock.json ]; then
  npm install --no-audit --no-fund
fi
npm run build
