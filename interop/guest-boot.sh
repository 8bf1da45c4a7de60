#!/bin/sh
# /init of both interop guests, baked into the cached guest image (part of its cache key).
# It only mounts the rig's read-only 9p share and hands over to /rig/guest.sh, which run.sh
# writes afresh for every run, so changing a scenario never rebuilds the image.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo 1 > /proc/sys/kernel/sysrq
modprobe virtio_pci
modprobe 9pnet_virtio
modprobe 9p
mkdir -p /rig
# the virtio device may still be probing right after modprobe: retry for a few seconds
for i in 1 2 3 4 5 6 7 8 9 10; do
  mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 rig /rig 2>/dev/null && break
  sleep 0.5
done
[ -r /rig/guest.sh ] && exec /bin/bash /rig/guest.sh
echo "RIG boot 0 RIG-FATAL the rig share (9p tag 'rig') could not be mounted"
echo o > /proc/sysrq-trigger
sleep 60
