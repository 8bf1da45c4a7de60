#!/bin/sh
# Takes the struct layouts, constants and status strings the verbs module checks its Java code
# against, from rdma-core's own headers and libraries. Run by hand (not by the build) after
#   apt-get install gcc libibverbs-dev librdmacm-dev     # rdma-core 44.0 on Debian bookworm (efadv.h too)
# and commit the output file. The tests read it (StructLayoutTest, ConstantsTest).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
version=$(dpkg-query -W -f '${Version}' libibverbs-dev 2>/dev/null || echo unknown)
arch=$(uname -m)
out="$here/rdma-core-44.$arch.txt"
case "$version" in
  44.*) ;;
  *) echo "take-layouts.sh: libibverbs-dev is $version, not 44.x; the file name says 44" >&2; exit 1 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -Wall -Werror -o "$tmp/layouts" "$here/layouts.c" -libverbs -lrdmacm
{
  echo "# rdma-core $version ($arch), taken by take-layouts.sh from layouts.c; do not edit"
  "$tmp/layouts"
} > "$out"
echo "wrote $out ($(grep -vc '^#' "$out") lines)"
