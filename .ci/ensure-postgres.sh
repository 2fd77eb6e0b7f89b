#!/usr/bin/env bash
# Makes sure a PostgreSQL server answers on 127.0.0.1:5432 and accepts user postgres without a
# password, as the integration tests expect. Starts the machine's cluster if it is stopped, and
# installs PostgreSQL from Debian's packages on a machine that has none.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

ready() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }

if ready; then exit 0; fi

if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
  echo "ensure-postgres: installing PostgreSQL from Debian's packages"
  apt_update
  apt_install postgresql
fi

version=$(ls /etc/postgresql | sort -V | tail -n 1)
hba="/etc/postgresql/${version}/main/pg_hba.conf"
# Loopback connections as postgres need no password for the tests (trust only on 127.0.0.1/::1).
if ! grep -q '^host all all 127.0.0.1/32 trust' "$hba"; then
  sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
fi
pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
for _ in $(seq 1 30); do
  if ready; then exit 0; fi
  sleep 1
done
echo "ensure-postgres: PostgreSQL did not start" >&2
exit 1
