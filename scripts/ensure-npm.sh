#!/usr/bin/env bash
# Make sure npm is here: the map's Leaflet assets come from the npm registry (assets/package.json).
set -euo pipefail
command -v npm >/dev/null 2>&1 && exit 0
if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else SUDO="none"; fi
  if [ "$SUDO" != "none" ]; then
    echo "npm is missing: installing Debian's npm package (apt-get install npm)..."
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq npm >/dev/null
    exit 0
  fi
fi
cat >&2 <<'MSG'
Corridor's maps inline Leaflet from npm packages, and npm was not found.
  Debian/Ubuntu:  sudo apt-get install npm
  macOS:          brew install node
Then run the make command again.
MSG
exit 1
