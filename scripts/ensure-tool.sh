#!/usr/bin/env bash
# Make sure a command the project needs is here, installing Debian's package when we can.
# Usage: scripts/ensure-tool.sh PACKAGE "why it is needed" COMMAND [COMMAND...]
#   (any of the COMMANDs will do; CORRIDOR_CHROMIUM counts for chromium)
set -euo pipefail
package=$1; why=$2; shift 2

for candidate in "$@" ${CORRIDOR_CHROMIUM:+"$CORRIDOR_CHROMIUM"}; do
  if command -v "$candidate" >/dev/null 2>&1; then exit 0; fi
done

if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; else sudo="none"; fi
  if [ "$sudo" != "none" ]; then
    echo "$package is missing ($why): installing Debian's $package package..."
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$package" >/dev/null
    exit 0
  fi
fi

cat >&2 <<MSG
Corridor needs $package ($why), and none was found.
  Debian/Ubuntu:  sudo apt-get install $package
  Fedora:         sudo dnf install $package
  macOS:          brew install $( [ "$package" = chromium ] && echo "--cask chromium" || echo node )
Then run the make command again.
MSG
exit 1
