#!/usr/bin/env bash
# One command: install everything, then start the service (api and worker in one process) on PORT
# (default 8080). Extra arguments pass through: `scripts/start.sh api` or `scripts/start.sh worker`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
exec npm start -- "$@"
