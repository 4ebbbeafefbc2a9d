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
if ! command -v apt-get >/dev/null 2>&1; then
  echo "redis-server or postgresql missing and no apt-get: install them with this system's package manager" >&2
  exit 1
fi
if [ "$(id -u)" = 0 ]; then as_root=(); elif command -v sudo >/dev/null 2>&1; then as_root=(sudo); else
  echo "redis-server or postgresql missing: run as root 'apt-get install -y redis-server postgresql'" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq redis-server postgresql >/dev/null
echo "redis-server and postgresql: installed Debian's packages"
