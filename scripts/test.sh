#!/usr/bin/env bash
# The test command of the README: every module's tests, then the interop rig's default scenarios over
# Soft-RoCE in QEMU guests (the Linux kernel NFS client against `testbed serve`, the testbed's client
# against Linux's nfsd and against `testbed serve`; interop/README.md).
# The tests run on a JDK 22 or newer when this machine has one (the verbs module needs the FFM API;
# Temurin 25 on these machines), else on the default JDK, which leaves verbs out and says so; the rig
# then refuses to run, saying why, since it needs the verbs module.
# UdpUnderLossBetweenNamespacesTest (testbed) drops datagrams with nftables in network namespaces: it needs
# root, iproute2 and nft, which this script installs (Debian's nftables) when missing; where it cannot,
# it says so and that test fails with the reason.
# DemoPcapTest (testbed) has tshark's RPC-over-RDMA and NFS dissectors decode what `--pcap` writes: it
# needs tshark, which this script installs (Debian's tshark) when missing; without it that test fails,
# unless run with -Drpcrdma4j.tshark=optional.
set -euo pipefail
cd "$(dirname "$0")/.."

feature() { # the feature release of the JDK at $1, or 0
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null || echo 0
}

if [ -z "${JAVA_HOME:-}" ] || [ "$(feature "$JAVA_HOME")" -lt 22 ]; then
  for jdk in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
    if [ -f "$jdk/release" ] && [ "$(feature "$jdk")" -ge 22 ]; then
      export JAVA_HOME="$jdk"
      break
    fi
  done
fi
if [ -n "${JAVA_HOME:-}" ] && [ "$(feature "$JAVA_HOME")" -ge 22 ]; then
  echo "scripts/test.sh: building and testing with the JDK at $JAVA_HOME"
else
  echo "scripts/test.sh: no JDK 22 or newer found (JAVA_HOME or /usr/lib/jvm): the verbs module is left out" >&2
fi
if ! command -v nft >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "scripts/test.sh: installing nftables (UdpUnderLossBetweenNamespacesTest drops datagrams with nft)"
    # other processes may hold the dpkg lock for a while: wait for it rather than fail
    apt-get -o DPkg::Lock::Timeout=600 update -q
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends nftables
  else
    echo "scripts/test.sh: no nft, and not root with apt-get to install nftables: UdpUnderLossBetweenNamespacesTest will fail" >&2
  fi
fi
if ! command -v tshark >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "scripts/test.sh: installing tshark (DemoPcapTest has it decode a capture written by --pcap)"
    apt-get -o DPkg::Lock::Timeout=600 update -q
    # noninteractive: debconf's question about non-root capture takes its default (no)
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends tshark
  else
    echo "scripts/test.sh: no tshark, and not root with apt-get to install it: DemoPcapTest will fail" >&2
  fi
fi
mvn -B verify "$@"
echo "scripts/test.sh: the unit tests passed; now the interop rig (interop/run.sh)"
interop/run.sh
