#!/usr/bin/env bash
# Makes sure a MariaDB server answers on 127.0.0.1:3306 (root, no password), as the mariadb kind's
# conformance tests expect. Starts the machine's server when it is stopped, and installs it from
# Debian's packages on a machine that has none.
set -euo pipefail

ready() { mariadb -h 127.0.0.1 -P 3306 -u root -e 'SELECT 1' >/dev/null 2>&1; }

if command -v mariadb >/dev/null 2>&1 && ready; then exit 0; fi

if [ ! -x /usr/sbin/mariadbd ]; then
  echo "ensure-mariadb: installing MariaDB from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq mariadb-server mariadb-client >/dev/null
fi

mkdir -p /run/mysqld
chown mysql:mysql /run/mysqld 2>/dev/null || true
start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql --bind-address=127.0.0.1 --port=3306 || true
for _ in $(seq 1 60); do
  if ready; then exit 0; fi
  sleep 1
done
echo "ensure-mariadb: MariaDB did not start" >&2
exit 1
