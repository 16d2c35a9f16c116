#!/usr/bin/env bash
# Builds the Dockerfile into TAG (default video-render-service:local) with podman, or docker when
# podman is absent, and prints the image's size. Where no image registry answers, the base
# debian:bookworm-slim is first made from this machine's own Debian archive with mmdebstrap; once
# made (or pulled) it is kept and never rebuilt, and the build reuses its cached layers.
# Env: CONTAINER_ENGINE=podman|docker, BASE_IMAGE (default debian:bookworm-slim).
set -euo pipefail
cd "$(dirname "$0")/.."
tag="${1:-video-render-service:local}"
base="${BASE_IMAGE:-debian:bookworm-slim}"

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
  echo "$* needs root: run this script as root or install podman, runc and mmdebstrap" >&2; exit 1; fi; }

engine="${CONTAINER_ENGINE:-}"
if [ -z "$engine" ]; then
  if command -v podman >/dev/null; then engine=podman
  elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then engine=docker
  else engine=podman; fi
fi

run_engine=("$engine")
if [ "$engine" = podman ]; then
  missing=()
  for tool in podman runc mmdebstrap; do command -v "$tool" >/dev/null || missing+=("$tool"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing from Debian: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  # crun refuses this kind of machine's hybrid cgroups and podman's default ulimits: runc, cgroupfs,
  # none (docs/decisions/0111-container-engine-settings.md). A caller's own CONTAINERS_CONF wins.
  if [ -z "${CONTAINERS_CONF:-}" ]; then
    export CONTAINERS_CONF="${TMPDIR:-/tmp}/video-render-service-containers.conf"
    printf '[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = "cgroupfs"\nruntime = "runc"\n' > "$CONTAINERS_CONF"
  fi
fi

# The base: present, else pulled, else made from Debian's archive (what debian:bookworm-slim is).
if ! "${run_engine[@]}" image exists "$base" 2>/dev/null && ! "${run_engine[@]}" image inspect "$base" >/dev/null 2>&1; then
  if ! timeout 60 "${run_engine[@]}" pull -q "docker.io/library/$base" >/dev/null 2>&1; then
    command -v mmdebstrap >/dev/null || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
    # This machine's own apt source, not a hard-coded mirror.
    mirror="$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)"
    [ -n "$mirror" ] || mirror="$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)"
    [ -n "$mirror" ] || mirror="http://deb.debian.org/debian"
    suite="${base#*:}"; suite="${suite%-slim}"
    rootfs="$(mktemp -d)/rootfs.tar"
    echo "No registry answers: making $base from $mirror ($suite) with mmdebstrap"
    # As the registry's -slim image: no manuals, documentation (but copyrights) or translations.
    as_root mmdebstrap --quiet --variant=minbase \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
      --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
      --dpkgopt='path-exclude=/usr/share/locale/*' \
      "$suite" "$rootfs" "$mirror"
    "${run_engine[@]}" import "$rootfs" "$base" >/dev/null
    rm -rf "$(dirname "$rootfs")"
  fi
fi

# The commit is a label; it reaches GET /v1/version only when GIT_COMMIT is set, because as a
# build argument it would rebuild the build stage on every commit, source change or not.
commit="$(git rev-parse HEAD 2>/dev/null || true)"
# Vite opens every font file of the playground at once: more than the engine's default open-file limit.
build=(build --network host --ulimit nofile=16384:16384 --label "org.opencontainers.image.revision=$commit" -t "$tag" -f Dockerfile .)
[ -n "${GIT_COMMIT:-}" ] && build+=(--build-arg "GIT_COMMIT=$GIT_COMMIT")
# A machine behind a TLS-inspecting proxy trusts its CA through NODE_EXTRA_CA_CERTS (BUILD_CA_FILE
# overrides): npm in the build trusts the same, as a build secret that no layer keeps.
ca="${BUILD_CA_FILE:-${NODE_EXTRA_CA_CERTS:-}}"
[ -n "$ca" ] && [ -s "$ca" ] && build+=(--secret "id=build-ca,src=$ca")
[ "$engine" = podman ] && build=(--runtime runc "${build[@]}" --layers)
previous="$("${run_engine[@]}" image inspect "$tag" --format '{{.Id}}' 2>/dev/null || true)"
"${run_engine[@]}" "${build[@]}"
# The image the tag named before is left untagged: remove it (cached layers stay for the next build).
current="$("${run_engine[@]}" image inspect "$tag" --format '{{.Id}}')"
if [ -n "$previous" ] && [ "$previous" != "$current" ]; then "${run_engine[@]}" rmi "$previous" >/dev/null 2>&1 || true; fi

size="$("${run_engine[@]}" image inspect "$tag" --format '{{.Size}}')"
echo "Built $tag with $engine: $((size / 1000000)) MB"
