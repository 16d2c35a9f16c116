#!/usr/bin/env bash
# A throwaway Ceph Object Gateway (RGW, Ceph's production S3 server) on loopback for the S3
# storage tests: one monitor, one OSD keeping objects in memory, one radosgw, all under DIR.
# Debian's radosgw (Ceph 16, "pacific") has no cluster-less backend, hence the small cluster.
#
#   ceph-rgw-test-server.sh start DIR MON_PORT RGW_PORT ACCESS_KEY SECRET_KEY
#   ceph-rgw-test-server.sh stop DIR
#
# `start` returns once the gateway answers S3 requests and the user with these keys exists; the
# S3 endpoint is http://127.0.0.1:RGW_PORT (path-style). `stop` ends the daemons and removes DIR.
# The packages come from scripts/install-system-deps.sh (ceph-mon, ceph-osd, radosgw).
set -euo pipefail

command_name=${1:-}
DIR=${2:?usage: $0 start|stop DIR ...}

stop() {
  # Daemons remove their pid files as they exit: read them all first.
  local pids=() pid
  for pidfile in "$DIR"/run/*.pid; do
    pid=$(cat "$pidfile" 2>/dev/null) && pids+=("$pid")
  done
  [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$DIR"
}

if [ "$command_name" = stop ]; then
  stop
  exit 0
fi
[ "$command_name" = start ] || { echo "usage: $0 start|stop DIR ..." >&2; exit 2; }
MON_PORT=${3:?MON_PORT} RGW_PORT=${4:?RGW_PORT} ACCESS_KEY=${5:?ACCESS_KEY} SECRET_KEY=${6:?SECRET_KEY}

for tool in ceph-mon ceph-osd radosgw radosgw-admin monmaptool; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: run scripts/install-system-deps.sh (as root)" >&2; exit 1; }
done

trap 'status=$?; if [ $status -ne 0 ]; then tail -n 20 "$DIR"/log/*.log >&2 2>/dev/null || true; stop; fi' EXIT
rm -rf "$DIR"
mkdir -p "$DIR"/{log,mon,osd,run}
FSID=$(cat /proc/sys/kernel/random/uuid)
# Cephx is off inside this private cluster (S3 requests are still signed and checked by RGW);
# without cephx, monitor connections must use the plain `crc` mode.
cat >"$DIR/ceph.conf" <<EOF
[global]
fsid = $FSID
mon host = v2:127.0.0.1:$MON_PORT
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind ipv6 = false
ms mon client mode = crc
ms client mode = crc
run dir = $DIR/run
pid file = $DIR/run/\$name.pid
admin socket = $DIR/run/\$name.asok
log file = $DIR/log/\$name.log
auth cluster required = none
auth service required = none
auth client required = none
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon max pg per osd = 1000
osd crush chooseleaf type = 0
[mon.a]
mon data = $DIR/mon
mon data avail crit = 0
mon cluster log file = $DIR/log/mon-cluster.log
[osd.0]
osd data = $DIR/osd
osd objectstore = memstore
osd class load list = *
osd class default list = *
[client.rgw.test]
rgw frontends = beast endpoint=127.0.0.1:$RGW_PORT
rgw data = $DIR/rgw
rgw enable apis = s3, admin
rgw thread pool size = 32
EOF
export CEPH_CONF="$DIR/ceph.conf"

monmaptool --create --fsid "$FSID" --addv a "[v2:127.0.0.1:$MON_PORT]" "$DIR/monmap" >/dev/null
ceph-mon --id a --mkfs --monmap "$DIR/monmap" --keyring /dev/null
touch "$DIR/mon/keyring"
ceph-mon --id a
ceph --connect-timeout 30 osd create >/dev/null
ceph osd crush add osd.0 1 root=default >/dev/null 2>&1
ceph-osd --id 0 --mkfs >/dev/null 2>&1
ceph-osd --id 0 2>/dev/null
# The gateway creates its pools on first start, then answers.
radosgw -n client.rgw.test
for _ in $(seq 1 240); do
  curl -s -o /dev/null "http://127.0.0.1:$RGW_PORT/" && break
  sleep 0.25
done
curl -s -o /dev/null "http://127.0.0.1:$RGW_PORT/" || { echo "radosgw did not answer on 127.0.0.1:$RGW_PORT" >&2; exit 1; }
radosgw-admin user create --uid=tests --display-name=tests --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY" >/dev/null
