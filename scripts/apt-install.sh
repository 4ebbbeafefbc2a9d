# Sourced by the install scripts: `apt_install WHAT PACKAGE…` installs Debian packages as root or through sudo, or
# says in one line what to run when it cannot.
apt_install() {
  local what=$1
  shift
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "$what missing and no apt-get: install $* with this system's package manager" >&2
    return 1
  fi
  local as_root=()
  if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "$what missing: run as root 'apt-get install -y $*'" >&2
      return 1
    fi
    as_root=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" apt-get install -y -qq "$@" >/dev/null
}
