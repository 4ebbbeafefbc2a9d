#!/usr/bin/env bash
# Installs Debian's redis-server and postgresql when missing: the Redis and PostgreSQL tests start throwaway servers
# of these packages on loopback ports with their own data directories (never the system's own services).
# Run as root, or as a user who may use sudo.
set -euo pipefail

have_postgres() { compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; }
if command -v redis-server >/dev/null 2>&1 && have_postgres; then
  echo "redis-server and postgresql: installed"
  exit 0
fi
source "$(dirname "$0")/apt-install.sh"
apt_install "redis-server or postgresql" redis-server postgresql
echo "redis-server and postgresql: installed Debian's packages"
