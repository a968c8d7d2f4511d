#!/usr/bin/env bash
# PostGIS for a team workspace and for the tests: installs Debian's PostGIS package for the
# running PostgreSQL server where the extension is missing, then makes sure DATABASE exists
# with the extension in it.
# Usage: scripts/ensure-postgis.sh DATABASE   (the server: CORRIDOR_PG_ADMIN, a postgresql://
#   URL of a role that may create databases; default postgresql://postgres@127.0.0.1:5432/postgres)
set -euo pipefail
database=${1:?usage: scripts/ensure-postgis.sh DATABASE}
admin=${CORRIDOR_PG_ADMIN:-postgresql://postgres@127.0.0.1:5432/postgres}

if ! command -v psql >/dev/null 2>&1; then
  echo "Corridor's PostGIS workspace needs PostgreSQL's client (psql) and a server:" >&2
  echo "  Debian/Ubuntu: sudo apt-get install postgresql postgresql-client" >&2
  exit 1
fi
if ! psql "$admin" -Atqc "SELECT 1" >/dev/null 2>&1; then
  echo "Corridor cannot reach PostgreSQL at $admin (set CORRIDOR_PG_ADMIN to a role that may" >&2
  echo "create databases): $(psql "$admin" -Atqc 'SELECT 1' 2>&1 | head -1)" >&2
  exit 1
fi

major=$(psql "$admin" -Atqc "SELECT current_setting('server_version_num')::int / 10000")
available=$(psql "$admin" -Atqc "SELECT count(*) FROM pg_available_extensions WHERE name = 'postgis'")
if [ "$available" = 0 ]; then
  package="postgresql-$major-postgis-3"
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null 2>&1; }; then
    sudo=$([ "$(id -u)" -eq 0 ] || echo sudo)
    echo "PostGIS is missing (the team workspace and its tests): installing Debian's $package..."
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$package" >/dev/null
  else
    echo "Corridor needs PostGIS for PostgreSQL $major: install $package (Debian/Ubuntu)" >&2
    exit 1
  fi
fi

exists=$(psql "$admin" -Atqc "SELECT count(*) FROM pg_database WHERE datname = '$database'")
if [ "$exists" = 0 ]; then
  psql "$admin" -qc "CREATE DATABASE \"$database\""
fi
psql "${admin%/*}/$database" -qc "CREATE EXTENSION IF NOT EXISTS postgis"
