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
# captures their link, checks the results, replays the capture, and cleans up. The fault scenarios
# (linux-to-testbed-lossy, linux-to-testbed-poweroff) add a witness client on a second link and
# break the first client's link or power it off while the witness keeps working. Exit status:
# 0 every scenario passed, 1 a scenario failed, 2 the rig cannot run here (the reason is printed),
# 3 a named scenario is unknown. See interop/README.md.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
RIG_CACHE=${RIG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rpcrdma4j-interop}
RESULTS=${RIG_RESULTS:-$HERE/results}
JDK25=${JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}
TESTBED_JAR=${TESTBED_JAR:-$REPO/testbed/target/testbed.jar}
# the RC fabric and the verbs bindings it runs on (JDK 22+), for 'testbed serve --fabric verbs' in the guests
FABRIC_RC_JAR=${FABRIC_RC_JAR:-$REPO/fabric-rc/target/fabric-rc-0.1.0-SNAPSHOT.jar}
VERBS_JAR=${VERBS_JAR:-$REPO/verbs/target/verbs-0.1.0-SNAPSHOT.jar}
# the EFA RDM protocol on the verbs device and its fabric (JDK 22+), for '--fabric efa-verbs'
EFA_VERBS_JAR=${EFA_VERBS_JAR:-$REPO/efa-verbs/target/efa-verbs-0.1.0-SNAPSHOT.jar}
FABRIC_EFA_VERBS_JAR=${FABRIC_EFA_VERBS_JAR:-$REPO/fabric-efa-verbs/target/fabric-efa-verbs-0.1.0-SNAPSHOT.jar}
# TCG: this machine's /dev/kvm (where there is one) cannot boot the stock Debian kernel.
ACCEL=${RIG_ACCEL:-tcg,thread=multi}
GUEST_MEM=${RIG_GUEST_MEM:-2048}
SERVER_READY_TIMEOUT=${RIG_SERVER_READY_TIMEOUT:-300}
CLIENT_TIMEOUT=${RIG_CLIENT_TIMEOUT:-1200}
JAVA_CHECK_TIMEOUT=${RIG_JAVA_CHECK_TIMEOUT:-180}
REPLAY_TIMEOUT=${RIG_REPLAY_TIMEOUT:-900}
# fault scenarios: how long the server may take to free the faulted client's connection once the
# client is done or dead, and how long the witness goes on after that (poweroff)
FREED_TIMEOUT=${RIG_FREED_TIMEOUT:-180}
WITNESS_AFTER=${RIG_WITNESS_AFTER:-20}

# ---------------- scenarios ----------------
# A fault (lossy, poweroff) adds a third guest, the witness, and breaks the client's link or powers
# the client off mid-write (run_fault).
# name                  client   server   extra mount options       client sysctls     fault
SCENARIO_TABLE="
linux-to-linux          linux    linux    -                         -                  -
linux-to-linux-64k      linux    linux    rsize=65536,wsize=65536   -                  -
linux-to-linux-inline1k linux    linux    -                         sunrpc.rdma_max_inline_read=1024,sunrpc.rdma_max_inline_write=1024 -
linux-to-testbed        linux    testbed  -                         -                  -
linux-to-testbed-64k    linux    testbed  rsize=65536,wsize=65536   -                  -
linux-to-testbed-inline1k linux  testbed  -                         sunrpc.rdma_max_inline_read=1024,sunrpc.rdma_max_inline_write=1024 -
testbed-to-linux        testbed  linux    -                         -                  -
testbed-to-testbed      testbed  testbed  -                         -                  -
linux-to-testbed-lossy  linux    testbed  -                         -                  lossy
linux-to-testbed-poweroff linux  testbed  -                         -                  poweroff
efa-verbs               efa      efa      -                         -                  -
"
# linux-to-testbed-lossy: 5 to 6 minutes; linux-to-testbed-poweroff runs when named (interop/README.md)
# efa-verbs: the testbed's serve and demo on the EFA RDM protocol over the verbs device (--fabric
# efa-verbs), then a short 'bench efa --device verbs' between the guests beside ibv_rc_pingpong, both
# guests the project's; about 4 minutes
DEFAULT_SCENARIOS="linux-to-testbed testbed-to-linux testbed-to-testbed linux-to-testbed-lossy efa-verbs"

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
WITNESS_IP=10.99.0.3   # the fault scenarios' witness, on the server's second NIC

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
  if [ -s "$TESTBED_JAR" ] && [ -s "$FABRIC_RC_JAR" ] && [ -s "$VERBS_JAR" ] && [ -s "$EFA_VERBS_JAR" ] \
      && [ -s "$FABRIC_EFA_VERBS_JAR" ] && [ -z "$(find "$REPO" -path "$REPO/interop" -prune -o \
      \( -name pom.xml -o -path '*/src/main/*' \) -newer "$TESTBED_JAR" -print -quit)" ]; then
    say "using $TESTBED_JAR (newer than every source)"
    return 0
  fi
  [ "$TESTBED_JAR" = "$REPO/testbed/target/testbed.jar" ] || cannot_run "$TESTBED_JAR is missing or stale"
  say "building the project: mvn -B -q -o -DskipTests package"
  (cd "$REPO" && JAVA_HOME=$JDK25 mvn -B -q -o -DskipTests package) \
    || (cd "$REPO" && JAVA_HOME=$JDK25 mvn -B -q -DskipTests package) \
    || cannot_run "the project does not build (mvn -DskipTests package)"
  [ -s "$FABRIC_RC_JAR" ] && [ -s "$VERBS_JAR" ] && [ -s "$EFA_VERBS_JAR" ] && [ -s "$FABRIC_EFA_VERBS_JAR" ] \
    || cannot_run "no $FABRIC_RC_JAR, $VERBS_JAR, $EFA_VERBS_JAR or $FABRIC_EFA_VERBS_JAR after the build (they need JDK 22+: JDK25=$JDK25)"
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
scenario_field() { # NAME FIELD(1=client 2=server 3=mopts 4=sysctls 5=fault)
  awk -v n="$1" -v f="$2" '$1 == n { v = $(f + 1); print (v == "-" ? "" : v) }' <<< "$SCENARIO_TABLE"
}
scenario_names() { awk 'NF { print $1 }' <<< "$SCENARIO_TABLE"; }

# qemu_guest ROLE SHARE LOG LINK...: starts one guest in the background, pid in QEMU_PIDS; one NIC per
# LINK, "LOCAL_SOCKET,PEER_SOCKET,MAC[,PCAP]", the first eth0.
qemu_guest() {
  # A link is a pair of unix datagram sockets, one per end, each guest sending to the other's:
  # QEMU 7.2's stream netdev stalled a guest's virtio-net transmit queue under load
  # ("NETDEV WATCHDOG: transmit queue 0 timed out"), dgram did not. A datagram the peer is not there
  # to take is lost, as on a wire, and RoCE retransmits it.
  local role=$1 share=$2 log=$3 net=() link local peer mac pcap n=0
  shift 3
  for link in "$@"; do
    IFS=, read -r local peer mac pcap <<< "$link"
    net+=(-netdev "dgram,id=n$n,local.type=unix,local.path=$local,remote.type=unix,remote.path=$peer")
    [ -n "$pcap" ] && net+=(-object "filter-dump,id=cap$n,netdev=n$n,file=$pcap,maxlen=65535")
    net+=(-device "virtio-net-pci,netdev=n$n,mac=$mac")
    n=$((n + 1))
  done
  # no_timer_check: on a loaded host a TCG guest's kernel has failed its IO-APIC timer check at boot
  # ("Kernel panic - not syncing: IO-APIC + timer doesn't work!"); the emulated timer is fine
  qemu-system-x86_64 -accel "$ACCEL" -cpu max -smp 1 -m "$GUEST_MEM" -nodefaults -no-user-config -no-reboot \
    -display none -serial "file:$log" \
    -kernel "$IMAGE/vmlinuz" -initrd "$IMAGE/rootfs.cpio" \
    -append "console=ttyS0 rdinit=/init ipv6.disable=1 panic=-1 no_timer_check rig.role=$role" \
    -virtfs "local,path=$share,mount_tag=rig,security_model=none,readonly=on" \
    "${net[@]}" > "$log.qemu" 2>&1 &
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
FAULT_RESULT=""   # a fault scenario's figures for its result line
SOCK_DIR=""
# run_pair NAME DIR SHARE SOCKS: a server and a client guest, the client's workload and its checks;
# 0 when they passed, 1 when not, 2 when a guest did not come up (its result line added)
run_pair() {
  local name=$1 dir=$2 share=$3 socks=$4 spid cpid ok=1
  # both guests boot at once; the client waits in the guest for the server's NFS service
  qemu_guest server "$share" "$dir/server.log" "$socks.server,$socks.client,52:54:00:99:00:01,$dir/$name.pcap"
  spid=${QEMU_PIDS[-1]}
  wait_socket "$socks.server" "$spid" || { stop_guests; say "QEMU did not start: $(cat "$dir/server.log.qemu")"
    RESULT_LINES+=("FAIL $name: the server guest did not start"); return 2; }
  qemu_guest client "$share" "$dir/client.log" "$socks.client,$socks.server,52:54:00:99:00:02"
  cpid=${QEMU_PIDS[-1]}
  timed "$name: both guests boot, server ready" \
    wait_marker "$spid" "$dir/server.log" RIG-SERVER-READY "$SERVER_READY_TIMEOUT" "$dir/client.log" \
    || { stop_guests; RESULT_LINES+=("FAIL $name: the server guest did not come up (see $dir/server.log)"); return 2; }
  # an EFA server's address carries its endpoint's connid, which its client needs (as fi_av_insert
  # does): passed on through the share, where the client waits for it
  # (the serial console ends its lines with CR LF)
  tr -d '\r' < "$dir/server.log" | sed -n 's/.*RIG-SERVER-ADDRESS \([^ ]*\).*/\1/p' | head -1 > "$share/server-address.tmp"
  [ -s "$share/server-address.tmp" ] && mv "$share/server-address.tmp" "$share/server-address"
  rm -f "$share/server-address.tmp"
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
  [ $ok = 1 ]
}

wait_socket() { # PATH PID: 0 once QEMU has made the unix socket PATH
  local i
  for i in $(seq 100); do [ -S "$1" ] && return 0; kill -0 "$2" 2>/dev/null || return 1; sleep 0.1; done
  [ -S "$1" ]
}

# ---------------- the fault scenarios ----------------
# run_fault NAME DIR SHARE SOCKS: the server guest with two NICs, bridged (eth0 to the client, eth1 to
# the witness; each link captured, the client's to NAME.pcap, the witness's to witness.pcap), the
# client, and the witness (guest.sh's client_witness: small operations in a loop). Once the witness
# works, run.sh lets the client start (/rig/go in the share); then
#   lossy:    the client's own link loses packets, then all of them (guest.sh's lossy_link); the
#             client must reconnect and finish its whole workload byte-exact;
#   poweroff: when the client logs RIG-WRITING (its 64 MiB write under way), its QEMU is killed.
# Then the server must free the client's connections (its RIG-QP lines: none left to the client,
# the witness's alone), the witness stops (/rig/stop-witness) and must have had no failure.
# 0 when all that held, 1 when not, 2 when a guest did not come up (its result line added).
run_fault() {
  local name=$1 dir=$2 share=$3 socks=$4 fault spid cpid wpid ok=1 t_fault="" t_end connects="" e
  fault=$(scenario_field "$name" 5)
  CLEAN_PATHS+=("$socks.server1" "$socks.witness")
  qemu_guest server "$share" "$dir/server.log" "$socks.server,$socks.client,52:54:00:99:00:01,$dir/$name.pcap" \
    "$socks.server1,$socks.witness,52:54:00:99:01:01,$dir/witness.pcap"
  spid=${QEMU_PIDS[-1]}
  wait_socket "$socks.server1" "$spid" || { stop_guests; say "QEMU did not start: $(cat "$dir/server.log.qemu")"
    RESULT_LINES+=("FAIL $name: the server guest did not start"); return 2; }
  qemu_guest client "$share" "$dir/client.log" "$socks.client,$socks.server,52:54:00:99:00:02"
  cpid=${QEMU_PIDS[-1]}
  qemu_guest witness "$share" "$dir/witness.log" "$socks.witness,$socks.server1,52:54:00:99:01:02"
  wpid=${QEMU_PIDS[-1]}
  timed "$name: three guests boot, server ready" \
    wait_marker "$spid" "$dir/server.log" RIG-SERVER-READY "$SERVER_READY_TIMEOUT" "$dir/client.log" \
    || { stop_guests; RESULT_LINES+=("FAIL $name: the server guest did not come up (see $dir/server.log)"); return 2; }
  timed "$name: witness mounted and working" \
    wait_marker "$wpid" "$dir/witness.log" RIG-WITNESS-UP "$SERVER_READY_TIMEOUT" "$dir/server.log" || ok=0
  touch "$share/go"
  if [ $ok = 1 ] && [ "$fault" = lossy ]; then
    timed "$name: client mount, workload with link faults, unmount" \
      wait_marker "$cpid" "$dir/client.log" RIG-CLIENT-DONE "$CLIENT_TIMEOUT" "$dir/witness.log" || ok=0
    t_fault=$(sed -n 's/.*RIG-FAULT loss-20% \([0-9]*\).*/\1/p' "$dir/client.log" | head -1)
    [ -n "$t_fault" ] || { say "the client logged no fault"; ok=0; }
  elif [ $ok = 1 ]; then
    timed "$name: client mount, workload up to the 64 MiB write" \
      wait_marker "$cpid" "$dir/client.log" RIG-WRITING "$CLIENT_TIMEOUT" "$dir/witness.log" || ok=0
    if [ $ok = 1 ]; then
      { kill -9 "$cpid"; wait "$cpid" || true; } 2>/dev/null   # quietly: bash reports a killed job
      t_fault=$(now_ms)
      say "powered the client off (kill -9 of its QEMU) during its 64 MiB write"
    fi
  fi
  if [ $ok = 1 ]; then
    timed "$name: server frees the client's connections" wait_freed "$spid" "$dir/server.log" || ok=0
    [ "$fault" = poweroff ] && sleep "$WITNESS_AFTER"   # and serves the witness on
  fi
  t_end=$(now_ms)
  touch "$share/stop-witness"
  timed "$name: witness stops and unmounts" \
    wait_marker "$wpid" "$dir/witness.log" RIG-WITNESS-DONE 300 "$dir/server.log" || ok=0
  if [ $ok = 0 ]; then   # the server's threads, for whoever looks into it
    touch "$share/dump-threads"
    wait_marker "$spid" "$dir/server.log" RIG-THREADS-DONE 150 || true
  fi
  stop_guests
  rm -rf "$share/jars"
  if [ "$fault" = lossy ] && [ -n "$t_fault" ]; then
    check_client "$share/data" "$dir/client.log" linux || ok=0
    # the client's transport connected again after its connection broke
    connects=$(sed -n 's/.*RIG-XPRT connects=\([0-9]*\).*/\1/p' "$dir/client.log" | tail -1)
    if [ "${connects:-0}" -gt 1 ]; then say "  reconnect ok: the client's transport connected $connects times"
    else say "  reconnect BAD: the client's transport connected ${connects:-an unknown number of} times"; ok=0; fi
  fi
  check_witness "$dir/witness.log" || ok=0
  if [ -n "$t_fault" ]; then fault_report "$dir" "$name" "$t_fault" "$t_end" 2>&1 | tee "$dir/fault.txt"; fi
  FAULT_RESULT="$(witness_figures "$dir/witness.log" "${t_fault:-0}" "$t_end" | head -1)"
  e=$([ -n "$t_fault" ] && server_ends "$dir" "$t_fault" | head -1)
  [ -n "$e" ] && FAULT_RESULT="$FAULT_RESULT; the server ended the client's connection at $(rel_s "$e" "$t_fault"), the witness's gap across it $(gap_across "$dir/witness.log" "$e" | awk '{ print $3 }') s"
  FAULT_RESULT="$FAULT_RESULT${connects:+; the client connected $connects times}"
  TIMINGS+=("$(printf '%-44s %s' "$name: witness" "$FAULT_RESULT")")
  if [ -s "$dir/witness.pcap" ]; then
    if timed "$name: testbed replay of the witness's link" replay "$dir/witness.pcap" "$dir/witness-replay.txt"; then
      say "  witness replay ok: $(tail -1 "$dir/witness-replay.txt" | tr -s ' ')"
    else
      say "  witness replay FAILED:"; sed 's/^/    /' "$dir/witness-replay.txt" | head -20; ok=0
    fi
  fi
  [ $ok = 1 ] || { say "log tails:"; for f in client witness; do tail -15 "$dir/$f.log" | sed 's/^/    /'; done; }
  [ $ok = 1 ]
}

now_ms() { date +%s%3N; }

# wait_freed PID LOG: 0 once the server's last RIG-QP line has no connection to the client and the
# witness's alone (one CM id, one RC queue pair), within FREED_TIMEOUT s
wait_freed() {
  local t0=$SECONDS line
  while :; do
    line=$(grep -a RIG-QP "$2" | tail -1)
    [[ "$line" == *" client=0 witness=1 other=0 listen=1 qps=1 "* ]] && { say "  freed: ${line#*RIG-QP }"; return 0; }
    kill -0 "$1" 2>/dev/null || { say "the server guest exited"; return 1; }
    [ $((SECONDS - t0)) -lt "$FREED_TIMEOUT" ] || { say "the server still holds: ${line#*RIG-QP }"; return 1; }
    sleep 1
  done
}

# check_witness LOG: the witness worked (ops > 0), never failed, and unmounted
check_witness() {
  local line ops fails
  line=$(grep -a -o 'RIG-WITNESS ops=.*' "$1" | tail -1 | tr -d '\r')
  ops=$(sed -n 's/.*ops=\([0-9]*\).*/\1/p' <<< "$line")
  fails=$(sed -n 's/.*failures=\([0-9]*\).*/\1/p' <<< "$line")
  if [ "${ops:-0}" -gt 0 ] && [ "$fails" = 0 ]; then say "  witness ok: ${line#RIG-WITNESS }"
  else say "  witness BAD: ${line:-no RIG-WITNESS line}"; grep -a 'RIG-WOP.*FAILED' "$1" | head -5 | sed 's/^/    /'; return 1; fi
  grep -q RIG-WITNESS-DONE "$1" || { say "  witness BAD: did not unmount"; return 1; }
}

# witness_figures LOG T_FAULT T_END: the witness's operations and its longest gaps between two
# completions before the fault (ending before T_FAULT), during it (overlapping [T_FAULT, T_END]) and
# after it, each with where it ended relative to T_FAULT (epoch ms, the guests' clocks set from the
# host's); the first line for the result line, the rest for fault.txt
witness_figures() {
  grep -a -o 'RIG-WOP [0-9]* [a-z]* [0-9]* [A-Za-z]*' "$1" | awk -v fs="$2" -v fe="$3" '
    { t = $4; n++; if ($5 != "ok") fails++ }
    prev { g = t - prev
      if (t < fs) { if (g > b) { b = g; bt = t } }
      else if (prev > fe) { if (g > a) { a = g; at = t } }
      else if (g > d) { d = g; dt = t } }
    { prev = t }
    function at_(x) { return x ? sprintf("ending at %+.1f s", (x - fs) / 1000) : "none" }
    END {
      printf "witness %d ops, %d failures, longest gap between its operations %.1f s in the fault window (before it %.1f s, after %.1f s)\n", \
        n, fails, d / 1000, b / 1000, a / 1000
      printf "witness: %d operations, %d failed; longest gap between two completions:\n", n, fails
      printf "  before the fault %.2f s (%s), during it %.2f s (%s), after it %.2f s (%s)\n", \
        b / 1000, at_(bt), d / 1000, at_(dt), a / 1000, at_(at) }'
}

# fault_report DIR NAME T_FAULT T_END: what the fault did, in times relative to its start: the
# client's fault phases, the witness's gaps, the server's view of its connections (RcConnection's and
# Responder's lines, RIG-QP), and both links on the wire (files: resent-xids.txt, witness-calls.txt)
fault_report() {
  local dir=$1 name=$2 tf=$3 te=$4 e
  say "fault report (times relative to the fault's start, $(date -u -d "@$((tf / 1000))" +%H:%M:%S).${tf: -3} UTC; its window ends at $(rel_s "$te" "$tf"))"
  grep -a -o 'RIG-FAULT [^ ]* [0-9]*' "$dir/client.log" | awk -v fs="$tf" '{ printf "  client: %s at %+.1f s\n", $2, ($3 - fs) / 1000 }'
  grep -a -o 'RIG-XPRT .*' "$dir/client.log" | tr -d '\r' | sed 's/^/  client: /'
  grep -a -h -o 'RIG-CLOCK .*' "$dir/client.log" "$dir/witness.log" | tr -d '\r' | sed 's/^/  clock: /'
  witness_figures "$dir/witness.log" "$tf" "$te" | tail -n +2 | sed 's/^/  /'
  say "  the server's connections (serve's log, UTC):"
  grep -a -E 'serve: .*(ending,|closed:|accepted )' "$dir/server.log" | sed 's/.*serve: /    /' | tr -d '\r' | cut -c1-220
  grep -a -o 'RIG-QP [0-9]* .*' "$dir/server.log" | tr -d '\r' | awk -v fs="$tf" '{ t = $2; $1 = $2 = ""; printf "    RIG-QP at %+.1f s:%s\n", (t - fs) / 1000, $0 }'
  say "  on the wire ($name.pcap, the client's link, as the server's NIC saw it):"
  fault_wire "$dir/$name.pcap" "$tf" "$dir/resent-xids.txt" | sed 's/^/    /'
  witness_calls "$dir/witness.pcap" > "$dir/witness-calls.txt"
  say "  the witness's link (witness.pcap): $(awk -v fs="$tf" -v fe="$te" '{ n++
      if ($2 >= fs && $1 <= fe) { if ($3 > d) { d = $3; dt = $2 } } else if ($3 > o) o = $3 }
      END { printf "%d calls; the longest call-to-reply time during the fault %.0f ms (the reply at %+.1f s), outside it %.0f ms", n, d, (dt - fs) / 1000, o }' \
      "$dir/witness-calls.txt")"
  # how the witness fared across each moment the server ended a connection of the client's for a
  # failure: its operations just before and after, and its calls answered in the 10 s after
  for e in $(server_ends "$dir" "$tf"); do
    say "  the server ended the client's connection at $(rel_s "$e" "$tf"): the witness's operations completed" \
      "$(gap_across "$dir/witness.log" "$e" | awk '{ printf "%.2f s before and %.2f s after it (a gap of %.2f s)", $1, $2, $3 }');" \
      "its calls answered in the 10 s after it: $(awk -v e="$e" '$1 <= e + 10000 && $2 >= e { n++; if ($3 > m) m = $3 }
        END { printf "%d, the slowest in %.0f ms", n, m }' "$dir/witness-calls.txt")"
  done
}

# server_ends DIR T_FAULT: the moments (epoch ms) the server ended a connection of the client's for a
# failure (RcConnection's "ending, ...", not the client's own disconnect), from serve's log, whose
# times of day are the server guest's clock, set from the host's (UTC; the day is T_FAULT's)
server_ends() {
  grep -a "serve: .* -> /$CLIENT_IP:.*: ending, " "$1/server.log" | grep -v 'ending, CLOSED: RDMA_CM_EVENT_DISCONNECTED' \
    | sed -n 's/.*serve: \([0-9:.]*\) .*/\1/p' | while read -r e; do
      date -u -d "$(date -u -d "@$(($2 / 1000))" +%F) $e" +%s%3N
    done
}

# gap_across LOG MOMENT: "BEFORE AFTER GAP" in seconds: the witness's last completion before MOMENT
# (epoch ms) and its first after, and the gap between them
gap_across() {
  grep -a -o 'RIG-WOP [0-9]* [a-z]* [0-9]*' "$1" | awk -v e="$2" '
    { if (p && p <= e && $4 > e) printf "%.2f %.2f %.2f\n", (e - p) / 1000, ($4 - e) / 1000, ($4 - p) / 1000; p = $4 }'
}

# cut_by_fault DIR FAULT: 0 when every mismatch of the faulted link's replay (replay.json) is a call
# whose chunk data the fault kept off the wire ("cannot rebuild the call: the capture lacks the data
# of segment ...") and that the client sent again on its new connection (resent-xids.txt from
# fault_wire), or, after a power-off, that was on the connection it ended (the capture's last)
cut_by_fault() {
  local dir=$1 fault=$2 last m xid n=0 bad=0
  [ -s "$dir/replay.json" ] || return 1
  last=$(grep -o '"connections":[0-9]*' "$dir/replay.json" | head -1 | cut -d: -f2)
  while read -r m; do
    n=$((n + 1))
    xid=$(printf '0x%08x' "$(sed -n 's/.*"xid":\([0-9]*\).*/\1/p' <<< "$m")")
    if [[ "$m" == *'"difference":"cannot rebuild the call: the capture lacks the data of segment'* ]] \
      && { grep -qx "$xid" "$dir/resent-xids.txt" 2>/dev/null \
        || { [ "$fault" = poweroff ] && [[ "$m" == *"\"connection\":$last,"* ]]; }; }; then
      continue
    fi
    bad=$((bad + 1))
    say "    not the fault's doing: $m"
  done < <(grep -o '{"frame":[^}]*}' "$dir/replay.json")
  say "  replay: $n mismatches, $((n - bad)) of them calls whose chunk data the fault kept off the wire" \
    "($([ "$fault" = poweroff ] && echo "on the connection the power-off ended" || echo "each sent again on the new connection"))"
  [ $bad = 0 ] && [ $n -gt 0 ]
}

rel_s() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f s", (a - b) / 1000 }'; }

# fault_wire PCAP T_FAULT XIDS_OUT: the faulted link: the client's longest silence and its last
# frame, the server's frames after the fault began (its RC retransmissions: a request's PSN again on
# one queue pair), the RDMA-CM messages from a second before the fault on, and the calls the client
# sent again with the same XID on a new queue pair (after reconnecting), their XIDs to XIDS_OUT.
# rpcordma.xid, not rpc.xid: tshark dissects a call with a Read chunk as RPC only once it has the
# chunk's data, which a call the fault cut off lacks.
fault_wire() {
  tshark -r "$1" -Y infiniband -T fields -E separator=, -e frame.time_epoch -e ip.src \
    -e infiniband.bth.destqp -e infiniband.mad.attributeid -e rpcordma.xid -e infiniband.bth.opcode \
    -e infiniband.bth.psn 2>/dev/null \
    | awk -F, -v fs="$2" -v client="$CLIENT_IP" -v out="$3" '
      BEGIN { cm["0x0010"] = "REQ"; cm["0x0011"] = "MRA"; cm["0x0012"] = "REJ"; cm["0x0013"] = "REP"
              cm["0x0014"] = "RTU"; cm["0x0015"] = "DREQ"; cm["0x0016"] = "DREP"; printf "" > out }
      function rel(x) { return sprintf("%+.3f s", x - fs / 1000) }
      $2 == client { if (lastc && $1 - lastc > quiet) { quiet = $1 - lastc; q0 = lastc; q1 = $1 }; lastc = $1 }
      $2 != client && $1 * 1000 >= fs { served++; lasts = $1
        # a request (not an ACK or RDMA Read response, opcodes 13 to 17) whose PSN the queue pair sent before
        if (($6 < 13 || $6 > 17) && $4 == "" && (($3, $7) in psn)) resent++ }
      $2 != client && ($6 < 13 || $6 > 17) && $4 == "" { psn[$3, $7] = 1 }
      $4 != "" && $1 * 1000 >= fs - 1000 && shown++ < 20 {
        printf "CM %-4s from the %s at %s\n", ($4 in cm ? cm[$4] : $4), ($2 == client ? "client" : "server"), rel($1) }
      $2 == client && $5 != "" {   # a call (NFSv3 has no backchannel); an RC retransmission repeats its queue pair
        if (($5 in qp) && qp[$5] != $3 && !(($5, $3) in seen)) { again++; print $5 > out; if (!first) first = $1; last = $1 }
        qp[$5] = $3; seen[$5, $3] = 1 }
      END {
        printf "nothing from the client for %.3f s, from %s to %s; its last frame at %s\n", quiet, rel(q0), rel(q1), rel(lastc)
        printf "from the server after the fault began: %d frames, %d of them requests sent again (RC retransmissions), the last frame at %s\n", \
          served, resent, rel(lasts)
        printf "%d calls sent again with the same XID on a new queue pair", again
        if (again) printf ", from %s to %s", rel(first), rel(last)
        printf "\n" }'
}

# witness_calls PCAP: one line per call of the witness, "CALL_MS REPLY_MS MILLISECONDS XID": its first
# frame from the witness to the first from the server with its XID
witness_calls() {
  tshark -r "$1" -Y rpcordma.xid -T fields -E separator=, -e frame.time_epoch -e ip.src -e rpcordma.xid 2>/dev/null \
    | awk -F, -v witness="$WITNESS_IP" '
      $2 == witness && !($3 in call) { call[$3] = $1 * 1000 }
      $2 != witness && ($3 in call) && !($3 in done) { done[$3] = 1
        printf "%.0f %.0f %.0f %s\n", call[$3], $1 * 1000, $1 * 1000 - call[$3], $3 }'
}

run_scenario() { # NAME RUNDIR
  local name=$1 dir=$2/$1 share socks ok=1 rc=0
  FAULT_RESULT=""
  mkdir -p "$dir"
  share=$dir/share
  socks=$SOCK_DIR/$name   # a unix socket path must stay short (108 bytes)
  CLEAN_PATHS+=("$share" "$socks.server" "$socks.client")
  mkdir -p "$share/jars"
  timed "$name: test data" make_data "$share/data"
  cp "$TESTBED_JAR" "$share/jars/testbed.jar"
  cp "$FABRIC_RC_JAR" "$share/jars/fabric-rc.jar"
  cp "$VERBS_JAR" "$share/jars/verbs.jar"
  cp "$EFA_VERBS_JAR" "$share/jars/efa-verbs.jar"
  cp "$FABRIC_EFA_VERBS_JAR" "$share/jars/fabric-efa-verbs.jar"
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
FAULT=$(scenario_field "$name" 5)
WITNESS_IP=$WITNESS_IP
EOF
  say "scenario $name: client $(scenario_field "$name" 1), server $(scenario_field "$name" 2)," \
    "mount options +'$(scenario_field "$name" 3)', client sysctls '$(scenario_field "$name" 4)'$(
    [ -z "$(scenario_field "$name" 5)" ] || echo ", fault $(scenario_field "$name" 5) with a witness")"
  # the guests, until their results are in: 0 passed, 1 failed, 2 gave up (the result line is in)
  if [ -n "$(scenario_field "$name" 5)" ]; then run_fault "$name" "$dir" "$share" "$socks" || rc=$?
  else run_pair "$name" "$dir" "$share" "$socks" || rc=$?; fi
  [ $rc = 2 ] && return 1
  [ $rc = 0 ] || ok=0
  if [ "$(scenario_field "$name" 2)" = efa ]; then
    # the Sends carry EFA RDM packets in the verbs device's frames, not RPC-over-RDMA: nothing to replay
    say "capture: $dir/$name.pcap ($(du -h "$dir/$name.pcap" 2>/dev/null | cut -f1)), EFA packets over RC: not replayed"
    # the client's 'bench efa --device verbs' beside ibv_rc_pingpong (guest.sh's bench_efa)
    tr -d '\r' < "$dir/client.log" | sed -n 's/.*RIG client bench: /  bench: /p' | while IFS= read -r line; do say "$line"; done
  elif [ -s "$dir/$name.pcap" ]; then
    say "capture: $dir/$name.pcap ($(du -h "$dir/$name.pcap" | cut -f1), $(capinfos -c -M "$dir/$name.pcap" 2>/dev/null | awk -F: '/Number of packets/{gsub(/ /,"",$2); print $2}') frames)"
    # a fault cuts calls off: their mismatches are looked at below (cut_by_fault)
    if timed "$name: testbed replay$([ -z "$(scenario_field "$name" 5)" ] || echo " (cut calls to check)")" \
        replay "$dir/$name.pcap" "$dir/replay.txt"; then
      say "  replay ok: $(tail -1 "$dir/replay.txt" | tr -s ' ')"
    else
      # every mismatch, not only the first, for whoever looks into it (and for cut_by_fault)
      replay "$dir/$name.pcap" "$dir/replay.json" --json || true
      if [ -n "$(scenario_field "$name" 5)" ] && cut_by_fault "$dir" "$(scenario_field "$name" 5)"; then
        say "  replay ok but for the fault's cut: $(tail -1 "$dir/replay.txt" | tr -s ' ')"
      else
        say "  replay FAILED:"; sed 's/^/    /' "$dir/replay.txt" | head -20
        say "  all mismatches: $dir/replay.json"
        ok=0
      fi
    fi
  else
    say "  no capture"; ok=0
  fi
  { guest_steps "$dir/server.log" server; guest_steps "$dir/client.log" client
    [ -s "$dir/witness.log" ] && guest_steps "$dir/witness.log" witness; } > "$dir/guest-steps.txt"
  mapfile -t -O ${#TIMINGS[@]} TIMINGS < "$dir/guest-steps.txt"
  if [ $ok = 1 ]; then RESULT_LINES+=("PASS $name ($dir)${FAULT_RESULT:+: $FAULT_RESULT}"); return 0; fi
  explain_failure "$dir" "$name" 2>&1 | tee "$dir/failure.txt"
  RESULT_LINES+=("FAIL $name ($dir)${FAULT_RESULT:+: $FAULT_RESULT}")
  return 1
}

# explain_failure DIR NAME: what a failed scenario's link and Soft-RoCE saw, so that the failure
# explains itself: both guests' rxe counters at the start and at the last reading, the RNR NAKs,
# NAKs and retransmitted requests on the wire, and the capture's last RoCE frames
explain_failure() {
  local dir=$1 name=$2 pcap=$1/$2.pcap role
  for role in server client witness; do
    [ -s "$dir/$role.log" ] || continue
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

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }

list() {
  local n
  printf '%-26s %-8s %-8s %-9s %-26s %s\n' scenario client server fault "mount options" "client sysctls"
  for n in $(scenario_names); do
    printf '%-26s %-8s %-8s %-9s %-26s %s\n' "$n" "$(scenario_field "$n" 1)" "$(scenario_field "$n" 2)" \
      "$(scenario_field "$n" 5)" "$(scenario_field "$n" 3)" "$(scenario_field "$n" 4)"
  done
  return 0
}

# The testbed's own demo over its two RDMA fabrics between the same guests in this run, when both ran:
# the RC fabric (testbed-to-testbed) and the EFA RDM protocol on the verbs device (efa-verbs). Small
# calls (the 2,000 CREATEs, one at a time) and the 64 MiB file's WRITE and READ (16 calls of 1 MiB in
# flight); the ratio is efa-verbs over RC, so above 1 is slower for the CREATEs, faster for the MiB/s.
fabric_comparison() {
  local rc=$1/testbed-to-testbed/client.log efa=$1/efa-verbs/client.log a b
  [ -s "$rc" ] && [ -s "$efa" ] || return 0
  read -r -a a <<< "$(demo_figures "$rc")"
  read -r -a b <<< "$(demo_figures "$efa")"
  echo "the demo on both RDMA fabrics (RC fabric / efa-verbs, ratio efa-verbs / RC):"
  awk -v c1="${a[0]}" -v c2="${b[0]}" -v w1="${a[1]}" -v w2="${b[1]}" -v r1="${a[2]}" -v r2="${b[2]}" 'BEGIN {
    ratio = "%.2f"
    printf "  2000 CREATEs     %8.1f s / %8.1f s (" ratio ")\n", c1, c2, (c1 > 0 ? c2 / c1 : 0)
    printf "  64 MiB WRITE     %5.1f MiB/s / %5.1f MiB/s (" ratio ")\n", w1, w2, (w1 > 0 ? w2 / w1 : 0)
    printf "  64 MiB READ      %5.1f MiB/s / %5.1f MiB/s (" ratio ")\n", r1, r2, (r1 > 0 ? r2 / r1 : 0) }'
}

demo_figures() { # LOG: the demo's "CREATE-SECONDS WRITE-MiB/s READ-MiB/s" of the 2,000 entries and the 64 MiB file
  tr -d '\r' < "$1" | awk '
    / demo: bigdir: / { for (i = 1; i <= NF; i++) if ($i == "created") c = $(i + 2) }
    / demo:   file-64MiB / { for (i = 1; i <= NF; i++) { if ($i == "WRITE") w = $(i + 1); if ($i == "READ") r = $(i + 1) } }
    END { print c + 0, w + 0, r + 0 }'
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
    fabric_comparison "$rundir"
  } | tee "$rundir/summary.txt"
  [ $failed = 0 ] || { say "FAILED"; exit 1; }
  say "all ${#selected[@]} scenario(s) passed"
}

main "$@"
