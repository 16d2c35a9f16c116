#!/usr/bin/env bash
# One command: install everything, type-check, then run the whole test suite against a real
# PostgreSQL: DATABASE_URL when set, else the local server on 127.0.0.1:5432 when one answers,
# else the embedded PostgreSQL the tests start themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh

if [ -z "${DATABASE_URL:-}" ] && command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432; then
  export DATABASE_URL="postgres://postgres@127.0.0.1:5432/postgres"
fi
npm run typecheck
npm test -- "$@"
