#!/usr/bin/env bash
# Make sure fontconfig knows a font for a language (Chromium draws PNG and PDF snapshots with
# it), installing Debian's package when none is found and we can.
# Usage: scripts/ensure-font.sh LANGUAGE PACKAGE "why it is needed"
set -euo pipefail
language=$1; package=$2; why=$3

if command -v fc-list >/dev/null 2>&1 && [ -n "$(fc-list ":lang=$language" family)" ]; then
  exit 0
fi
if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; else sudo="none"; fi
  if [ "$sudo" != "none" ]; then
    echo "no font for '$language' ($why): installing Debian's $package package..."
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$package" fontconfig >/dev/null
    exit 0
  fi
fi
cat >&2 <<MSG
Corridor: no font for '$language' was found ($why).
  Debian/Ubuntu:  sudo apt-get install $package
  Fedora:         sudo dnf install google-noto-sans-arabic-fonts
  macOS:          Arabic fonts ship with the system
MSG
exit 1
