#!/usr/bin/env bash
# Makes sure the PostgreSQL server on 127.0.0.1:5432 can create the postgis, postgis_raster and
# ltree extensions, which the extension-type tests create in their own databases. Installs
# Debian's postgresql-<major>-postgis-3 for whatever major version the server runs.
set -euo pipefail

available() {
  psql -h 127.0.0.1 -U postgres -d postgres -tAc \
    "select count(*) from pg_available_extensions where name in ('postgis', 'postgis_raster', 'ltree')" 2>/dev/null
}

if [ "$(available)" = "3" ]; then exit 0; fi

major=$(psql -h 127.0.0.1 -U postgres -d postgres -tAc "show server_version_num" | cut -c1-2)
echo "ensure-postgis: installing postgresql-${major}-postgis-3"
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=300 update -qq
apt-get -o DPkg::Lock::Timeout=300 install -y -qq "postgresql-${major}-postgis-3" "postgresql-contrib" >/dev/null 2>&1 ||
  apt-get -o DPkg::Lock::Timeout=300 install -y -qq "postgresql-${major}-postgis-3" >/dev/null

if [ "$(available)" != "3" ]; then
  echo "ensure-postgis: postgis, postgis_raster or ltree is still not available" >&2
  exit 1
fi
