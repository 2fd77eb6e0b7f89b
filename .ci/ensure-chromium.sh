#!/usr/bin/env bash
# Makes sure Debian's Chromium is at /usr/bin/chromium for the console's end-to-end tests
# (driven by playwright-core, which downloads no browser of its own).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

if [ -x /usr/bin/chromium ]; then exit 0; fi

echo "ensure-chromium: installing Chromium from Debian's packages"
apt_update
apt_install chromium
[ -x /usr/bin/chromium ] || { echo "ensure-chromium: /usr/bin/chromium missing after install" >&2; exit 1; }
