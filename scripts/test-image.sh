#!/usr/bin/env bash
# The image test, apart from scripts/test.sh because its first build on a machine takes minutes:
# builds the Dockerfile (scripts/build-image.sh; cached layers make later runs quick), starts an api
# and two worker containers against PostgreSQL, renders a chunked mp4 across both workers and checks
# its frames. CI runs it after the suite (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
if [ -z "${DATABASE_URL:-}" ] && command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432; then
  export DATABASE_URL="postgres://postgres@127.0.0.1:5432/postgres"
fi
npm run test:image -- "$@"
