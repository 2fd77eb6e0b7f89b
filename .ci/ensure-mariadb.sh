#!/usr/bin/env bash
# Makes sure a MariaDB server answers on 127.0.0.1:3306 as root with an empty password, as the
# mariadb kind's tests expect (test/conformance/mariadb.test.ts, test/plugins/db/mariadb). Starts
# the machine's server the way the machine notes give when it is stopped, and installs it from
# Debian's packages on a machine that has none (then lets root in over TCP without a password,
# as the machines of this project are set up).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

ready() { mariadb -h 127.0.0.1 -P 3306 -u root -e 'SELECT 1' >/dev/null 2>&1; }

if command -v mariadb >/dev/null 2>&1 && ready; then exit 0; fi

installed=0
if [ ! -x /usr/sbin/mariadbd ]; then
  echo "ensure-mariadb: installing MariaDB from Debian's packages"
  apt_update
  apt_install mariadb-server mariadb-client
  installed=1
fi

mkdir -p /run/mysqld
chown mysql:mysql /run/mysqld 2>/dev/null || true
start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd || true
for _ in $(seq 1 60); do
  if ready; then exit 0; fi
  if [ "$installed" = 1 ] && mariadb -u root -e 'SELECT 1' >/dev/null 2>&1; then
    # A fresh install lets root in through the socket only.
    mariadb -u root -e "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''; GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;"
    installed=0
  fi
  sleep 1
done
echo "ensure-mariadb: MariaDB did not start" >&2
exit 1
