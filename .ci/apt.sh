# Sourced by the ensure-*.sh scripts: installs from Debian's packages, waiting up to five minutes
# for another apt or dpkg run's lock (a CI machine may be installing something else) instead of
# failing at once.
export DEBIAN_FRONTEND=noninteractive

# The package lists are read once per hour at most: on a fresh machine several ensure scripts
# install something, one after another, and each update costs a download.
apt_update() {
  local stamp=/tmp/svc-ci-apt-update.stamp
  if [ -n "$(find "$stamp" -mmin -60 2>/dev/null)" ]; then return 0; fi
  apt-get -o DPkg::Lock::Timeout=300 update -qq
  touch "$stamp"
}

apt_install() { apt-get -o DPkg::Lock::Timeout=300 install -y -qq "$@" >/dev/null; }
