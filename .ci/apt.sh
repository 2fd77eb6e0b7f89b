# Sourced by the ensure-*.sh scripts: installs from Debian's packages, waiting up to five minutes
# for another apt or dpkg run's lock (a CI machine may be installing something else) instead of
# failing at once.
export DEBIAN_FRONTEND=noninteractive

apt_update() { apt-get -o DPkg::Lock::Timeout=300 update -qq; }

apt_install() { apt-get -o DPkg::Lock::Timeout=300 install -y -qq "$@" >/dev/null; }
