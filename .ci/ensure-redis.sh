#!/usr/bin/env bash
# Makes sure a Redis server answers on 127.0.0.1:6379, as the rate-limit tests expect (two engine
# instances sharing one Redis). Starts the machine's Redis if it is stopped, and installs it from
# Debian's packages on a machine that has none. It keeps nothing on disk.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

ready() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

if command -v redis-cli >/dev/null 2>&1 && ready; then exit 0; fi

if ! command -v redis-server >/dev/null 2>&1; then
  echo "ensure-redis: installing Redis from Debian's packages"
  apt_update
  apt_install redis-server
fi

mkdir -p /var/lib/redis /var/log/redis
redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
  --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
for _ in $(seq 1 30); do
  if ready; then exit 0; fi
  sleep 1
done
echo "ensure-redis: Redis did not start" >&2
exit 1
