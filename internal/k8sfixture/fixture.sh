#!/usr/bin/env bash
# fixture.sh starts and stops sweep's Kubernetes test fixture on this one
# machine: a real cluster built from source (Kubernetes, etcd, containerd,
# the CNI plugins and CoreDNS from the Go module proxy, cached by version
# outside the checkout by build.sh), K8S_NODES nodes (default 2), each a
# network namespace of its own with its containerd, kubelet and kube-proxy;
# the control plane (etcd, API server, controller manager, scheduler) runs in
# node 1's. A test cluster, not a production one: one etcd without fsync,
# certificates valid 30 days, no registry (images are loaded, never pulled).
#
# Usage (as root; `make k8s-up` / `make k8s-down` / `make k8s-load`):
#   fixture.sh up         build what the cache lacks, start the cluster, load
#                         the demo's images (or K8S_IMAGES), print the nodes
#                         and, last, `export KUBECONFIG=...`. Refused while a
#                         fixture is up or half made (run down first).
#   fixture.sh down       stop exactly what up started, by its pidfiles and
#                         cgroups, then remove the mounts, namespaces, links,
#                         routes, cgroups, CNI cache files and log links it
#                         made, restore the kernel settings the kubelet
#                         changed, and check that nothing is left. Safe when
#                         nothing is up.
#   fixture.sh load IMG.. copy local Docker images into every node's
#                         containerd (run pods with imagePullPolicy: Never).
#   fixture.sh check      exit 0 when nothing of the fixture is left.
#
# Environment: SWEEP_K8S_DIR (state, default /var/lib/sweep-k8s), K8S_NODES,
# K8S_IMAGES, SWEEP_CI_CACHE (default /var/cache/sweep-ci), and the versions
# in versions.sh.
set -Eeuo pipefail
trap 'say "failed: line $LINENO: $BASH_COMMAND"' ERR

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
PREFIX=sweepk8s
DIR="${SWEEP_K8S_DIR:-/var/lib/sweep-k8s}"
LOCK=/run/lock/$PREFIX.lock
START="$(date +%s%N)"
# a reader of the output that goes away (| head) must not stop a tear-down
# halfway: SIGPIPE is ignored and a failed progress line is no error
trap '' PIPE
say() { printf 'k8s-fixture: [%5.1fs] %s\n' "$(($(date +%s%N) - START))e-9" "$*" >&2 || true; }
die() {
	say "$*"
	exit 1
}

# shellcheck source=versions.sh
. "$HERE/versions.sh"
# shellcheck source=net.sh
. "$HERE/net.sh"
# shellcheck source=certs.sh
. "$HERE/certs.sh"
# shellcheck source=node.sh
. "$HERE/node.sh"

PAUSE_IMAGE="localhost/$PREFIX-pause:$PAUSE_VERSION"
COREDNS_IMAGE="localhost/$PREFIX-coredns:$COREDNS_VERSION"
PROBE_IMAGE="localhost/$PREFIX-probe:$PROBE_VERSION"
KUBECTL=("$K8S_BIN/kubectl" --kubeconfig "$DIR/admin.kubeconfig")
kubectl() { "${KUBECTL[@]}" "$@"; }

# the kernel settings the kubelet sets at start (it has no way to leave
# them): vm.overcommit_memory=1, kernel.panic=10, kernel.panic_on_oops=1,
# ...; up notes their values first and down puts them back
KUBELET_SYSCTLS=(vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops kernel/keys/root_maxkeys kernel/keys/root_maxbytes)
# machine-wide paths the kubelet and containerd's CNI library write to,
# whatever their configuration says: up notes which of them it makes
SHARED_DIRS=(/var/lib/cni /var/lib/cni/results /var/log/containers)

preflight() {
	[ "$(id -u)" -eq 0 ] || die "needs root: it makes network namespaces, links, cgroups, mounts and the cluster's processes"
	local t missing=()
	for t in ip nsenter setsid flock findmnt mountpoint umount openssl iptables runc docker base64 sysctl; do
		command -v "$t" >/dev/null || missing+=("$t")
	done
	[ ${#missing[@]} -eq 0 ] || die "missing ${missing[*]}: apt-get install -y iproute2 util-linux mount openssl iptables runc docker.io coreutils procps"
	[[ "$DIR" =~ ^/[A-Za-z0-9._/-]+$ ]] || die "SWEEP_K8S_DIR must be an absolute path without spaces: $DIR"
	[ ${#DIR} -le 30 ] || die "SWEEP_K8S_DIR is too long for containerd's shim sockets (at most 30 characters): $DIR"
	mkdir -p "${LOCK%/*}"
	exec 9>"$LOCK"
	flock 9
}

# up_already prints why the fixture counts as up or half made.
up_already() {
	local p
	[ ! -f "$DIR/k8s.json" ] || { echo "it is up ($DIR/k8s.json)"; return; }
	for p in "$DIR"/pids/*.pid; do
		[ -f "$p" ] || continue
		[ -z "$(proc_pid "$(basename "$p" .pid)")" ] || { echo "$(basename "$p" .pid) runs"; return; }
	done
	[ -z "$(ip netns list | awk '{print $1}' | grep -E "^$PREFIX-" || true)" ] || { echo "its namespaces exist"; return; }
	[ -z "$(fixture_cgroups)" ] || { echo "its cgroups exist"; return; }
	[ ! -f "$DIR/.sweep-k8s" ] || { echo "a set-up did not finish or a tear-down did not run ($DIR)"; return; }
}

# images_built: the pause and CoreDNS images as Docker archives in the cache,
# made once with `docker import` of a one-file root (then removed from the
# main engine again).
build_image() {
	local ref="$1" bin="$2" tar="$3" root
	[ -s "$tar" ] && return 0
	root="$(mktemp -d /tmp/k8sfixture-img.XXXXXX)"
	cp "$K8S_BIN/$bin" "$root/$bin"
	tar -C "$root" -c . | docker import -c "ENTRYPOINT [\"/$bin\"]" - "$ref" >/dev/null
	docker save -o "$tar.new" "$ref"
	docker rmi "$ref" >/dev/null
	mv "$tar.new" "$tar"
	rm -rf "$root"
	say "made image $ref ($tar)"
}

# wanted_images: K8S_IMAGES, or the demo's images (make demo-images).
wanted_images() {
	if [ -n "${K8S_IMAGES:-}" ]; then
		tr ' ' '\n' <<<"$K8S_IMAGES" | grep . || true
	elif [ -f "$REPO/compose/demo/.env" ]; then
		grep -E '^SWEEP_DEMO_[A-Z]+_IMAGE=' "$REPO/compose/demo/.env" | cut -d= -f2- | grep . || true
	fi
}

# import_tar N TAR: import a Docker archive into every node's containerd, in parallel.
import_tar() {
	local n="$1" tar="$2" i pids=() p
	for ((i = 1; i <= n; i++)); do
		nctr "$i" images import --no-unpack=false "$tar" >/dev/null &
		pids+=("$!")
	done
	for p in "${pids[@]}"; do wait "$p" || return 1; done
}

# load_docker_images N IMG...: docker save the images once, import everywhere.
load_docker_images() {
	local n="$1" tar="$DIR/images.tar"
	shift
	[ $# -gt 0 ] || return 0
	docker image inspect "$@" >/dev/null || die "an image of $* is not on the local Docker engine"
	docker save -o "$tar" "$@"
	import_tar "$n" "$tar" || die "importing $* into the nodes failed"
	rm -f "$tar"
	say "loaded $* into $n nodes"
}

node_count() { sed -n 's/^SWEEP_K8S_NODES=//p' "$DIR/k8s.env" 2>/dev/null; }

note_shared_dirs() {
	local p
	[ -f "$DIR/made-dirs" ] && return 0
	: >"$DIR/made-dirs"
	for p in "${SHARED_DIRS[@]}"; do [ -e "$p" ] || echo "$p" >>"$DIR/made-dirs"; done
}

note_sysctls() {
	local s
	[ -f "$DIR/sysctl.orig" ] && return 0
	for s in "${KUBELET_SYSCTLS[@]}"; do echo "$s $(cat "/proc/sys/$s")"; done >"$DIR/sysctl.orig.new"
	mv "$DIR/sysctl.orig.new" "$DIR/sysctl.orig"
}

cmd_up() {
	local n="${K8S_NODES:-2}" i why imgs
	if ! [[ "$n" =~ ^[1-9]$ ]]; then die "K8S_NODES must be 1..9, not $n"; fi
	why="$(up_already)"
	[ -z "$why" ] || die "the Kubernetes fixture is already up or half made: $why. Run make k8s-down first (nothing was changed)."
	check_ranges "$n"
	mapfile -t imgs < <(wanted_images)
	[ ${#imgs[@]} -eq 0 ] || docker image inspect "${imgs[@]}" >/dev/null 2>&1 ||
		die "an image of ${imgs[*]} is not on the local Docker engine: run make demo-images (or set K8S_IMAGES)"
	bash "$HERE/build.sh" --check >/dev/null || bash "$HERE/build.sh"
	mkdir -p "$K8S_BIN/images"
	build_image "$PAUSE_IMAGE" pause "$K8S_BIN/images/pause-$PAUSE_VERSION.tar"
	build_image "$COREDNS_IMAGE" coredns "$K8S_BIN/images/coredns-$COREDNS_VERSION.tar"
	build_image "$PROBE_IMAGE" probe "$K8S_BIN/images/probe-$PROBE_VERSION.tar"

	mkdir -p "$DIR"
	touch "$DIR/.sweep-k8s"
	[ ! -d "$DIR/logs" ] || { rm -rf "$DIR/logs.prev"; mv "$DIR/logs" "$DIR/logs.prev"; }
	mkdir -p "$DIR/logs" "$DIR/pids"
	note_shared_dirs
	note_sysctls
	for ((i = 1; i <= n; i++)); do mkdir -p "$DIR/node$i"; done
	net_up "$n"
	make_certs "$n"
	say "network and certificates ready"

	start_etcd
	for ((i = 1; i <= n; i++)); do
		write_node_config "$i"
		start_containerd "$i"
	done
	wait_for etcd 30 in_node 1 "$K8S_BIN/etcd" --version
	wait_for etcd 30 in_node 1 bash -c 'exec 3<>/dev/tcp/127.0.0.1/2379'
	start_apiserver
	for ((i = 1; i <= n; i++)); do wait_for "containerd on node$i" 30 nctr "$i" version; done
	import_tar "$n" "$K8S_BIN/images/pause-$PAUSE_VERSION.tar"
	import_tar "$n" "$K8S_BIN/images/coredns-$COREDNS_VERSION.tar"
	import_tar "$n" "$K8S_BIN/images/probe-$PROBE_VERSION.tar"
	say "containerd up on $n nodes, pause, CoreDNS and probe images loaded"
	wait_for "the API server" 60 kubectl get --raw /readyz
	say "API server ready"
	start_controllers
	for ((i = 1; i <= n; i++)); do
		start_kubelet "$i"
		start_kube_proxy "$i"
	done
	sed -e "s|@COREDNS_IMAGE@|$COREDNS_IMAGE|g" -e "s|@DNS_IP@|$SERVICE_IP_DNS|g" "$HERE/addons.yaml" |
		kubectl apply -f - >/dev/null
	[ ${#imgs[@]} -eq 0 ] || load_docker_images "$n" "${imgs[@]}"
	for ((i = 1; i <= n; i++)); do
		wait_for "node$i registering" 60 kubectl get node "$(node_name "$i")"
	done
	kubectl wait --for=condition=Ready node --all --timeout=60s >/dev/null || die "nodes not Ready within 60 s (logs: $DIR/logs)"
	say "$n nodes Ready"
	kubectl -n kube-system rollout status deployment/coredns --timeout=60s >/dev/null || die "CoreDNS not ready within 60 s"
	wait_for "the default service account" 30 kubectl -n default get serviceaccount default
	say "CoreDNS ready"
	write_state "$n"
	print_summary "$n"
}

write_state() {
	local n="$1" i sep="" json env
	json="{\"dir\":\"$DIR\",\"kubeconfig\":\"$DIR/admin.kubeconfig\",\"server\":\"https://$(node_addr 1):6443\","
	json+="\"version\":\"$K8S_VERSION\",\"cluster_cidr\":\"$CLUSTER_CIDR\",\"service_cidr\":\"$SERVICE_CIDR\",\"dns\":\"$SERVICE_IP_DNS\",\"probe_image\":\"$PROBE_IMAGE\",\"nodes\":["
	env="SWEEP_K8S_DIR=$DIR"$'\n'"KUBECONFIG=$DIR/admin.kubeconfig"$'\n'"SWEEP_K8S_NODES=$n"$'\n'"SWEEP_K8S_PROBE_IMAGE=$PROBE_IMAGE"$'\n'
	for ((i = 1; i <= n; i++)); do
		json+="$sep{\"index\":$i,\"name\":\"$(node_name "$i")\",\"addr\":\"$(node_addr "$i")\",\"netns\":\"$(node_ns "$i")\","
		json+="\"pod_cidr\":\"$(pod_cidr "$i")\",\"control_plane\":$([ "$i" -eq 1 ] && echo true || echo false)}"
		env+="SWEEP_K8S_NODE${i}_NAME=$(node_name "$i")"$'\n'"SWEEP_K8S_NODE${i}_ADDR=$(node_addr "$i")"$'\n'
		sep=,
	done
	printf '%s\n' "$json]}" >"$DIR/k8s.json.new"
	printf '%s' "$env" >"$DIR/k8s.env"
	mv "$DIR/k8s.json.new" "$DIR/k8s.json"
}

print_summary() {
	local n="$1" i
	for ((i = 1; i <= n; i++)); do
		printf '%s addr=%s pods=%s netns=%s%s\n' "$(node_name "$i")" "$(node_addr "$i")" "$(pod_cidr "$i")" \
			"$(node_ns "$i")" "$([ "$i" -eq 1 ] && echo " control-plane" || true)"
	done
	echo "state: $DIR/k8s.json $DIR/k8s.env (Kubernetes $K8S_VERSION, API https://$(node_addr 1):6443)"
	echo "kubectl: $K8S_BIN/kubectl (logs: $DIR/logs)"
	echo "export KUBECONFIG=$DIR/admin.kubeconfig"
}

# stop NAME...: SIGTERM the named processes (by pidfile), wait up to 3 s,
# then SIGKILL. The API server logs its whole shutdown within a second of
# SIGTERM and then does not exit (seen for 10 s and more); the cluster's
# state is thrown away, so nothing is lost by not waiting for it.
stop() {
	local name pid pids=() t left
	for name in "$@"; do
		pid="$(proc_pid "$name")"
		[ -n "$pid" ] || continue
		kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
	done
	[ ${#pids[@]} -gt 0 ] || return 0
	for ((t = 0; t < 30; t++)); do
		left=()
		for pid in "${pids[@]}"; do alive "$pid" && left+=("$pid"); done
		[ ${#left[@]} -eq 0 ] && return 0
		sleep 0.1
	done
	say "still up 3 s after SIGTERM, killing: $(for pid in "${left[@]}"; do printf '%s(%s) ' "$(cat "/proc/$pid/comm" 2>/dev/null)" "$pid"; done)"
	kill -KILL "${left[@]}" 2>/dev/null || true
}

# end_cgroup_pids: SIGKILL whatever is left in the fixture's cgroups
# (shims, containers: the pods are thrown away), and wait up to 5 s.
end_cgroup_pids() {
	local pids t
	mapfile -t pids < <(cgroup_pids)
	[ ${#pids[@]} -eq 0 ] && return 0
	kill -KILL "${pids[@]}" 2>/dev/null || true
	for ((t = 0; t < 50; t++)); do
		[ -z "$(cgroup_pids)" ] && break
		sleep 0.1
	done
	[ -z "$(cgroup_pids)" ] || die "processes $(cgroup_pids | paste -sd' ') outlived SIGKILL"
	say "killed ${#pids[@]} processes left in the fixture's cgroups"
}

unmount_leftovers() {
	local m k=0
	for m in $(findmnt -rn -o TARGET | { grep -F "$DIR/" || true; } | awk '{print length, $0}' | sort -rn | cut -d' ' -f2-); do
		umount "$m" 2>/dev/null || umount -l "$m"
		k=$((k + 1))
	done
	[ "$k" -eq 0 ] || say "unmounted $k mounts under $DIR"
}

remove_cgroups() {
	local -a cgs
	local t
	for ((t = 1; t <= 50; t++)); do
		mapfile -t cgs < <(fixture_cgroups)
		[ ${#cgs[@]} -eq 0 ] && return 0
		find "${cgs[@]}" -depth -type d -exec rmdir {} + 2>/dev/null && return 0
		sleep 0.1
	done
	mapfile -t cgs < <(fixture_cgroups)
	[ ${#cgs[@]} -eq 0 ] || find "${cgs[@]}" -depth -type d -exec rmdir {} +
}

# remove_shared_files: the CNI library's cache files of the fixture's pods
# (containerd's go-cni keeps them in /var/lib/cni/results whatever its
# configuration says; ours name a network namespace under $DIR), the
# kubelet's log links into $DIR, and the shared folders up made.
remove_shared_files() {
	local f d
	for f in /var/lib/cni/results/*; do
		[ -f "$f" ] && grep -qF "\"netns\":\"$DIR/" "$f" && rm -f "$f"
	done
	for f in /var/log/containers/*.log; do
		[ -L "$f" ] || continue
		[[ "$(readlink "$f")" == "$DIR/"* ]] && rm -f "$f"
	done
	[ -f "$DIR/made-dirs" ] || return 0
	for d in $(tac "$DIR/made-dirs"); do
		rmdir "$d" 2>/dev/null || [ ! -e "$d" ] || say "left $d: it holds files the fixture did not make"
	done
	rm -f "$DIR/made-dirs"
}

restore_sysctls() {
	local s v
	[ -f "$DIR/sysctl.orig" ] || return 0
	while read -r s v; do
		[ "$(cat "/proc/sys/$s")" = "$v" ] || { echo "$v" >"/proc/sys/$s"; say "restored ${s//\//.} = $v"; }
	done <"$DIR/sysctl.orig"
	rm -f "$DIR/sysctl.orig"
}

cmd_down() {
	local names
	rm -f "$DIR/k8s.json"
	# every daemon but etcd at once (the cluster's state is thrown away, so
	# no orderly drain), then etcd (the API server's shutdown writes to it,
	# and retries for good when it is gone), then whatever the runtimes
	# leave (shims, containers)
	mapfile -t names < <(cd "$DIR/pids" 2>/dev/null && ls | sed -n 's/\.pid$//p' | grep -vx etcd)
	stop "${names[@]}"
	stop etcd
	say "stopped ${#names[@]} daemons and etcd"
	end_cgroup_pids
	unmount_leftovers
	net_down
	remove_cgroups
	remove_shared_files
	restore_sysctls
	if [ -f "$DIR/.sweep-k8s" ]; then
		# the logs stay, for a look after a failed run; all else goes
		find "$DIR" -mindepth 1 -maxdepth 1 ! -name logs ! -name logs.prev -exec rm -rf --one-file-system {} +
	fi
	cmd_check
	echo "k8s fixture down"
}

# cmd_check fails when anything of the fixture is left outside $DIR/logs*.
cmd_check() {
	local left="" s v r
	[ -z "$(cgroup_pids)" ] || left+=" processes $(cgroup_pids | paste -sd' ')"
	for r in "$DIR"/pids/*.pid; do [ ! -f "$r" ] || [ -z "$(proc_pid "$(basename "$r" .pid)")" ] || left+=" $(basename "$r" .pid)"; done
	[ -z "$(fixture_cgroups)" ] || left+=" cgroups $(fixture_cgroups | paste -sd' ')"
	! findmnt -rn -o TARGET | grep -qF "$DIR/" || left+=" mounts under $DIR"
	! ip netns list | grep -q "^$PREFIX-" || left+=" namespaces"
	! ip -o link show | grep -q ": $PREFIX-r[0-9]*[:@]" || left+=" links"
	! ip -4 route show | grep -qE '^10\.(79|80|244)\.' || left+=" routes"
	! iptables-save 2>/dev/null | grep -qE '10\.(79|80|244|96)\.|KUBE-' || left+=" iptables rules in the root namespace"
	! grep -lsF "\"netns\":\"$DIR/" /var/lib/cni/results/* >/dev/null || left+=" CNI cache files"
	for r in /var/log/containers/*.log; do [ ! -L "$r" ] || [[ "$(readlink "$r")" != "$DIR/"* ]] || { left+=" log links"; break; }; done
	if [ -f "$DIR/sysctl.orig" ]; then
		while read -r s v; do [ "$(cat "/proc/sys/$s")" = "$v" ] || left+=" sysctl $s"; done <"$DIR/sysctl.orig"
	fi
	[ -z "$(find "$DIR" -mindepth 1 -maxdepth 1 ! -name logs ! -name logs.prev 2>/dev/null)" ] || left+=" files in $DIR"
	[ -z "$left" ] || die "left behind:$left"
}

cmd_load() {
	local n
	[ -f "$DIR/k8s.json" ] || die "the Kubernetes fixture is not up: run make k8s-up first"
	n="$(node_count)"
	[ $# -gt 0 ] || die "usage: make k8s-load IMAGES=\"image:tag ...\""
	load_docker_images "$n" "$@"
}

main() {
	local cmd="${1:-}"
	shift || true
	case "$cmd" in
	up)
		preflight
		# a failed set-up leaves what it made, for a look at the logs;
		# down removes it
		trap 'rc=$?; [ "$rc" -eq 0 ] || [ ! -f "$DIR/.sweep-k8s" ] || [ -f "$DIR/k8s.json" ] || say "set-up failed; logs in $DIR/logs; make k8s-down removes what it made"' EXIT
		cmd_up
		;;
	down) preflight && cmd_down ;;
	load) preflight && cmd_load "$@" ;;
	check) cmd_check && echo "nothing of the k8s fixture is left" ;;
	*)
		echo "usage: $0 up|down|load IMAGE...|check" >&2
		exit 2
		;;
	esac
}

[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
