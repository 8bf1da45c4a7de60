#!/usr/bin/env bash
# The interop rig (issue 12, section 4): NFS over RPC-over-RDMA between two QEMU guests with
# Soft-RoCE, each scenario checked byte for byte and its capture replayed by `testbed replay`.
#
#   sudo interop/run.sh                 # the default scenarios (see DEFAULT_SCENARIOS)
#   sudo interop/run.sh all             # every scenario
#   sudo interop/run.sh NAME...         # the named scenarios
#   interop/run.sh --list               # the scenario table
#
# It installs what it lacks (Debian packages), builds the guest image once and caches it, boots a
# server and a client guest per scenario (TCG, no network but a private link between the two),
# captures their link, checks the results, replays the capture, and cleans up. Exit status:
# 0 every scenario passed, 1 a scenario failed, 2 the rig cannot run here (the reason is printed),
# 3 a named scenario is unknown. See interop/README.md.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
RIG_CACHE=${RIG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rpcrdma4j-interop}
RESULTS=${RIG_RESULTS:-$HERE/results}
JDK25=${JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}
TESTBED_JAR=${TESTBED_JAR:-$REPO/testbed/target/testbed.jar}
# the verbs module (JDK 22+), for 'testbed serve --fabric verbs' in the guests
VERBS_JAR=${VERBS_JAR:-$REPO/verbs/target/verbs-0.1.0-SNAPSHOT.jar}
# TCG: this machine's /dev/kvm (where there is one) cannot boot the stock Debian kernel.
ACCEL=${RIG_ACCEL:-tcg,thread=multi}
GUEST_MEM=${RIG_GUEST_MEM:-2048}
SERVER_READY_TIMEOUT=${RIG_SERVER_READY_TIMEOUT:-300}
CLIENT_TIMEOUT=${RIG_CLIENT_TIMEOUT:-1200}
JAVA_CHECK_TIMEOUT=${RIG_JAVA_CHECK_TIMEOUT:-180}
REPLAY_TIMEOUT=${RIG_REPLAY_TIMEOUT:-900}

# ---------------- scenarios ----------------
# name                  client   server   extra mount options       client sysctls
SCENARIO_TABLE="
linux-to-linux          linux    linux    -                         -
linux-to-linux-64k      linux    linux    rsize=65536,wsize=65536   -
linux-to-linux-inline1k linux    linux    -                         sunrpc.rdma_max_inline_read=1024,sunrpc.rdma_max_inline_write=1024
linux-to-testbed        linux    testbed  -                         -
linux-to-testbed-64k    linux    testbed  rsize=65536,wsize=65536   -
linux-to-testbed-inline1k linux  testbed  -                         sunrpc.rdma_max_inline_read=1024,sunrpc.rdma_max_inline_write=1024
testbed-to-linux        testbed  linux    -                         -
testbed-to-testbed      testbed  testbed  -                         -
"
DEFAULT_SCENARIOS="linux-to-testbed testbed-to-linux testbed-to-testbed"

# ---------------- the guest image ----------------
SUITE=bookworm
GUEST_PKGS="linux-image-amd64,kmod,mount,procps,util-linux,iproute2,rdma-core,ibverbs-providers,libibverbs1,librdmacm1,ibverbs-utils,nfs-kernel-server,nfs-common,rpcbind"
# modules of the guest's jlinked Temurin 25 (what testbed.jar needs, per jdeps, and FFM in java.base)
JMODS="java.base,java.compiler,java.desktop,java.logging,java.management,java.naming,java.security.jgss,jdk.security.auth,jdk.unsupported,jdk.zipfs,jdk.jfr,jdk.jcmd,jdk.management,jdk.net"
# the workload's files (sizes in bytes; their content is generated, deterministic)
FILE_SIZES="1024 4096 65536 1048576 16777216 67108864"
LINK_NAME=rig-link-4000
SERVER_IP=10.99.0.1
CLIENT_IP=10.99.0.2

say() { printf '%s rig: %s\n' "$(date -u +%H:%M:%S)" "$*"; }
cannot_run() { say "CANNOT RUN: $*" >&2; exit 2; }

# ---------------- step timing ----------------
TIMINGS=()
seconds() { awk -v ms="$1" 'BEGIN { printf "%.1f", ms / 1000 }'; }
# timed NAME CMD...: runs CMD, prints and records its wall time
timed() {
  local name=$1 t0 rc=0
  shift
  say "-> $name"
  t0=$(date +%s%N)
  "$@" || rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  TIMINGS+=("$(printf '%-44s %6s s%s' "$name" "$(seconds "$ms")" "$([ $rc = 0 ] || echo "  (failed, rc=$rc)")")")
  say "<- $name: $(seconds "$ms") s"
  return $rc
}

# ---------------- clean-up on every exit path ----------------
QEMU_PIDS=()
CLEAN_PATHS=()
BUILD_PROC=""
cleanup() {
  local p i
  for p in "${QEMU_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${QEMU_PIDS[@]}"; do
    for i in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  QEMU_PIDS=()
  [ -n "$BUILD_PROC" ] && { umount "$BUILD_PROC" 2>/dev/null || true; }
  for p in "${CLEAN_PATHS[@]}"; do rm -rf "$p"; done
  CLEAN_PATHS=()
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM

# ---------------- host ----------------
# command -> Debian package that provides it
declare -A HOST_TOOLS=(
  [qemu-system-x86_64]=qemu-system-x86 [mmdebstrap]=mmdebstrap [cpio]=cpio [tshark]=tshark
  [capinfos]=tshark [openssl]=openssl [mvn]=maven [eatmydata]=eatmydata
)
host_packages() {
  local missing=() c
  for c in "${!HOST_TOOLS[@]}"; do command -v "$c" >/dev/null || missing+=("${HOST_TOOLS[$c]}"); done
  [ ${#missing[@]} = 0 ] && return 0
  missing=($(printf '%s\n' "${missing[@]}" | sort -u))
  [ "$(id -u)" = 0 ] || cannot_run "missing ${missing[*]} and not root to install them"
  command -v apt-get >/dev/null || cannot_run "missing ${missing[*]} and no apt-get (the rig needs a Debian 12 host)"
  say "installing ${missing[*]}"
  # other processes may hold the dpkg lock for a while: wait for it rather than fail
  apt-get -o DPkg::Lock::Timeout=600 update -q || cannot_run "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends \
    "${missing[@]}" || cannot_run "apt-get install ${missing[*]} failed"
}

preflight() {
  [ "$(uname -m)" = x86_64 ] || cannot_run "needs an x86_64 host (found $(uname -m))"
  [ -x "$JDK25/bin/jlink" ] || cannot_run "no Temurin 25 at $JDK25 (set JDK25=...): the guests' Java runtime is jlinked from it"
  qemu-system-x86_64 -device help 2>/dev/null | grep -q virtio-9p-pci \
    || cannot_run "qemu-system-x86_64 has no virtio-9p-pci: the guests get the rig's files over 9p"
  local free_mb
  free_mb=$(df -Pm "$RIG_CACHE" | awk 'NR==2{print $4}')
  [ "$free_mb" -gt 4096 ] || cannot_run "less than 4 GiB free under $RIG_CACHE"
}

# A Debian mirror for mmdebstrap: MIRROR, else the host's own apt source.
mirror() {
  [ -n "${MIRROR:-}" ] && { echo "$MIRROR"; return; }
  awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null \
    || awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null
}

# ---------------- the project's jars ----------------
testbed_jar() {
  if [ -s "$TESTBED_JAR" ] && [ -s "$VERBS_JAR" ] && [ -z "$(find "$REPO" -path "$REPO/interop" -prune -o \
      \( -name pom.xml -o -path '*/src/main/*' \) -newer "$TESTBED_JAR" -print -quit)" ]; then
    say "using $TESTBED_JAR (newer than every source)"
    return 0
  fi
  [ "$TESTBED_JAR" = "$REPO/testbed/target/testbed.jar" ] || cannot_run "$TESTBED_JAR is missing or stale"
  say "building the project: mvn -B -q -o -DskipTests package"
  (cd "$REPO" && JAVA_HOME=$JDK25 mvn -B -q -o -DskipTests package) \
    || (cd "$REPO" && JAVA_HOME=$JDK25 mvn -B -q -DskipTests package) \
    || cannot_run "the project does not build (mvn -DskipTests package)"
  [ -s "$VERBS_JAR" ] || cannot_run "no $VERBS_JAR after the build (the verbs module needs JDK 22+: JDK25=$JDK25)"
}

# ---------------- the guest image, cached ----------------
trim_rootfs() { # ROOT KVER: drop what the guests never use (the root lives in guest RAM)
  local st=$1 kver=$2 m="$1/lib/modules/$2/kernel"
  rm -rf "$st"/usr/share/{doc,man,info,locale,i18n} "$st"/var/cache/apt/* "$st"/var/lib/apt/lists/* \
    "$st"/boot/initrd.img* "$m/sound" "$m/drivers/gpu" "$m/drivers/media"
  find "$m/drivers" -mindepth 1 -maxdepth 1 ! -name infiniband ! -name virtio ! -name net -exec rm -rf {} +
  find "$m/drivers/net" -mindepth 1 ! -name virtio_net.ko ! -name net_failover.ko -delete 2>/dev/null || true
  chroot "$st" depmod -a "$kver"
}

build_image() { # DIR: vmlinuz, rootfs.cpio (with guest-boot.sh as /init), versions.txt
  local out=$1 root=$1/rootfs kver
  # the guests boot the image itself as their initramfs: stub out update-initramfs before the
  # kernel is installed, or its postinst and trigger build two unused initrds (minutes in all)
  # eatmydata: dpkg without fsync, several times faster on this kind of disk
  mmdebstrap --variant=apt --mode=root --include="$GUEST_PKGS" --hook-dir=/usr/share/mmdebstrap/hooks/eatmydata \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --essential-hook='chroot "$1" dpkg-divert --quiet --local --rename --divert /usr/sbin/update-initramfs.real --add /usr/sbin/update-initramfs && printf "#!/bin/sh\nexit 0\n" > "$1/usr/sbin/update-initramfs" && chmod 0755 "$1/usr/sbin/update-initramfs"' \
    "$SUITE" "$root" "$(mirror)" || return 1
  # Temurin ships no jmods; JDK 24+ jlink links from the runtime image itself
  "$JDK25/bin/jlink" --add-modules "$JMODS" --strip-debug --no-man-pages --no-header-files \
    --output "$root/opt/jdk" || return 1
  # a jlinked image has no CDS archive, and start-up in TCG is slow without one; java finds
  # libjli through /proc/self/exe, hence /proc in the chroot
  BUILD_PROC=$root/proc
  mount -t proc proc "$root/proc" || return 1
  chroot "$root" /opt/jdk/bin/java -Xshare:dump >/dev/null || return 1
  umount "$root/proc"
  BUILD_PROC=""
  kver=$(ls "$root/lib/modules" | head -1)
  cp "$root/boot/vmlinuz-$kver" "$out/vmlinuz" || return 1
  { chroot "$root" dpkg-query -W -f '${Package} ${Version}\n' "linux-image-$kver" rdma-core ibverbs-providers \
      librdmacm1 nfs-kernel-server nfs-common rpcbind
    echo "temurin $(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$root/opt/jdk/release")"; } > "$out/versions.txt" \
    || return 1
  trim_rootfs "$root" "$kver" || return 1
  install -m 0755 "$HERE/guest-boot.sh" "$root/init" || return 1
  (cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) > "$out/rootfs.cpio" || return 1
  rm -rf "$root"
}

# Everything the image is made of; a change in any of it builds a new image.
image_key() {
  { echo "$SUITE|$GUEST_PKGS|$JMODS"; cat "$JDK25/release"; declare -f build_image trim_rootfs; cat "$HERE/guest-boot.sh"; } \
    | sha256sum | cut -c1-16
}

IMAGE=""
guest_image() {
  IMAGE=$RIG_CACHE/image-$(image_key)
  if [ -s "$IMAGE/rootfs.cpio" ] && [ -s "$IMAGE/vmlinuz" ]; then
    say "guest image cached: $IMAGE ($(tr '\n' ' ' < "$IMAGE/versions.txt"))"
    return 0
  fi
  [ "$(id -u)" = 0 ] || cannot_run "the guest image is not cached at $IMAGE and building it needs root (mmdebstrap, chroot)"
  [ -n "$(mirror)" ] || cannot_run "no Debian mirror: set MIRROR=URL"
  local tmp="$IMAGE.tmp.$$"
  CLEAN_PATHS+=("$tmp")
  mkdir -p "$tmp"
  say "building the guest image into $IMAGE (Debian $SUITE, mmdebstrap from $(mirror))"
  build_image "$tmp" || cannot_run "building the guest image failed (see above)"
  mv "$tmp" "$IMAGE"
  say "guest image: $(du -sh "$IMAGE/rootfs.cpio" | cut -f1) ($(tr '\n' ' ' < "$IMAGE/versions.txt"))"
}

# ---------------- test data (host side: the reference copy) ----------------
file_name() { # SIZE -> name
  local s=$1
  if [ "$s" -ge 1048576 ]; then echo "file-$((s / 1048576))MiB"
  elif [ "$s" -ge 1024 ]; then echo "file-$((s / 1024))KiB"
  else echo "file-${s}B"; fi
}
FILES=""
make_data() { # DIR: the workload's files, the symlink target, and expected.txt with their SHA-256
  local d=$1 i=0 s f
  mkdir -p "$d"
  FILES=""
  for s in $FILE_SIZES; do
    f=$(file_name "$s")
    # AES-128-CTR of zeros under a fixed key, one IV per file: deterministic, incompressible
    head -c "$s" /dev/zero | openssl enc -aes-128-ctr -nosalt -K 7270637264316d61346a2d696e746572 \
      -iv "$(printf '%032x' "$i")" > "$d/$f" || return 1
    [ "$(stat -c %s "$d/$f")" = "$s" ] || return 1
    FILES="$FILES $f"
    i=$((i + 1))
  done
  # 4,000 bytes: past the 4,096-byte inline threshold with the SYMLINK call around it
  printf 'rpcrdma4j/interop/symlink/%04d/' $(seq 0 200) | head -c 4000 > "$d/symlink-target"
  [ "$(stat -c %s "$d/symlink-target")" = 4000 ]
}

# ---------------- one scenario ----------------
scenario_field() { # NAME FIELD(1=client 2=server 3=mopts 4=sysctls)
  awk -v n="$1" -v f="$2" '$1 == n { v = $(f + 1); print (v == "-" ? "" : v) }' <<< "$SCENARIO_TABLE"
}
scenario_names() { awk 'NF { print $1 }' <<< "$SCENARIO_TABLE"; }

qemu_guest() { # ROLE SHARE SOCKS LOG [PCAP]: starts one guest in the background, pid in QEMU_PIDS
  # The link is a pair of unix datagram sockets, SOCKS.server and SOCKS.client, each guest sending
  # to the other's: QEMU 7.2's stream netdev stalled a guest's virtio-net transmit queue under load
  # ("NETDEV WATCHDOG: transmit queue 0 timed out"), dgram did not. A datagram the peer is not there
  # to take is lost, as on a wire, and RoCE retransmits it.
  local role=$1 share=$2 socks=$3 log=$4 pcap=${5:-} peer net mac
  if [ "$role" = server ]; then mac=52:54:00:99:00:01 peer=client; else mac=52:54:00:99:00:02 peer=server; fi
  net=(-netdev "dgram,id=n0,local.type=unix,local.path=$socks.$role,remote.type=unix,remote.path=$socks.$peer")
  [ -n "$pcap" ] && net+=(-object "filter-dump,id=cap0,netdev=n0,file=$pcap,maxlen=65535")
  # no_timer_check: on a loaded host a TCG guest's kernel has failed its IO-APIC timer check at boot
  # ("Kernel panic - not syncing: IO-APIC + timer doesn't work!"); the emulated timer is fine
  qemu-system-x86_64 -accel "$ACCEL" -cpu max -smp 1 -m "$GUEST_MEM" -nodefaults -no-user-config -no-reboot \
    -display none -serial "file:$log" \
    -kernel "$IMAGE/vmlinuz" -initrd "$IMAGE/rootfs.cpio" \
    -append "console=ttyS0 rdinit=/init ipv6.disable=1 panic=-1 no_timer_check rig.role=$role" \
    -virtfs "local,path=$share,mount_tag=rig,security_model=none,readonly=on" \
    "${net[@]}" -device "virtio-net-pci,netdev=n0,mac=$mac" \
    > "$log.qemu" 2>&1 &
  QEMU_PIDS+=($!)
}

# wait_marker PID LOG MARKER TIMEOUT [OTHER_LOG]: 0 when MARKER shows in LOG; 1 on a RIG-FATAL in
# either log, when the guest exits, or on timeout (says which)
wait_marker() {
  local pid=$1 log=$2 marker=$3 limit=$4 other=${5:-/dev/null} t0=$SECONDS
  while :; do
    grep -q "$marker" "$log" 2>/dev/null && return 0
    if grep -qh RIG-FATAL "$log" "$other" 2>/dev/null; then say "$(grep -h -m1 RIG-FATAL "$log" "$other")"; return 1; fi
    kill -0 "$pid" 2>/dev/null || { say "guest exited before $marker ($(tail -c 300 "$log.qemu" 2>/dev/null))"; return 1; }
    [ $((SECONDS - t0)) -lt "$limit" ] || { say "no $marker within $limit s"; return 1; }
    sleep 0.5
  done
}

stop_guests() {
  local p i
  for p in "${QEMU_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${QEMU_PIDS[@]}"; do
    for i in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  QEMU_PIDS=()
}

# check_client DATA LOG CLIENT: the client's results against the host's copy; prints each failure
check_client() {
  local d=$1 log=$2 client=$3 bad=0 f want got line
  for f in $FILES; do
    want=$(sha256sum < "$d/$f" | cut -d' ' -f1)
    got=$(sed -n "s/.*RIG-SUM $f \([0-9a-f]*\).*/\1/p" "$log" | tail -1)
    if [ "$got" = "$want" ]; then say "  sha256 ok  $f $want"
    else
      # what the client had before writing tells a 9p copy fault from an NFS one
      say "  sha256 BAD $f: read back ${got:-nothing}, host has $want," \
        "client wrote $(sed -n "s/.*RIG-SRC $f \([0-9a-f]*\).*/\1/p" "$log" | tail -1)"
      bad=1
    fi
  done
  want="2000 $(seq -f 'entry_with_a_longish_name_%04g' 0 1999 | LC_ALL=C sort | sha256sum | cut -d' ' -f1)"
  got=$(sed -n 's/.*RIG-DIR \([0-9]* [0-9a-f]*\).*/\1/p' "$log" | tail -1)
  if [ "$got" = "$want" ]; then say "  directory ok: 2000 entries, names as created"
  else say "  directory BAD: listed '${got:-nothing}', expected '$want' (count, sha256 of sorted names)"; bad=1; fi
  want="4000 $(sha256sum < "$d/symlink-target" | cut -d' ' -f1)"
  got=$(sed -n 's/.*RIG-LINK \([0-9]* [0-9a-f]*\).*/\1/p' "$log" | tail -1)
  if [ "$got" = "$want" ]; then say "  symlink ok: 4000-byte target read back"
  else say "  symlink BAD: read back '${got:-nothing}', expected '$want' (length, sha256)"; bad=1; fi
  if [ "$client" = linux ]; then   # only the Linux client makes a hard link (guest.sh's workload_hardlink)
    got=$(sed -n 's/.*RIG-HARDLINK \([0-9]* [a-z]*\).*/\1/p' "$log" | tail -1)
    if [ "$got" = "2 ok" ]; then say "  hardlink ok: both names read back, link count 2"
    else say "  hardlink BAD: '${got:-nothing}', expected '2 ok' (link count, both names read back)"; bad=1; fi
  fi
  got=$(sed -n 's/.*RIG-LEFT \([0-9]*\).*/\1/p' "$log" | tail -1)
  if [ "$got" = 0 ]; then say "  remove ok: export empty"
  else say "  remove BAD: ${got:-unknown} entries left"; bad=1; fi
  if grep -q RIG-UMOUNTED "$log"; then say "  unmount ok"
  else say "  unmount BAD"; bad=1; fi
  return $bad
}

# step times the guests logged, for the timing table
guest_steps() { # LOG PREFIX
  sed -n 's/.*STEP \([^ ]*\) \([0-9]*\) ms rc=\([0-9]*\).*/\1 \2 \3/p' "$1" | while read -r n ms rc; do
    printf '%-44s %6s s%s\n' "  $2 $n" "$(seconds "$ms")" "$([ "$rc" = 0 ] || echo "  (rc=$rc)")"
  done
}

RESULT_LINES=()
SOCK_DIR=""
run_scenario() { # NAME RUNDIR
  local name=$1 dir=$2/$1 share socks spid cpid ok=1 i
  mkdir -p "$dir"
  share=$dir/share
  socks=$SOCK_DIR/$name   # a unix socket path must stay short (108 bytes)
  CLEAN_PATHS+=("$share" "$socks.server" "$socks.client")
  mkdir -p "$share/jars"
  timed "$name: test data" make_data "$share/data"
  cp "$TESTBED_JAR" "$share/jars/testbed.jar"
  cp "$VERBS_JAR" "$share/jars/verbs.jar"
  install -m 0755 "$HERE/guest.sh" "$share/guest.sh"
  cat > "$share/scenario.env" <<EOF
SCENARIO=$name
CLIENT_KIND=$(scenario_field "$name" 1)
SERVER_KIND=$(scenario_field "$name" 2)
MOUNT_OPTS=$(scenario_field "$name" 3)
CLIENT_SYSCTLS=$(scenario_field "$name" 4)
SERVER_IP=$SERVER_IP
CLIENT_IP=$CLIENT_IP
FILES="$FILES"
LINK_NAME=$LINK_NAME
EOF
  say "scenario $name: client $(scenario_field "$name" 1), server $(scenario_field "$name" 2)," \
    "mount options +'$(scenario_field "$name" 3)', client sysctls '$(scenario_field "$name" 4)'"
  # both guests boot at once; the client waits in the guest for the server's NFS service
  qemu_guest server "$share" "$socks" "$dir/server.log" "$dir/$name.pcap"
  spid=${QEMU_PIDS[-1]}
  for i in $(seq 100); do [ -S "$socks.server" ] && break; kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
  [ -S "$socks.server" ] || { stop_guests; say "QEMU did not start: $(cat "$dir/server.log.qemu")"
    RESULT_LINES+=("FAIL $name: the server guest did not start"); return 1; }
  qemu_guest client "$share" "$socks" "$dir/client.log"
  cpid=${QEMU_PIDS[-1]}
  timed "$name: both guests boot, server ready" \
    wait_marker "$spid" "$dir/server.log" RIG-SERVER-READY "$SERVER_READY_TIMEOUT" "$dir/client.log" \
    || { stop_guests; RESULT_LINES+=("FAIL $name: the server guest did not come up (see $dir/server.log)"); return 1; }
  timed "$name: client mount, workload, unmount" \
    wait_marker "$cpid" "$dir/client.log" RIG-CLIENT-DONE "$CLIENT_TIMEOUT" "$dir/server.log" || ok=0
  if [ $ok = 1 ]; then
    timed "$name: java in the server guest" wait_marker "$spid" "$dir/server.log" RIG-JAVA- "$JAVA_CHECK_TIMEOUT" || ok=0
    grep -q RIG-JAVA-OK "$dir/server.log" || { say "the testbed jar did not run in the server guest"; ok=0; }
  fi
  stop_guests
  rm -rf "$share/jars"
  if [ $ok = 1 ]; then
    check_client "$share/data" "$dir/client.log" "$(scenario_field "$name" 1)" || ok=0
  else
    say "client log tail:"; tail -25 "$dir/client.log" | sed 's/^/    /'
  fi
  if [ -s "$dir/$name.pcap" ]; then
    say "capture: $dir/$name.pcap ($(du -h "$dir/$name.pcap" | cut -f1), $(capinfos -c -M "$dir/$name.pcap" 2>/dev/null | awk -F: '/Number of packets/{gsub(/ /,"",$2); print $2}') frames)"
    if timed "$name: testbed replay" replay "$dir/$name.pcap" "$dir/replay.txt"; then
      say "  replay ok: $(tail -1 "$dir/replay.txt" | tr -s ' ')"
    else
      say "  replay FAILED:"; sed 's/^/    /' "$dir/replay.txt" | head -20
      # every mismatch, not only the first, for whoever looks into it
      replay "$dir/$name.pcap" "$dir/replay.json" --json || true
      say "  all mismatches: $dir/replay.json"
      ok=0
    fi
  else
    say "  no capture"; ok=0
  fi
  { guest_steps "$dir/server.log" server; guest_steps "$dir/client.log" client; } > "$dir/guest-steps.txt"
  mapfile -t -O ${#TIMINGS[@]} TIMINGS < "$dir/guest-steps.txt"
  if [ $ok = 1 ]; then RESULT_LINES+=("PASS $name ($dir)"); return 0; fi
  explain_failure "$dir" "$name" 2>&1 | tee "$dir/failure.txt"
  RESULT_LINES+=("FAIL $name ($dir)")
  return 1
}

# explain_failure DIR NAME: what a failed scenario's link and Soft-RoCE saw, so that the failure
# explains itself: both guests' rxe counters at the start and at the last reading, the RNR NAKs,
# NAKs and retransmitted requests on the wire, and the capture's last RoCE frames
explain_failure() {
  local dir=$1 name=$2 pcap=$1/$2.pcap role
  for role in server client; do
    say "rxe counters, $role guest (first and last reading):"
    grep -h 'RIG-RXE' "$dir/$role.log" | sed -n '1p;$p' | sed 's/.*RIG-RXE /    /'
  done
  [ -s "$pcap" ] || return 0
  # one pass over the capture: seconds, source, destination QP, opcode, PSN, AETH syndrome
  tshark -r "$pcap" -Y infiniband -T fields -E separator=' ' -e frame.time_relative -e ip.src \
    -e infiniband.bth.destqp -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.aeth.syndrome \
    > "$dir/roce-frames.txt" 2>/dev/null || true
  # AETH syndrome 001xxxxx is an RNR NAK, 011xxxxx a NAK (PSN sequence error, invalid request, remote
  # access or operational error); a request (not an acknowledgement or read response, opcodes 13-18)
  # seen twice with one PSN on one queue pair is a retransmission
  say "on the wire: $(awk '
      function num(x,  n, i) { if (x !~ /^0x/) return x + 0; n = 0
        for (i = 3; i <= length(x); i++) n = n * 16 + index("0123456789abcdef", substr(tolower(x), i, 1)) - 1
        return n }
      $6 != "" { s = num($6); if (s >= 32 && s < 64) rnr++; else if (s >= 96) nak++ }
      (num($4) < 13 || num($4) > 18) && seen[$2 " " $3 " " $5]++ == 1 { again++ }
      END { printf "%d RoCE frames, %d RNR NAKs, %d NAKs, %d requests retransmitted", NR, rnr, nak, again }' \
      "$dir/roce-frames.txt")"
  say "the capture's last 40 RoCE frames (seconds, source, destination QP, opcode, PSN, AETH syndrome):"
  tail -40 "$dir/roce-frames.txt" | sed 's/^/    /'
}

replay() { # PCAP OUT [OPTION...]
  local java=java pcap=$1 out=$2
  shift 2
  [ -x "$JDK25/bin/java" ] && java=$JDK25/bin/java
  timeout "$REPLAY_TIMEOUT" "$java" -jar "$TESTBED_JAR" replay "$@" "$pcap" > "$out" 2>&1
}

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; }

list() {
  local n
  printf '%-26s %-8s %-8s %-26s %s\n' scenario client server "mount options" "client sysctls"
  for n in $(scenario_names); do
    printf '%-26s %-8s %-8s %-26s %s\n' "$n" "$(scenario_field "$n" 1)" "$(scenario_field "$n" 2)" \
      "$(scenario_field "$n" 3)" "$(scenario_field "$n" 4)"
  done
  return 0
}

main() {
  local selected=() n t0=$SECONDS failed=0 rundir
  case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    --list) list; exit 0 ;;
    all) selected=($(scenario_names)) ;;
    "") selected=($DEFAULT_SCENARIOS) ;;
    *) selected=("$@") ;;
  esac
  for n in "${selected[@]}"; do
    scenario_names | grep -qx "$n" || { say "unknown scenario '$n' (interop/run.sh --list)"; exit 3; }
  done
  mkdir -p "$RIG_CACHE" "$RESULTS"
  timed "host packages" host_packages
  preflight
  timed "project jar" testbed_jar
  timed "guest image" guest_image
  SOCK_DIR=$(mktemp -d /tmp/rpcrdma4j-rig.XXXXXX)
  CLEAN_PATHS+=("$SOCK_DIR")
  rundir=$RESULTS/$(date -u +%Y%m%dT%H%M%SZ)
  mkdir -p "$rundir"
  say "results in $rundir"
  for n in "${selected[@]}"; do run_scenario "$n" "$rundir" || failed=1; done
  {
    echo "results:"; printf '  %s\n' "${RESULT_LINES[@]}"
    echo "timings (wall clock; TCG guests on a shared host):"; printf '  %s\n' "${TIMINGS[@]}"
    echo "  total $((SECONDS - t0)) s"
  } | tee "$rundir/summary.txt"
  [ $failed = 0 ] || { say "FAILED"; exit 1; }
  say "all ${#selected[@]} scenario(s) passed"
}

main "$@"
