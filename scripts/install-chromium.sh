#!/usr/bin/env bash
# Installs Debian's Chromium (never a downloaded browser build) when no system Chromium is found: the ingest needs it
# to read the DisasterAssist list, whose rows are drawn by a script in the browser; the browser tests need it too.
# Run as root, or as a user who may use sudo. CHROMIUM_PATH, when set, names the browser to use instead.
set -euo pipefail

if [ -n "${CHROMIUM_PATH:-}" ]; then
  if [ -x "$CHROMIUM_PATH" ]; then echo "Chromium: $CHROMIUM_PATH (CHROMIUM_PATH)"; exit 0; fi
  echo "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file" >&2
  exit 1
fi
for candidate in /usr/lib/chromium/chromium /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome-stable /usr/bin/google-chrome; do
  if [ -x "$candidate" ]; then echo "Chromium: $candidate"; exit 0; fi
done

source "$(dirname "$0")/apt-install.sh"
apt_install Chromium chromium fonts-liberation
echo "Chromium: installed Debian's chromium ($(command -v chromium))"
