#!/usr/bin/env bash
# Installs the Debian packages the service and its tests need (browser, encoder, fonts, speech), only those
# missing, so a second run costs nothing. Everything comes from Debian's own archive.
set -euo pipefail

# scripts/debian-packages.txt is the one list (the Dockerfile installs its runtime and image lines);
# this machine gets the runtime and test ones.
PACKAGES=()
while read -r pkg where _; do
  case "$pkg" in ''|'#'*) continue ;; esac
  case "$where" in runtime|test) PACKAGES+=("$pkg") ;; esac
done < "$(dirname "$0")/debian-packages.txt"

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "Missing Debian packages: ${missing[*]}; run this script as root to install them" >&2
    exit 1
  fi
fi
echo "Installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
