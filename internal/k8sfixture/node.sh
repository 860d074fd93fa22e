# node.sh: the fixture's processes, sourced by fixture.sh.
#
# Every process runs in a node's network namespace (the control plane in
# node 1's), entered with nsenter, started in a session of its own with the
# fixture's binaries first in PATH, its PID in $DIR/pids/<name>.pid and its
# log in $DIR/logs/<name>.log. The node daemons (containerd and its shims,
# kubelet, kube-proxy) sit in the pids cgroup /sweepk8s-node<i>/daemons, the
# control plane in /sweepk8s-cp, and the pods in /sweepk8s-node<i>/kubepods
# (the kubelet's cgroupRoot) in every hierarchy: whatever outlives its
# parent is found by cgroup, provably the fixture's, never by process name.

# cg_track prints the hierarchy that holds the tracking cgroups: the unified
# one on cgroup v2, pids on v1.
cg_track() {
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		echo /sys/fs/cgroup
	else
		echo /sys/fs/cgroup/pids
	fi
}

# fixture_cgroups prints every cgroup directory of the fixture, in every
# hierarchy.
fixture_cgroups() {
	find /sys/fs/cgroup -maxdepth 2 -type d -name "$PREFIX-*" 2>/dev/null || true
}

# cgroup_pids prints the processes in the fixture's cgroups.
cgroup_pids() {
	local c
	for c in $(fixture_cgroups); do
		find "$c" -name cgroup.procs -exec cat {} + 2>/dev/null
	done | sort -un
}

# make_node_cgroup I makes /sweepk8s-node<I> in every hierarchy (the
# kubelet's cgroupRoot must exist), with the cpuset of the root on v1.
make_node_cgroup() {
	local cg="$PREFIX-node$1" h
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		mkdir -p "/sys/fs/cgroup/$cg"
		return
	fi
	for h in /sys/fs/cgroup/*/; do
		h="${h%/}"
		[ -L "$h" ] && continue
		[ -f "$h/cgroup.procs" ] || continue
		mkdir -p "$h/$cg"
		if [ -f "$h/cpuset.cpus" ]; then
			[ -n "$(cat "$h/$cg/cpuset.cpus")" ] || cat "$h/cpuset.cpus" >"$h/$cg/cpuset.cpus"
			[ -n "$(cat "$h/$cg/cpuset.mems")" ] || cat "$h/cpuset.mems" >"$h/$cg/cpuset.mems"
		fi
	done
}

# proc_pid NAME prints the PID in NAME's pidfile when that process is alive
# and was started by this fixture (its command line names $DIR).
proc_pid() {
	local pid
	pid="$(cat "$DIR/pids/$1.pid" 2>/dev/null)" || return 0
	[[ "$pid" =~ ^[0-9]+$ ]] || return 0
	alive "$pid" || return 0
	{ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -qF -- "$DIR/" && echo "$pid"
	return 0
}

# alive PID is true while the process exists and is not a zombie.
# (builtins only: stop calls it for every daemon ten times a second)
alive() {
	local st
	{ read -r st <"/proc/$1/stat"; } 2>/dev/null || return 1
	st="${st##*) }"
	st="${st%% *}"
	[ -n "$st" ] && [ "$st" != Z ]
}

# launch NAME NODE CGROUP CMD...: start CMD in node NODE's namespace, in
# tracking cgroup CGROUP (relative to cg_track), unless it runs already.
# Every inherited descriptor but stdio is closed first (a caller's lock
# would otherwise stay held while the fixture is up); stderr is then pointed
# at the log again (the loop's own 2>/dev/null sticks once exec runs in it).
launch() {
	local name="$1" i="$2" cg="$(cg_track)/$3"
	shift 3
	[ -n "$(proc_pid "$name")" ] && return 0
	mkdir -p "$cg" "$DIR/pids" "$DIR/logs"
	env -i PATH="$K8S_BIN:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" HOME="$DIR" setsid bash -c \
		'for f in /proc/$$/fd/*; do f="${f##*/}"; [ "$f" -le 2 ] || eval "exec $f>&-"; done 2>/dev/null
		exec 2>&1; echo $$ >"$1/cgroup.procs"; ns="$2"; shift 2; exec nsenter --net="/var/run/netns/$ns" "$@"' \
		_ "$cg" "$(node_ns "$i")" "$@" </dev/null >>"$DIR/logs/$name.log" 2>&1 &
	echo "$!" >"$DIR/pids/$name.pid"
}

# wait_for WHAT SECONDS CMD...: poll CMD every 0.2 s until it succeeds.
wait_for() {
	local what="$1" secs="$2" t
	shift 2
	for ((t = 0; t < secs * 5; t++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	die "$what did not come up within $secs s (logs: $DIR/logs)"
}

# --- control plane (node 1's namespace) ---

start_etcd() {
	mkdir -p "$DIR/etcd"
	chmod 700 "$DIR/etcd"
	launch etcd 1 "$PREFIX-cp" etcd --name sweepk8s --data-dir "$DIR/etcd" \
		--listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
		--listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
		--initial-cluster sweepk8s=http://127.0.0.1:2380 --unsafe-no-fsync --log-level warn
}

# The request-header flags only give the controller manager and scheduler
# the client CA they look for (no front proxy has a certificate named
# front-proxy-client here); without them they log an error a second.
start_apiserver() {
	launch kube-apiserver 1 "$PREFIX-cp" kube-apiserver \
		--advertise-address="$(node_addr 1)" --bind-address=0.0.0.0 --secure-port=6443 \
		--etcd-servers=http://127.0.0.1:2379 \
		--service-cluster-ip-range="$SERVICE_CIDR" \
		--client-ca-file="$PKI/ca.crt" --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
		--kubelet-client-certificate="$PKI/apiserver-kubelet-client.crt" --kubelet-client-key="$PKI/apiserver-kubelet-client.key" \
		--kubelet-preferred-address-types=InternalIP \
		--service-account-issuer=https://kubernetes.default.svc.cluster.local \
		--service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
		--authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
		--requestheader-client-ca-file="$PKI/ca.crt" --requestheader-allowed-names=front-proxy-client \
		--requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group \
		--requestheader-extra-headers-prefix=X-Remote-Extra- \
		--allow-privileged=true --profiling=false --cert-dir="$DIR/apiserver-certs"
}

start_controllers() {
	launch kube-controller-manager 1 "$PREFIX-cp" kube-controller-manager \
		--kubeconfig="$DIR/controller-manager.kubeconfig" \
		--authentication-kubeconfig="$DIR/controller-manager.kubeconfig" \
		--authorization-kubeconfig="$DIR/controller-manager.kubeconfig" \
		--bind-address=127.0.0.1 --leader-elect=false --cluster-name=sweepk8s \
		--service-account-private-key-file="$PKI/sa.key" --root-ca-file="$PKI/ca.crt" \
		--cluster-signing-cert-file="$PKI/ca.crt" --cluster-signing-key-file="$PKI/ca.key" \
		--use-service-account-credentials=true --allocate-node-cidrs=false \
		--service-cluster-ip-range="$SERVICE_CIDR" --cert-dir="$DIR/controller-manager-certs"
	launch kube-scheduler 1 "$PREFIX-cp" kube-scheduler \
		--kubeconfig="$DIR/scheduler.kubeconfig" \
		--authentication-kubeconfig="$DIR/scheduler.kubeconfig" \
		--authorization-kubeconfig="$DIR/scheduler.kubeconfig" \
		--bind-address=127.0.0.1 --leader-elect=false --cert-dir="$DIR/scheduler-certs"
}

# --- nodes ---

# write_node_config I: containerd's, the CNI's, the kubelet's and
# kube-proxy's configuration for node I.
write_node_config() {
	local i="$1" b d
	d="$DIR/node$i"
	mkdir -p "$d/cni-conf" "$d/cni-bin" "$d/logs"
	for b in bridge host-local loopback portmap; do ln -sfn "$K8S_BIN/cni-$b" "$d/cni-bin/$b"; done
	# containerd 2.4 (config v4: the sockets' addresses are plugin settings;
	# a v3 [grpc] section is ignored there): every path under $d, the shims'
	# sockets too (socket_dir), the pods' network namespaces under its state dir, NRI
	# off (its socket is machine-wide), runc from Debian (built with
	# seccomp), and restrict_oom_score_adj: a process here may not lower its
	# oom_score_adj, which the pause container otherwise tries.
	cat >"$d/containerd.toml" <<-EOF
		version = 4
		root = "$d/containerd"
		state = "$d/run"
		disabled_plugins = ["io.containerd.nri.v1.nri", "io.containerd.internal.v1.tracing", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.blockfile", "io.containerd.snapshotter.v1.erofs"]
		[plugins.'io.containerd.server.v1.grpc']
		  address = "$d/containerd.sock"
		[plugins.'io.containerd.server.v1.ttrpc']
		  address = "$d/containerd.sock.ttrpc"
		[plugins.'io.containerd.server.v1.debug']
		  address = ""
		[plugins.'io.containerd.server.v1.metrics']
		  address = ""
		[plugins.'io.containerd.internal.v1.opt']
		  path = "$d/opt"
		[plugins.'io.containerd.shim.v1.manager']
		  socket_dir = "$d/s"
		[plugins.'io.containerd.cri.v1.images']
		  snapshotter = "overlayfs"
		[plugins.'io.containerd.cri.v1.images'.pinned_images]
		  sandbox = "$PAUSE_IMAGE"
		[plugins.'io.containerd.cri.v1.runtime']
		  restrict_oom_score_adj = true
		  netns_mounts_under_state_dir = true
		[plugins.'io.containerd.cri.v1.runtime'.cni]
		  bin_dirs = ["$d/cni-bin"]
		  conf_dir = "$d/cni-conf"
		[plugins.'io.containerd.cri.v1.runtime'.containerd]
		  default_runtime_name = "runc"
		[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
		  runtime_type = "io.containerd.runc.v2"
		[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
		  BinaryName = "$(command -v runc)"
		  SystemdCgroup = false
		[plugins.'io.containerd.grpc.v1.cri']
		  stream_server_address = "127.0.0.1"
		  stream_server_port = "0"
	EOF
	# CNI: a bridge per node, its pod range from host-local (state under $d);
	# no masquerade: pods reach each other across nodes by their own address
	cat >"$d/cni-conf/10-sweepk8s.conflist" <<-EOF
		{
		  "cniVersion": "1.0.0",
		  "name": "$PREFIX",
		  "plugins": [
		    {
		      "type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
		      "ipam": {"type": "host-local", "dataDir": "$d/cni-ipam",
		               "ranges": [[{"subnet": "$(pod_cidr "$i")"}]], "routes": [{"dst": "0.0.0.0/0"}]}
		    },
		    {"type": "portmap", "capabilities": {"portMappings": true}}
		  ]
		}
	EOF
	: >"$d/resolv.conf"
	# The kubelet's pod and container statistics from the runtime (CRI,
	# containerd's ListPodSandboxStats) rather than its cAdvisor, which sees
	# the cgroups here but not containerd's containers (its socket is not at
	# the default path): the summary API then holds each pod's network
	# counters, sweep's proof of delivery on Kubernetes.
	cat >"$d/kubelet.yaml" <<-EOF
		apiVersion: kubelet.config.k8s.io/v1beta1
		kind: KubeletConfiguration
		failCgroupV1: false
		cgroupDriver: cgroupfs
		cgroupRoot: /$PREFIX-node$i
		containerRuntimeEndpoint: unix://$d/containerd.sock
		address: $(node_addr "$i")
		port: 10250
		readOnlyPort: 0
		healthzBindAddress: 127.0.0.1
		healthzPort: 10248
		tlsCertFile: $PKI/node$i-serving.crt
		tlsPrivateKeyFile: $PKI/node$i-serving.key
		authentication:
		  anonymous: {enabled: false}
		  webhook: {enabled: true}
		  x509: {clientCAFile: $PKI/ca.crt}
		authorization: {mode: Webhook}
		clusterDomain: cluster.local
		clusterDNS: [$SERVICE_IP_DNS]
		resolvConf: $d/resolv.conf
		podLogsDir: $d/pod-logs
		failSwapOn: false
		staticPodPath: ""
		evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
		imageGCHighThresholdPercent: 100
		imageGCLowThresholdPercent: 99
		nodeStatusReportFrequency: 10s
		serializeImagePulls: false
		featureGates: {PodAndContainerStatsFromCRI: true}
	EOF
	cat >"$d/kube-proxy.yaml" <<-EOF
		apiVersion: kubeproxy.config.k8s.io/v1alpha1
		kind: KubeProxyConfiguration
		clientConnection: {kubeconfig: $DIR/kube-proxy.kubeconfig}
		mode: iptables
		clusterCIDR: $CLUSTER_CIDR
		hostnameOverride: $(node_name "$i")
		bindAddress: 0.0.0.0
		healthzBindAddress: 127.0.0.1:10256
		metricsBindAddress: 127.0.0.1:10249
		conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
	EOF
}

start_containerd() {
	local i="$1"
	make_node_cgroup "$i"
	launch "containerd-node$i" "$i" "$PREFIX-node$i/daemons" containerd --config "$DIR/node$i/containerd.toml"
}

# nctr I ARGS...: ctr against node I's containerd (without its cgroup v1
# deprecation warning on every call).
nctr() {
	local i="$1"
	shift
	"$K8S_BIN/ctr" --address "$DIR/node$i/containerd.sock" -n k8s.io "$@" 2> >(grep -v 'support for cgroup v1 is deprecated' >&2 || true)
}

start_kubelet() {
	local i="$1" d="$DIR/node$1"
	launch "kubelet-node$i" "$i" "$PREFIX-node$i/daemons" kubelet --config "$d/kubelet.yaml" \
		--kubeconfig "$d/kubelet.kubeconfig" --hostname-override "$(node_name "$i")" \
		--node-ip "$(node_addr "$i")" --root-dir "$d/kubelet" --cert-dir "$d/kubelet-pki" \
		--node-labels "sweep.index=$i"
}

start_kube_proxy() {
	launch "kube-proxy-node$1" "$1" "$PREFIX-node$1/daemons" kube-proxy --config "$DIR/node$1/kube-proxy.yaml"
}
