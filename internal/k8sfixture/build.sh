#!/usr/bin/env bash
# Build the Kubernetes fixture's binaries from the Go module proxy into a
# cache outside the checkout, keyed by version (as .ci/run does for the
# compose plugin). Each binary is built only when its stamp is missing, in a
# throwaway module in a temp dir, niced, with at most two parallel compiles.
#
#   build.sh            build what is missing
#   build.sh --check    exit 0 when nothing is missing
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.sh"

check=
[ "${1:-}" = --check ] && check=1

export GOFLAGS=${GOFLAGS:--p=2}
export CGO_ENABLED=0
NICE=(nice -n 19)

mkdir -p "$K8S_BIN"

# have NAME VERSION: the binary and its stamp are both there
have() { [ -x "$K8S_BIN/$1" ] && [ "$(cat "$K8S_BIN/.$1.version" 2>/dev/null)" = "$2" ]; }
stamp() { echo "$2" >"$K8S_BIN/.$1.version"; }

missing=()
for b in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl; do
  have "$b" "$K8S_VERSION" || missing+=("$b")
done
have etcd "$ETCD_VERSION" || missing+=(etcd)
for b in containerd containerd-shim-runc-v2 ctr; do have "$b" "$CONTAINERD_VERSION" || missing+=("$b"); done
for b in bridge host-local loopback portmap; do have "cni-$b" "$CNI_VERSION" || missing+=("cni-$b"); done
have coredns "$COREDNS_VERSION" || missing+=(coredns)
have pause "$PAUSE_VERSION" || missing+=(pause)
have probe "$PROBE_VERSION" || missing+=(probe)

if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ -n "$check" ]; then echo "missing: ${missing[*]}"; exit 1; fi
echo "k8s fixture: building ${missing[*]} into $K8S_BIN (niced; the Kubernetes binaries take ~25 min on 2 cores)"

want() { local m; for m in "${missing[@]}"; do [ "$m" = "$1" ] && return 0; done; return 1; }

# throwaway: a temp module; runs the given commands in it, then removes it
# (removed by the EXIT trap when a build fails: the subshell runs under set
# -e, which an `|| cleanup` after it would switch off inside it)
TMPMODS=()
trap 'rm -rf "${TMPMODS[@]}"' EXIT
tmpmod() {
  local d
  d=$(mktemp -d /tmp/k8sfixture-build.XXXXXX)
  TMPMODS+=("$d")
  (cd "$d" && go mod init throwaway >/dev/null 2>&1 && "$@")
  rm -rf "$d"
}

t0=$(date +%s)
took() { echo "k8s fixture: built $1 in $(( $(date +%s) - $2 )) s"; }

# --- etcd: server/v3's etcdmain.Main from a three-line main ---
build_etcd() {
  cat >main.go <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >/dev/null
  go mod tidy >/dev/null
  "${NICE[@]}" go build -trimpath -o "$K8S_BIN/etcd" .
}
if want etcd; then s=$(date +%s); tmpmod build_etcd; stamp etcd "$ETCD_VERSION"; took etcd "$s"; fi

# --- containerd, its runc shim and ctr (CGO off) ---
build_containerd() {
  local m=github.com/containerd/containerd/v2
  go get "$m/cmd/containerd@$CONTAINERD_VERSION" "$m/cmd/containerd-shim-runc-v2@$CONTAINERD_VERSION" "$m/cmd/ctr@$CONTAINERD_VERSION" >/dev/null
  local ld="-X $m/version.Version=$CONTAINERD_VERSION"
  for b in containerd containerd-shim-runc-v2 ctr; do
    "${NICE[@]}" go build -trimpath -ldflags "$ld" -o "$K8S_BIN/$b" "$m/cmd/$b"
  done
}
if want containerd || want ctr || want containerd-shim-runc-v2; then
  s=$(date +%s); tmpmod build_containerd
  for b in containerd containerd-shim-runc-v2 ctr; do stamp "$b" "$CONTAINERD_VERSION"; done
  took containerd "$s"
fi

# --- CNI plugins: bridge, host-local IPAM, loopback, portmap ---
build_cni() {
  local m=github.com/containernetworking/plugins
  go get "$m/plugins/main/bridge@$CNI_VERSION" "$m/plugins/main/loopback@$CNI_VERSION" \
    "$m/plugins/ipam/host-local@$CNI_VERSION" "$m/plugins/meta/portmap@$CNI_VERSION" >/dev/null
  "${NICE[@]}" go build -trimpath -o "$K8S_BIN/cni-bridge" "$m/plugins/main/bridge"
  "${NICE[@]}" go build -trimpath -o "$K8S_BIN/cni-loopback" "$m/plugins/main/loopback"
  "${NICE[@]}" go build -trimpath -o "$K8S_BIN/cni-host-local" "$m/plugins/ipam/host-local"
  "${NICE[@]}" go build -trimpath -o "$K8S_BIN/cni-portmap" "$m/plugins/meta/portmap"
}
if want cni-bridge || want cni-host-local || want cni-loopback || want cni-portmap; then
  s=$(date +%s); tmpmod build_cni
  for b in bridge host-local loopback portmap; do stamp "cni-$b" "$CNI_VERSION"; done
  took cni "$s"
fi

# --- pause (the sandbox's process) and probe (the checks' in-cluster
# client), from this repo (stdlib only) ---
for p in pause probe; do
  if want "$p"; then
    s=$(date +%s)
    (cd "$here/$p" && "${NICE[@]}" go build -trimpath -ldflags "-s -w" -o "$K8S_BIN/$p" .)
    v=PAUSE_VERSION; [ "$p" = probe ] && v=PROBE_VERSION
    stamp "$p" "${!v}"; took "$p" "$s"
  fi
done

# --- Kubernetes: k8s.io/kubernetes with its staging modules replaced by
# their published k8s.io/<name> v0.x versions (the "=> ./staging" lines of
# its go.mod; in the module zip they have no source) ---
build_kube() {
  local kv=$K8S_VERSION sv=v0.${K8S_VERSION#v1.}
  go mod download "k8s.io/kubernetes@$kv"
  local gomod
  gomod=$(go mod download -json "k8s.io/kubernetes@$kv" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
  local r=()
  while read -r name; do r+=("-replace=$name=$name@$sv"); done < <(sed -n 's/^[[:space:]]*\(k8s.io\/[^ ]*\) => \.\/staging.*/\1/p' "$gomod")
  echo "k8s fixture: ${#r[@]} staging modules replaced by $sv"
  go mod edit "${r[@]}"
  go get "k8s.io/kubernetes@$kv" >/dev/null
  local ld="-s -w -X k8s.io/component-base/version.gitVersion=$kv -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(echo "$kv" | cut -d. -f2) -X k8s.io/component-base/version.gitTreeState=clean"
  for b in "$@"; do
    local s; s=$(date +%s)
    # go get of each main package adds what it needs to the throwaway go.mod
    go get "k8s.io/kubernetes/cmd/$b@$kv" >/dev/null
    "${NICE[@]}" go build -trimpath -ldflags "$ld" -o "$K8S_BIN/$b" "k8s.io/kubernetes/cmd/$b"
    stamp "$b" "$K8S_VERSION"; took "$b" "$s"
  done
}
kube=()
for b in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl; do want "$b" && kube+=("$b"); done
if [ ${#kube[@]} -gt 0 ]; then tmpmod build_kube "${kube[@]}"; fi

# --- CoreDNS ---
build_coredns() {
  go get "github.com/coredns/coredns@$COREDNS_VERSION" >/dev/null
  "${NICE[@]}" go build -trimpath -ldflags "-s -w" -o "$K8S_BIN/coredns" github.com/coredns/coredns
}
if want coredns; then s=$(date +%s); tmpmod build_coredns; stamp coredns "$COREDNS_VERSION"; took coredns "$s"; fi

echo "k8s fixture: build done in $(( $(date +%s) - t0 )) s"
