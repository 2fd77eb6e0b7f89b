#!/usr/bin/env bash
# Makes sure the PostgreSQL server on 127.0.0.1:5432 can create the postgis, postgis_raster and
# ltree extensions, which the extension-type tests create in their own databases. Installs
# Debian's postgresql-<major>-postgis-3 for whatever major version the server runs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

available() {
  psql -h 127.0.0.1 -U postgres -d postgres -tAc \
    "select count(*) from pg_available_extensions where name in ('postgis', 'postgis_raster', 'ltree')" 2>/dev/null
}

if [ "$(available)" = "3" ]; then exit 0; fi

major=$(psql -h 127.0.0.1 -U postgres -d postgres -tAc "show server_version_num" | cut -c1-2)
echo "ensure-postgis: installing postgresql-${major}-postgis-3"
apt_update
apt_install "postgresql-${major}-postgis-3" "postgresql-contrib" 2>/dev/null || apt_install "postgresql-${major}-postgis-3"

if [ "$(available)" != "3" ]; then
  echo "ensure-postgis: postgis, postgis_raster or ltree is still not available" >&2
  exit 1
fi
