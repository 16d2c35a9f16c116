#!/usr/bin/env bash
# Installs everything the service needs on a Debian machine: Debian packages, then the exact npm
# dependency tree of package-lock.json (including the pinned Node.js runtime), then builds.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-system-deps.sh

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] || [ package.json -nt node_modules/.package-lock.json ]; then
  bash scripts/npm-install.sh
fi
npm run build
