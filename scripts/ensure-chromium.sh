#!/usr/bin/env bash
# Make sure a Chromium the tests and PNG export can drive is on this machine.
set -euo pipefail

for candidate in "${CORRIDOR_CHROMIUM:-}" chromium chromium-browser google-chrome; do
  if [ -n "$candidate" ] && command -v "$candidate" >/dev/null 2>&1; then
    exit 0
  fi
done

if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else SUDO="none"; fi
  if [ "$SUDO" != "none" ]; then
    echo "Chromium is missing: installing Debian's chromium package (apt-get install chromium)..."
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
    exit 0
  fi
fi

cat >&2 <<'MSG'
Corridor's browser tests and PNG/PDF export need Chromium, and none was found.
  Debian/Ubuntu:  sudo apt-get install chromium
  Fedora:         sudo dnf install chromium
  macOS:          brew install --cask chromium
Or point CORRIDOR_CHROMIUM at a Chromium or Chrome executable.
MSG
exit 1
