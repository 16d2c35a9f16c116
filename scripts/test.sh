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
# The fresh-install check is mostly the disk and the network: it runs beside lint and type-check,
# which keep the cores busy meanwhile.
fresh_log="$(mktemp)"
bash scripts/check-fresh-install.sh >"$fresh_log" 2>&1 &
fresh_pid=$!
trap 'kill "$fresh_pid" 2>/dev/null || true; rm -f "$fresh_log"' EXIT

npm run lint
npm run lint:openapi
npm run typecheck

# Every dependency install script is reviewed in package.json's allowScripts (docs/decisions/0011-install-scripts.md).
pending="$(npm approve-scripts --allow-scripts-pending 2>/dev/null)"
if ! grep -q '^No packages with unreviewed install scripts' <<<"$pending"; then
  echo "$pending" >&2
  echo "unreviewed install scripts: approve or deny each in package.json allowScripts" >&2
  exit 1
fi
# A fresh copy installs with npm 12 too and its embedded default starts.
if ! wait "$fresh_pid"; then
  cat "$fresh_log" >&2
  exit 1
fi
cat "$fresh_log"

results="$(mktemp)"
status=0
npm test -- --json --outputFile="$results" "$@" || status=$?
# One plain closing line for CI: "tests: N passed, N failed".
node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed`)' "$results" || true
rm -f "$results"
exit $status
