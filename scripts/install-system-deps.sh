#!/usr/bin/env bash
# Installs the Debian packages the service needs (browser, encoder, fonts, speech), only those
# missing, so a second run costs nothing. Everything comes from Debian's own archive.
set -euo pipefail

PACKAGES=(
  chromium            # Debian's browser (its shared resources; the fallback browser)
  chromium-headless-shell # the headless shell Remotion renders with (no browser download)
  ffmpeg              # full ffmpeg/ffprobe for probing and tests (Remotion's own build is stripped)
  fonts-dejavu-core
  fonts-liberation
  fonts-noto-color-emoji  # colour emoji (the composition names it after the script fallbacks it bundles)
  fonts-noto-core     # the server's last resort for scripts beyond the bundled fallbacks (Ethiopic, Sinhala, Tibetan, …)
  ca-certificates
  pocketsphinx        # offline speech recognition, the default transcribe engine
  pocketsphinx-en-us  # its US English acoustic model, dictionary and language model
  espeak-ng           # tests: synthetic speech fixtures
  pocketsphinx-testdata # tests: real recordings the word error rate is measured on
  radosgw             # tests: Ceph's S3 gateway, the S3 store of test/storage-s3.e2e-spec.ts
  ceph-mon            # tests: with ceph-osd, the one-node cluster radosgw needs (scripts/ceph-rgw-test-server.sh)
  ceph-osd
)

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
