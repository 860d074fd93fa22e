# Versions of the Kubernetes fixture's parts (sourced by the scripts). The
# cache folder is keyed by the Kubernetes version; each binary in it carries
# a stamp of its own version, so changing one rebuilds only that one.
K8S_VERSION=${K8S_VERSION:-v1.37.2}
ETCD_VERSION=${ETCD_VERSION:-v3.6.8}
CONTAINERD_VERSION=${CONTAINERD_VERSION:-v2.4.2}
CNI_VERSION=${CNI_VERSION:-v1.9.1}
COREDNS_VERSION=${COREDNS_VERSION:-v1.14.7}
# the fixture's own programs (pause, probe) are keyed by their source
_k8sfixture_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PAUSE_VERSION=$(sha256sum <"$_k8sfixture_dir/pause/main.go" | cut -c1-12)
PROBE_VERSION=$(sha256sum <"$_k8sfixture_dir/probe/main.go" | cut -c1-12)
SWEEP_CI_CACHE=${SWEEP_CI_CACHE:-/var/cache/sweep-ci}
K8S_BIN=${K8S_BIN:-$SWEEP_CI_CACHE/k8s-$K8S_VERSION}
