#!/bin/sh
# Installs podlimits-runc on the node the DaemonSet's pod runs on (daemonset.yaml mounts the
# host's /usr/local/bin at /host/bin and /etc/podlimits at /host/etc), labels the node with the
# features it declares (podlimits node-labels), then waits, so that the pod stays Running and a
# new image rolls out as a new DaemonSet revision.
#
# Every file is written beside its target and renamed over it: a runtime that starts
# podlimits-runc meanwhile finds the old binary or the new one, never a half-written one.
set -eu
install_file() {  # install_file SRC DEST MODE
  cp "$1" "$2.podlimits-new"
  chmod "$3" "$2.podlimits-new"
  mv -f "$2.podlimits-new" "$2"
}
# podlimits first: the front (podlimits-runc) hands creates to the podlimits beside it.
install_file /podlimits /host/bin/podlimits 0755
install_file /podlimits-runc /host/bin/podlimits-runc 0755
install_file /config/runc.yaml /host/etc/runc.yaml 0644
echo "podlimits-runc installed: /usr/local/bin/podlimits-runc, /etc/podlimits/runc.yaml"
/host/bin/podlimits-runc --version | sed 's/^/runtime: /'
# The features this node gives pods, as labels for the RuntimeClasses' nodeSelectors
# (deploy/webhook/50-runtimeclass.yaml); NODE_NAME comes from the downward API.
/podlimits node-labels --in-cluster --node "$NODE_NAME"
trap 'exit 0' TERM INT
while :; do sleep 3600 & wait $!; done
