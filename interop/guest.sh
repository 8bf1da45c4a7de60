#!/bin/bash
# The rig's part inside both guests: run.sh shares it (read-only 9p, /rig) with the scenario's
# settings in /rig/scenario.env, the built jars in /rig/jars and the test data in /rig/data.
# Kernel command line: rig.role=server|client|witness (a witness only in the fault scenarios).
# Everything it reports goes to the serial console as "RIG <role> <uptime> ..." lines; run.sh waits
# for the markers (RIG-SERVER-READY, RIG-CLIENT-DONE, RIG-FATAL) and checks the results against its
# own copy of the data.
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
                     # and, in the fault scenarios, FAULT WITNESS_IP
log "scenario $SCENARIO: server $SERVER_KIND, client $CLIENT_KIND${FAULT:+, fault $FAULT}, kernel $(uname -r)"

# ---------------- the fault scenarios' clock ----------------
now_ms() { date +%s%3N; }
# The fault scenarios compare times across three guests and the host (a witness's gap against the
# moment a fault began), so each guest sets its clock from the RTC, which QEMU keeps on the host's
# clock: the kernel set it at boot to the second only (plus half a second), so wait for the RTC's
# next second and set the clock to it then. bash's read forks nothing, so the clock lands within a
# few milliseconds of the host's.
rtc_edge() { # prints the RTC's seconds at the moment they change (within about 1 s)
  local rtc=/sys/class/rtc/rtc0/since_epoch s0 s t0=$SECONDS
  read -r s0 < $rtc || return 1
  while [ $((SECONDS - t0)) -lt 5 ]; do
    read -r s < $rtc || return 1
    [ "$s" != "$s0" ] && { echo "$s"; return 0; }
  done
  return 1
}
sync_clock() {
  local s
  s=$(rtc_edge) && date -s "@$s" > /dev/null && log "clock set from the RTC: $(date -u +%H:%M:%S.%3N)"
}
# how far the clock drifted from the RTC (the host's clock) since sync_clock, in ms: RIG-CLOCK
clock_drift() {
  local s ms
  s=$(rtc_edge) && ms=$(now_ms) && log "RIG-CLOCK drift_ms=$((ms - s * 1000))"
}
[ -n "${FAULT:-}" ] && sync_clock

# ---------------- eth0 and Soft-RoCE ----------------
net_up() {
  local ip=$1 dev=eth0 i
  modprobe virtio_net || return 1
  for i in $(seq 100); do [ -e /sys/class/net/eth0 ] && break; sleep 0.1; done
  [ -e /sys/class/net/eth0 ] || return 1
  if [ "$ROLE" = server ] && [ -n "${FAULT:-}" ]; then
    # The fault scenarios' server has a NIC per client (eth0 to the faulted client, eth1 to the
    # witness), bridged, with its address and its one Soft-RoCE device on the bridge: the RC fabric
    # serves one device, and both clients' connections must share it (one progress thread, one
    # completion queue) for the witness to show whether a dying connection stalls the others.
    # Isolated ports: the two clients reach the server only, not each other.
    for i in $(seq 100); do [ -e /sys/class/net/eth1 ] && break; sleep 0.1; done
    ip link add br0 type bridge && ip link set eth0 master br0 && ip link set eth1 master br0 \
      && bridge link set dev eth0 isolated on && bridge link set dev eth1 isolated on \
      && ip link set eth0 up && ip link set eth1 up || return 1
    dev=br0
  fi
  ip link set lo up && ip addr add "$ip/24" dev $dev && ip link set $dev up || return 1
  modprobe rdma_rxe && rdma link add rxe0 type rxe netdev $dev || return 1
  modprobe rdma_ucm; modprobe rpcrdma || return 1
  for i in $(seq 100); do rdma link show rxe0/1 | grep -q 'state ACTIVE' && return 0; sleep 0.1; done
  return 1
}
case "$ROLE" in
  server) MYIP=$SERVER_IP; hostname rigserver ;;
  witness) MYIP=$WITNESS_IP; hostname rigwitness ;;
  *) MYIP=$CLIENT_IP; hostname rigclient ;;
esac
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
  local logging=()
  mount -t tmpfs -o size=1g tmpfs /export || fatal "tmpfs /export"
  [ -n "${FAULT:-}" ] && logging=(-Dlogback.configurationFile="$(fault_logging)")
  /opt/jdk/bin/java --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 "${logging[@]}" \
    -cp /rig/jars/testbed.jar:/rig/jars/fabric-rc.jar:/rig/jars/verbs.jar org.rpcrdma4j.testbed.Main -v \
    serve --fabric verbs --listen "$SERVER_IP" --export /export 2>&1 | sed -u "s/^/RIG $ROLE serve: /" >&3 &
  local i
  for i in $(seq 240); do
    rpcinfo -T tcp "$SERVER_IP" 100005 3 >/dev/null 2>&1 && return 0
    sleep 1
  done
  fatal "testbed serve did not register MOUNT with rpcbind within 240 s"
}

# testbed serve --fabric efa-verbs: NFSv3 over the EFA RDM protocol on the verbs device (RDMA-CM port
# 20050), MOUNT over TCP and rpcbind on 111; its address, connid included, is logged for run.sh to
# pass on to the client (RIG-SERVER-ADDRESS). Then the far side of the client's 'bench efa --device
# verbs', waiting on TCP port $BENCH_CONTROL_PORT: an EFA endpoint on a verbs device of its own (any free
# RDMA-CM port), and ibv_rc_pingpong's server half when the bench asks for it.
EFA_CP=/rig/jars/testbed.jar:/rig/jars/fabric-efa-verbs.jar:/rig/jars/efa-verbs.jar:/rig/jars/verbs.jar
BENCH_CONTROL_PORT=20051
server_efa() {
  local i address
  mount -t tmpfs -o size=1g tmpfs /export || fatal "tmpfs /export"
  /opt/jdk/bin/java --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 -cp "$EFA_CP" \
    org.rpcrdma4j.testbed.Main -v serve --fabric efa-verbs --listen "$SERVER_IP" --export /export 2>&1 \
    | tee /tmp/serve.out | sed -u "s/^/RIG $ROLE serve: /" >&3 &
  for i in $(seq 240); do
    address=$(sed -n 's/^serving .* on the efa-verbs fabric at \([^ ,]*\).*/\1/p' /tmp/serve.out 2>/dev/null)
    if [ -n "$address" ] && rpcinfo -T tcp "$SERVER_IP" 100005 3 >/dev/null 2>&1; then
      log "RIG-SERVER-ADDRESS $address"
      /opt/jdk/bin/java --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 -cp "$EFA_CP" \
        org.rpcrdma4j.testbed.Main bench efa-peer --device verbs --listen "$SERVER_IP:0" \
        --control "$BENCH_CONTROL_PORT" 2>&1 | sed -u "s/^/RIG $ROLE bench-peer: /" >&3 &
      return 0
    fi
    sleep 1
  done
  fatal "testbed serve --fabric efa-verbs did not serve and register MOUNT with rpcbind within 240 s"
}

# In the fault scenarios the server also logs each connection's end and why (RcConnection: "ending,
# STATUS: detail"), its acceptance and its close (Responder), with the time to the millisecond: the
# testbed's own logging, with those two classes at debug, which -v (info) leaves as they are.
fault_logging() { # prints the path of the logback configuration it writes
  cat > /tmp/logback-fault.xml <<'EOF'
<configuration>
  <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.err</target>
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
  </appender>
  <logger name="org.rpcrdma4j.fabric.rc.RcConnection" level="DEBUG"/>
  <logger name="org.rpcrdma4j.transport.conn.Responder" level="DEBUG"/>
  <root level="WARN"><appender-ref ref="STDERR"/></root>
</configuration>
EOF
  echo /tmp/logback-fault.xml
}

# The fault scenarios' server: its RDMA connections as the kernel lists them, every 2 s, logged when
# they change: "RIG-QP EPOCH_MS client=N witness=N other=N listen=N qps=N RC:STATE=N...", where
# client and witness count the CM ids connected to that guest's address, and qps the RC queue pairs
# (with their states). run.sh waits for client=0 witness=1 qps=1: the dead or departed client's
# connections freed, the witness's alone. When a fault scenario goes wrong run.sh writes
# /rig/dump-threads, and the JVM's threads are printed once (RIG-THREADS lines).
watch_connections() {
  local last="" now ids qps dumped=0
  while :; do
    ids=$(rdma resource show cm_id 2>/dev/null)
    qps=$(rdma resource show qp 2>/dev/null | grep ' type RC ')
    now="client=$(grep -c "dst-addr $CLIENT_IP:" <<< "$ids") witness=$(grep -c "dst-addr $WITNESS_IP:" <<< "$ids")"
    now="$now other=$(grep dst-addr <<< "$ids" | grep -v -c -e "dst-addr $CLIENT_IP:" -e "dst-addr $WITNESS_IP:" -e 'state LISTEN')"
    now="$now listen=$(grep -c 'state LISTEN' <<< "$ids") qps=$(grep -c . <<< "$qps")"
    now="$now $(sed -n 's/.* state \([A-Z_]*\) .*/RC:\1/p' <<< "$qps" | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }')"
    if [ "$now" != "$last" ]; then
      log "RIG-QP $(now_ms) $now"
      grep -v 'state LISTEN' <<< "$ids" | grep . | sed "s/^/RIG $ROLE cm_id: /" >&3
    fi
    last=$now
    if [ $dumped = 0 ] && [ -e /rig/dump-threads ]; then
      dumped=1
      timeout 120 /opt/jdk/bin/jcmd "$(pgrep -f org.rpcrdma4j.testbed.Main | head -1)" Thread.print 2>&1 \
        | sed "s/^/RIG $ROLE threads: /" >&3
      log "RIG-THREADS-DONE"
    fi
    sleep 2
  done
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

# the Linux client's mount (the witness's too)
mount_export() {
  local opts ok=0 i
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
}

client_linux() {
  local s
  for s in ${CLIENT_SYSCTLS//,/ }; do sysctl -w "$s" || fatal "sysctl $s"; done
  # a faulted client starts once the witness works (run.sh writes /rig/go when it has seen that)
  if [ -n "${FAULT:-}" ]; then step wait-witness wait_file /rig/go 900 || fatal "no /rig/go within 900 s"; fi
  mount_export
  workload_files
  [ "${FAULT:-}" = lossy ] && { wait; log "RIG-FAULT-JOB-DONE"; }   # the link's faults are over
  workload_dir
  workload_symlink
  workload_hardlink
  step remove timeout 600 rm -rf /mnt/rig-files /mnt/rig-dir "/mnt/$LINK_NAME" || fatal "remove"
  # the witness's directory, if any, is not this client's
  log "RIG-LEFT $(ls -A /mnt | grep -v -c -x rig-witness)"
  sed -n '/ \/mnt /,/^device/p' /proc/self/mountstats | grep -E 'opts|xprt' | sed "s/^/RIG $ROLE mountstats: /"
  # "xprt: rdma 0 BIND CONNECT ...": how often the transport connected (once unless it reconnected)
  log "RIG-XPRT connects=$(sed -n '/ \/mnt /,/^device/p' /proc/self/mountstats | awk '$1 == "xprt:" { print $5; exit }')"
  step umount timeout 120 umount /mnt || fatal "umount"
  log "RIG-UMOUNTED"
}

wait_file() { # FILE SECONDS: 0 once FILE exists (the 9p share shows files the host adds at once)
  local i
  for i in $(seq "$2"); do [ -e "$1" ] && return 0; sleep 1; done
  return 1
}

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# The testbed's NFSv3 client over the verbs RC fabric: 'testbed demo --fabric verbs' with the rig's
# files and link target does the same workload (files written and read back, the 2,000-entry
# directory, the 4,000-byte link target, everything removed, UMNT); its report becomes the lines
# run.sh checks. MOUNT goes over TCP via the server's rpcbind, as mount.nfs does.
testbed_demo() { # OUT CLASSPATH FABRIC-OPTION...: runs the demo, its output to OUT and, as it comes, to the console
  local out=$1 cp=$2
  shift 2
  timeout 1100 /opt/jdk/bin/java --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 \
    -cp "$cp" org.rpcrdma4j.testbed.Main demo "$@" --export /export \
    --files $(for f in $FILES; do echo "/tmp/src/$f"; done) --link-target /rig/data/symlink-target \
    2>&1 | tee "$out" | sed -u "s/^/RIG $ROLE demo: /" >&3
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
  step demo testbed_demo "$out" /rig/jars/testbed.jar:/rig/jars/fabric-rc.jar:/rig/jars/verbs.jar \
    --fabric verbs --server "$SERVER_IP"
  rc=$?
  demo_report "$out"
  [ $rc = 0 ] || fatal "testbed demo failed (rc=$rc)"
}

# demo_report OUT: the demo's report, line by line, as the RIG- lines client_linux prints
demo_report() {
  local f sum
  sed -n 's/^  \(file-[^ ]*\) .* sha256 \([0-9a-f]\{64\}\) .*/\1 \2/p' "$1" | while read -r f sum; do
    log "RIG-SUM $f $sum"
  done
  log "RIG-DIR $(sed -n 's/^bigdir: .* listed \([0-9]*\) .*names sha256 \([0-9a-f]*\).*/\1 \2/p' "$1")"
  log "RIG-LINK $(sed -n 's/^link: .* \([0-9]*\) bytes read back, sha256 \([0-9a-f]*\).*/\1 \2/p' "$1")"
  log "RIG-LEFT $(sed -n "s/^removed: .*the export's root holds \([0-9]*\) entries.*/\1/p" "$1")"
  grep -q '^unmounted /export' "$1" && log "RIG-UMOUNTED"
}

# The testbed's NFSv3 client on the EFA RDM protocol over the verbs device: the demo as client_testbed
# runs it, given the server's address as the server printed it (run.sh passes it on in the share).
client_efa() {
  local f out=/tmp/demo.out rc server
  step wait-server wait_server || fatal "the server's NFS service did not answer within 600 s"
  step wait-address wait_file /rig/server-address 300 || fatal "no /rig/server-address within 300 s"
  server=$(cat /rig/server-address)
  mkdir -p /tmp/src || fatal "mkdir /tmp/src"
  step stage-data cp $(for f in $FILES; do echo "/rig/data/$f"; done) /tmp/src/ || fatal "copy from /rig/data"
  for f in $FILES; do log "RIG-SRC $f $(sha256sum < "/tmp/src/$f" | cut -d' ' -f1)"; done
  log "testbed demo --fabric efa-verbs --listen $CLIENT_IP --server $server --export /export"
  step demo testbed_demo "$out" "$EFA_CP" --fabric efa-verbs --listen "$CLIENT_IP" --server "$server"
  rc=$?
  demo_report "$out"
  [ $rc = 0 ] || fatal "testbed demo failed (rc=$rc)"
  step bench-efa bench_efa || fatal "testbed bench efa --device verbs failed"
}

# A short 'bench efa --device verbs' against the server guest's bench peer: EFA endpoints on verbs devices
# between the two guests, beside ibv_rc_pingpong between them at each size; its table goes to the console
# as "RIG client bench: ..." lines, which run.sh prints. TCG guests make its absolute figures meaningless:
# the ratios are what it is for. Its peer may still be starting (it follows the server's serve): tried
# again while nothing answers on the control port.
bench_efa() {
  local i rc
  for i in $(seq 60); do
    timeout 900 /opt/jdk/bin/java --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 -cp "$EFA_CP" \
      org.rpcrdma4j.testbed.Main bench efa --device verbs --listen "$CLIENT_IP:0" \
      --peer "$SERVER_IP:$BENCH_CONTROL_PORT" --iterations 100 --stream-bytes 8388608 > /tmp/bench.out 2>&1
    rc=$?
    grep -q 'no bench peer answers' /tmp/bench.out || break
    sleep 2
  done
  sed "s/^/RIG $ROLE bench: /" /tmp/bench.out >&3
  return $rc
}

workload_files() {
  local f sum
  mkdir -p /tmp/src /mnt/rig-files || fatal "mkdir /mnt/rig-files"
  # copy the host's files into guest memory first, so the write steps time NFS, not 9p
  step stage-data cp $(for f in $FILES; do echo "/rig/data/$f"; done) /tmp/src/ || fatal "copy from /rig/data"
  for f in $FILES; do
    log "RIG-SRC $f $(sha256sum < "/tmp/src/$f" | cut -d' ' -f1)"
    case "${FAULT:-}:$f" in
      lossy:file-16MiB) lossy_link & ;;   # the faults start with the large writes
      poweroff:file-64MiB) announce_writing "$f" ;;
    esac
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

# ---------------- the fault scenarios (linux-to-testbed-lossy, linux-to-testbed-poweroff) ----------------
# lossy: this guest's link (its egress: calls, ACKs, RDMA Read responses and CM messages to the
# server) loses 20% of its packets for 20 s, which RC's retransmissions ride out, then every packet
# for 25 s, longer than a queue pair's retries last (7 tries of an ACK timeout of 2.1 s, the REQ's
# "Local ACK Timeout" 19 and "Retry Count" 6 on the capture: about 15 s), so the connection breaks;
# then the link is whole again and the client must reconnect. Started with the 16 MiB file's write,
# so calls are in flight throughout.
lossy_link() {
  modprobe sch_netem || fatal "modprobe sch_netem"
  log "RIG-FAULT loss-20% $(now_ms)"
  tc qdisc add dev eth0 root netem loss 20% || fatal "tc qdisc add dev eth0 root netem loss 20%"
  sleep 20
  log "RIG-FAULT loss-100% $(now_ms)"
  tc qdisc change dev eth0 root netem loss 100% || fatal "tc qdisc change dev eth0 root netem loss 100%"
  sleep 25
  tc qdisc del dev eth0 root || fatal "tc qdisc del dev eth0 root"
  log "RIG-FAULT end $(now_ms)"
}

# poweroff: once 8 MiB of the 64 MiB file have left on eth0 (the page cache takes the file at once;
# its WRITEs go out at dd's fsync, the server pulling their data with RDMA Reads, all of them at
# once, so no WRITE is answered until nearly the end), RIG-WRITING, upon which run.sh kills this
# guest's QEMU (a power-off) while the server's RDMA Reads and replies are under way
announce_writing() {
  local before
  read -r before < /sys/class/net/eth0/statistics/tx_bytes
  ( while read -r now < /sys/class/net/eth0/statistics/tx_bytes && [ $((now - before)) -lt $((8 << 20)) ]; do
      sleep 0.2
    done
    log "RIG-WRITING $(now_ms)" ) &
}

# The witness: a second Linux kernel client, on the server's other NIC, doing small things in a loop
# from before the fault until run.sh writes /rig/stop-witness (or for 1500 s at most): a 64 KiB file
# written with fsync, read back after dropping the caches and checked, removed, and its directory's
# stat. Each operation's completion is logged, "RIG-WOP N NAME EPOCH_MS ok|FAILED", and at the end
# "RIG-WITNESS ops=N failures=F max_gap_ms=G max_gap_end_ms=T": G the longest time between two
# completions, ending at T. A server that stalls the other connections while one dies shows there.
client_witness() {
  local src=/tmp/witness-64KiB want n=0 fail=0 last=0 gap=0 gap_end=0
  mount_export
  mkdir -p /mnt/rig-witness || fatal "mkdir /mnt/rig-witness"
  cp /rig/data/file-64KiB $src || fatal "copy from /rig/data"
  want=$(sha256sum < $src | cut -d' ' -f1)
  while [ ! -e /rig/stop-witness ] && [ $SECONDS -lt 1500 ]; do
    witness_op write timeout -s KILL 300 dd if=$src of=/mnt/rig-witness/file bs=64k conv=fsync status=none
    drop_caches
    witness_op read witness_read
    witness_op remove timeout -s KILL 300 rm /mnt/rig-witness/file
    witness_op stat timeout -s KILL 300 stat /mnt/rig-witness > /dev/null
    [ $n = 4 ] && log "RIG-WITNESS-UP"
  done
  log "RIG-WITNESS ops=$n failures=$fail max_gap_ms=$gap max_gap_end_ms=$gap_end"
  clock_drift
  step witness-remove timeout 300 rm -rf /mnt/rig-witness || fatal "remove /mnt/rig-witness"
  step umount timeout 120 umount /mnt || fatal "umount"
  log "RIG-WITNESS-DONE"
}
witness_read() {
  local sum
  sum=$(timeout -s KILL 300 sha256sum /mnt/rig-witness/file) && [ "${sum%% *}" = "$want" ]
}
witness_op() { # NAME CMD...: runs CMD, logs its completion, counts it in client_witness's figures
  local name=$1 rc t
  shift
  "$@"
  rc=$?
  t=$(now_ms)
  n=$((n + 1))
  [ $rc = 0 ] || fail=$((fail + 1))
  if [ $last -gt 0 ] && [ $((t - last)) -gt $gap ]; then gap=$((t - last)); gap_end=$t; fi
  last=$t
  log "RIG-WOP $n $name $t $([ $rc = 0 ] && echo ok || echo "FAILED rc=$rc")"
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
    [ -n "${FAULT:-}" ] && watch_connections &
    log "RIG-SERVER-READY"
    log "RIG-JAVA-OK"   # the server is the project's Java code
    watch_rxe ;;
  client:*:linux)
    client_linux
    rxe_counters
    [ -n "${FAULT:-}" ] && clock_drift
    log "RIG-CLIENT-DONE"
    off ;;
  witness:*:*)
    client_witness
    rxe_counters
    off ;;
  server:efa:*)
    server_efa
    log "RIG-SERVER-READY"
    log "RIG-JAVA-OK"   # the server is the project's Java code
    watch_rxe ;;
  client:*:efa)
    client_efa
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
