#!/usr/bin/env bash
# Makes sure what the tests need is here: Redis (127.0.0.1:6379) and PostgreSQL (127.0.0.1:5432) up,
# started if down, and Debian's Chromium (the CLI's HTML report is checked in a headless browser).
# Fails loudly when one cannot be had: integration tests are never skipped.
set -euo pipefail

wait_for() { # name, probe command...
  local name=$1; shift
  for _ in $(seq 1 50); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  echo "services: $name did not come up" >&2; return 1
}

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  if ! command -v redis-server >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq redis-server >/dev/null
  fi
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_for redis redis-cli -h 127.0.0.1 -p 6379 ping
fi
echo "services: redis up"

# A local 3-master Redis Cluster for the cluster contract suites: ports 7001-7003, data in a temp dir.
cluster_ok() { redis-cli -h 127.0.0.1 -p 7001 cluster info 2>/dev/null | grep -q 'cluster_state:ok'; }
if ! cluster_ok; then
  cluster_dir=$(mktemp -d /tmp/pgw-redis-cluster.XXXXXX)
  for port in 7001 7002 7003; do
    if ! redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1; then
      mkdir -p "$cluster_dir/$port"
      redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --cluster-enabled yes \
        --cluster-config-file "$cluster_dir/$port/nodes.conf" --dir "$cluster_dir/$port" \
        --save "" --appendonly no --logfile "$cluster_dir/$port/redis.log"
    fi
    wait_for "redis cluster node $port" redis-cli -h 127.0.0.1 -p "$port" ping
  done
  redis-cli --cluster create 127.0.0.1:7001 127.0.0.1:7002 127.0.0.1:7003 --cluster-replicas 0 --cluster-yes >/dev/null
  wait_for "redis cluster" cluster_ok
fi
echo "services: redis cluster up (127.0.0.1:7001-7003)"

if ! pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1; then
  if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq postgresql >/dev/null
  fi
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n1)" main start || true
  wait_for postgresql pg_isready -h 127.0.0.1 -p 5432
fi
psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='test'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -d postgres -c "CREATE DATABASE test" >/dev/null
echo "services: postgresql up"

if [ ! -x /usr/bin/chromium ]; then
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
/usr/bin/chromium --version
