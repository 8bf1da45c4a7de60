#!/bin/bash
# The rig's part inside both guests: run.sh shares it (read-only 9p, /rig) with the scenario's
# settings in /rig/scenario.env, the built jars in /rig/jars and the test data in /rig/data.
# Kernel command line: rig.role=server|client. Everything it reports goes to the serial console
# as "RIG <role> <uptime> ..." lines; run.sh waits for the markers (RIG-SERVER-READY,
# RIG-CLIENT-DONE, RIG-FATAL) and checks the results against its own copy of the data.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C
ROLE=unknown
for a in $(cat /proc/cmdline); do
  case "$a" in rig.role=*) ROLE=${a#*=} ;; esac
done
trap '' HUP
exec 3>&1   # the console: log lines go there even from inside $(...)

log() { echo "RIG $ROLE $(cut -d' ' -f1 /proc/uptime) $*" >&3; }
off() { sync; echo o > /proc/sysrq-trigger; sleep 60; }
# Soft-RoCE's own counters (packets, RNR NAKs sent and received, retries, duplicates), one line;
# run.sh prints the first and last of each guest when a scenario fails
rxe_counters() { log "RIG-RXE $(rdma statistic show link rxe0/1 2>&1 | tr -s ' ' | tr '\n' ' ')"; }
fatal() {
  log "RIG-FATAL $*"
  rxe_counters
  dmesg | tail -30 | sed "s/^/RIG $ROLE dmesg: /" >&3
  off
}
# A server guest runs until the host stops it: its counters every 10 s while they change, so the
# last line logged is at most 10 s older than a client's failure.
watch_rxe() {
  local last="" now
  while :; do
    now=$(rdma statistic show link rxe0/1 2>&1)
    [ "$now" = "$last" ] || rxe_counters
    last=$now
    sleep 10
  done
}
# step NAME CMD...: runs CMD, logs its wall time for run.sh's timing table, returns its status
step() {
  local name=$1 t0 rc
  shift
  t0=$(date +%s%N)
  "$@"
  rc=$?
  log "STEP $name $(( ($(date +%s%N) - t0) / 1000000 )) ms rc=$rc"
  return $rc
}

mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/pts /dev/shm /run/rpcbind /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery /mnt /export
mount -t devpts devpts /dev/pts
[ -r /rig/scenario.env ] || fatal "no /rig/scenario.env"
. /rig/scenario.env   # SCENARIO SERVER_KIND CLIENT_KIND MOUNT_OPTS CLIENT_SYSCTLS SERVER_IP CLIENT_IP FILES LINK_NAME
log "scenario $SCENARIO: server $SERVER_KIND, client $CLIENT_KIND, kernel $(uname -r)"

# ---------------- eth0 and Soft-RoCE ----------------
net_up() {
  local ip=$1 i
  modprobe virtio_net || return 1
  for i in $(seq 100); do [ -e /sys/class/net/eth0 ] && break; sleep 0.1; done
  [ -e /sys/class/net/eth0 ] || return 1
  ip link set lo up && ip addr add "$ip/24" dev eth0 && ip link set eth0 up || return 1
  modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0 || return 1
  modprobe rdma_ucm; modprobe rpcrdma || return 1
  for i in $(seq 100); do rdma link show rxe0/1 | grep -q 'state ACTIVE' && return 0; sleep 0.1; done
  return 1
}
if [ "$ROLE" = server ]; then MYIP=$SERVER_IP; hostname rigserver; else MYIP=$CLIENT_IP; hostname rigclient; fi
step net-rxe net_up "$MYIP" || fatal "eth0 or Soft-RoCE did not come up"
log "$(rdma link show rxe0/1)"
rxe_counters

# ---------------- servers ----------------
# One function per SERVER_KIND (run.sh's scenario table names them).
server_linux() {
  mount -t tmpfs -o size=1g tmpfs /export || fatal "tmpfs /export"
  echo "/export *(rw,no_root_squash,no_subtree_check,insecure,fsid=1)" > /etc/exports
  rpcbind -w || fatal rpcbind
  mount -t nfsd nfsd /proc/fs/nfsd || fatal "mount nfsd"
  exportfs -ra || fatal exportfs
  rpc.mountd || fatal rpc.mountd
  rpc.nfsd 8 || fatal rpc.nfsd
  echo 'rdma 20049' > /proc/fs/nfsd/portlist || fatal "rdma 20049 in /proc/fs/nfsd/portlist"
  log "portlist: $(tr '\n' ' ' < /proc/fs/nfsd/portlist)"
}

# testbed serve --fabric verbs: NFSv3 over RDMA on port 20049, MOUNT over TCP and rpcbind on 111
# (its own, in the JVM); its output goes to the console with a prefix, so run.sh's logs keep it.
server_testbed() {
  mount -t tmpfs -o size=1g tmpfs /export || fatal "tmpfs /export"
  /opt/jdk/bin/java --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 \
    -cp /rig/jars/testbed.jar:/rig/jars/verbs.jar org.rpcrdma4j.testbed.Main -v \
    serve --fabric verbs --listen "$SERVER_IP" --export /export 2>&1 | sed -u "s/^/RIG $ROLE serve: /" >&3 &
  local i
  for i in $(seq 240); do
    rpcinfo -T tcp "$SERVER_IP" 100005 3 >/dev/null 2>&1 && return 0
    sleep 1
  done
  fatal "testbed serve did not register MOUNT with rpcbind within 240 s"
}

# The project's Java code runs from the share with the guest's jlinked Temurin 25. Checked in
# every server guest while the client boots, so a broken JVM or jar fails the run early.
java_check() {
  local out
  out=$(timeout 120 /opt/jdk/bin/java -XX:TieredStopAtLevel=1 -jar /rig/jars/testbed.jar --version 2>&1)
  local rc=$?
  log "java: $(echo "$out" | head -1) (rc=$rc)"
  [ $rc = 0 ] && log "RIG-JAVA-OK" || log "RIG-JAVA-FAILED"
}

# ---------------- clients ----------------
# One function per CLIENT_KIND. The workload is issue 12's: files written and read back (their
# SHA-256 printed for run.sh to compare), a 2,000-entry directory listed, a 4,000-byte symlink
# target read back, (Linux's client only) a hard link, everything removed, unmount.
wait_server() {
  local t
  for t in $(seq 600); do
    rpcinfo -T tcp "$SERVER_IP" 100005 3 >/dev/null 2>&1 && return 0
    sleep 1
  done
  return 1
}

client_linux() {
  local s opts ok=0 i
  for s in ${CLIENT_SYSCTLS//,/ }; do sysctl -w "$s" || fatal "sysctl $s"; done
  opts="vers=3,proto=rdma,port=20049,nolock${MOUNT_OPTS:+,$MOUNT_OPTS}"
  # both guests boot at once: wait until the server's NFS service answers (over TCP, the
  # RDMA listener follows within moments, and mount retries cover that)
  step wait-server wait_server || fatal "the server's NFS service did not answer within 600 s"
  log "mount -o $opts $SERVER_IP:/export /mnt"
  for i in 1 2 3 4 5; do
    if step mount timeout 120 mount -t nfs -o "$opts" "$SERVER_IP:/export" /mnt; then ok=1; break; fi
    sleep 2
  done
  [ $ok = 1 ] || fatal "mount failed"
  log "mounted: $(grep ' /mnt ' /proc/mounts)"
  workload_files
  workload_dir
  workload_symlink
  workload_hardlink
  step remove timeout 600 rm -rf /mnt/rig-files /mnt/rig-dir "/mnt/$LINK_NAME" || fatal "remove"
  log "RIG-LEFT $(ls -A /mnt | wc -l)"
  sed -n '/ \/mnt /,/^device/p' /proc/self/mountstats | grep -E 'opts|xprt' | sed "s/^/RIG $ROLE mountstats: /"
  step umount timeout 120 umount /mnt || fatal "umount"
  log "RIG-UMOUNTED"
}

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# The testbed's NFSv3 client over the verbs RC fabric: 'testbed demo --fabric verbs' with the rig's
# files and link target does the same workload (files written and read back, the 2,000-entry
# directory, the 4,000-byte link target, everything removed, UMNT); its report becomes the lines
# run.sh checks. MOUNT goes over TCP via the server's rpcbind, as mount.nfs does.
testbed_demo() { # OUT: runs the demo, its output to OUT and, as it comes, to the console
  timeout 1100 /opt/jdk/bin/java --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 \
    -cp /rig/jars/testbed.jar:/rig/jars/verbs.jar org.rpcrdma4j.testbed.Main \
    demo --fabric verbs --server "$SERVER_IP" --export /export \
    --files $(for f in $FILES; do echo "/tmp/src/$f"; done) --link-target /rig/data/symlink-target \
    2>&1 | tee "$1" | sed -u "s/^/RIG $ROLE demo: /" >&3
  return "${PIPESTATUS[0]}"
}

client_testbed() {
  local f out=/tmp/demo.out rc
  step wait-server wait_server || fatal "the server's NFS service did not answer within 600 s"
  mkdir -p /tmp/src || fatal "mkdir /tmp/src"
  # the files in guest memory first, as client_linux does, so the timings are NFS, not 9p
  step stage-data cp $(for f in $FILES; do echo "/rig/data/$f"; done) /tmp/src/ || fatal "copy from /rig/data"
  for f in $FILES; do log "RIG-SRC $f $(sha256sum < "/tmp/src/$f" | cut -d' ' -f1)"; done
  log "testbed demo --fabric verbs --server $SERVER_IP --export /export"
  step demo testbed_demo "$out"
  rc=$?
  # its report, line by line, as the RIG- lines client_linux prints
  sed -n 's/^  \(file-[^ ]*\) .* sha256 \([0-9a-f]\{64\}\) .*/\1 \2/p' "$out" | while read -r f sum; do
    log "RIG-SUM $f $sum"
  done
  log "RIG-DIR $(sed -n 's/^bigdir: .* listed \([0-9]*\) .*names sha256 \([0-9a-f]*\).*/\1 \2/p' "$out")"
  log "RIG-LINK $(sed -n 's/^link: .* \([0-9]*\) bytes read back, sha256 \([0-9a-f]*\).*/\1 \2/p' "$out")"
  log "RIG-LEFT $(sed -n "s/^removed: .*the export's root holds \([0-9]*\) entries.*/\1/p" "$out")"
  grep -q '^unmounted /export' "$out" && log "RIG-UMOUNTED"
  [ $rc = 0 ] || fatal "testbed demo failed (rc=$rc)"
}

workload_files() {
  local f sum
  mkdir -p /tmp/src /mnt/rig-files || fatal "mkdir /mnt/rig-files"
  # copy the host's files into guest memory first, so the write steps time NFS, not 9p
  step stage-data cp $(for f in $FILES; do echo "/rig/data/$f"; done) /tmp/src/ || fatal "copy from /rig/data"
  for f in $FILES; do
    log "RIG-SRC $f $(sha256sum < "/tmp/src/$f" | cut -d' ' -f1)"
    step "write-$f" timeout 900 dd if="/tmp/src/$f" of="/mnt/rig-files/$f" bs=1M conv=fsync status=none \
      || fatal "write $f"
  done
  rm -rf /tmp/src
  drop_caches   # the reads below must come from the server, not the page cache
  for f in $FILES; do
    sum=$(step "read-$f" timeout 900 sha256sum < "/mnt/rig-files/$f") || fatal "read $f"
    log "RIG-SUM $f ${sum%% *}"
  done
}

create_entries() {
  local i
  for i in $(seq -w 0 1999); do : > "/mnt/rig-dir/entry_with_a_longish_name_$i" || return 1; done
}

workload_dir() {
  mkdir /mnt/rig-dir || fatal "mkdir /mnt/rig-dir"
  step create-2000 create_entries || fatal "create the directory entries"
  drop_caches
  local listing
  listing=$(step list-2000 timeout 300 ls -1 /mnt/rig-dir) || fatal "list the directory"
  log "RIG-DIR $(printf '%s\n' "$listing" | wc -l) $(printf '%s\n' "$listing" | sort | sha256sum | cut -d' ' -f1)"
}

workload_symlink() {
  step symlink ln -s "$(cat /rig/data/symlink-target)" "/mnt/$LINK_NAME" || fatal "symlink"
  drop_caches   # the client keeps a new link's target cached: drop it so READLINK goes out
  local target
  target=$(step readlink timeout 60 readlink -n "/mnt/$LINK_NAME") || fatal "readlink"
  log "RIG-LINK ${#target} $(printf '%s' "$target" | sha256sum | cut -d' ' -f1)"
}

# A hard link (LINK) in rig-files, which the remove step takes away: both names must read back what was
# written, and the server must count two links (after dropping the cache, so the count is its own)
workload_hardlink() {
  local text="rpcrdma4j interop hard link" nlink ok=bad
  printf '%s' "$text" > /mnt/rig-files/hardlink-1 || fatal "write /mnt/rig-files/hardlink-1"
  step hardlink ln /mnt/rig-files/hardlink-1 /mnt/rig-files/hardlink-2 || fatal "hardlink"
  drop_caches
  nlink=$(stat -c %h /mnt/rig-files/hardlink-2) || fatal "stat /mnt/rig-files/hardlink-2"
  [ "$nlink" = 2 ] && [ "$(cat /mnt/rig-files/hardlink-1)" = "$text" ] \
    && [ "$(cat /mnt/rig-files/hardlink-2)" = "$text" ] && ok=ok
  log "RIG-HARDLINK $nlink $ok"
}

case "$ROLE:$SERVER_KIND:$CLIENT_KIND" in
  server:linux:*)
    server_linux
    log "RIG-SERVER-READY"
    java_check
    watch_rxe ;;
  server:testbed:*)
    server_testbed
    log "RIG-SERVER-READY"
    log "RIG-JAVA-OK"   # the server is the project's Java code
    watch_rxe ;;
  client:*:linux)
    client_linux
    rxe_counters
    log "RIG-CLIENT-DONE"
    off ;;
  client:*:testbed)
    client_testbed
    rxe_counters
    log "RIG-CLIENT-DONE"
    off ;;
  *) fatal "no $ROLE for this scenario (server $SERVER_KIND, client $CLIENT_KIND)" ;;
esac
