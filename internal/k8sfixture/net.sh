# net.sh: the Kubernetes fixture's network, sourced by fixture.sh.
#
# For N nodes it makes, without touching the root namespace's firewall:
#   sweepk8s-hub       a namespace holding bridge br0 with one port n<i> per node
#   sweepk8s-node<i>   eth0  10.79.0.<i+1>/24   (peer n<i> on br0 in the hub)
#                      host0 10.80.<i>.2/30     (peer sweepk8s-r<i> in the root
#                                                namespace, 10.80.<i>.1/30)
#                      cni0  10.244.<i>.1/24    (made by the CNI bridge plugin)
#                      a route to every other node's pod range via that node
#   root namespace     host routes 10.79.0.<i+1>/32 and 10.244.<i>.0/24 via
#                      10.80.<i>.2, so kubectl and tests reach the API server,
#                      the nodes and the pods
# Node-to-node and pod-to-pod traffic crosses only the hub's bridge, never
# the root namespace (whose FORWARD policy may be DROP). Nodes have no
# default route: nothing they run can reach out. kube-proxy, the CNI plugins
# and the kubelet write iptables rules only inside the node namespaces, which
# go with them.

HUB="$PREFIX-hub"
CLUSTER_CIDR=10.244.0.0/16
SERVICE_CIDR=10.96.0.0/16
SERVICE_IP_API=10.96.0.1
SERVICE_IP_DNS=10.96.0.10

node_name() { echo "$PREFIX-node$1"; }
node_ns() { echo "$PREFIX-node$1"; }
node_addr() { echo "10.79.0.$(($1 + 1))"; }
pod_cidr() { echo "10.244.$1.0/24"; }
root_if() { echo "$PREFIX-r$1"; }
link_addr() { echo "10.80.$1.$2"; }
# in_node I CMD...: run CMD in node I's network namespace (nsenter, not
# `ip netns exec`, which remounts /sys and leaves it no cgroups).
in_node() {
	local i="$1"
	shift
	nsenter --net="/var/run/netns/$(node_ns "$i")" "$@"
}

ns_exists() { [ -e "/var/run/netns/$1" ]; }

# ensure_ns NS makes namespace NS unless it exists; the first `ip netns
# add` on a machine makes /var/run/netns (and a bind mount of it):
# $DIR/run-netns notes that the fixture did, so net_down undoes it.
ensure_ns() {
	if ! ns_exists "$1"; then
		if [ ! -d /var/run/netns ]; then
			echo dir >"$DIR/run-netns"
		elif ! mountpoint -q /var/run/netns && [ ! -f "$DIR/run-netns" ]; then
			echo mount >"$DIR/run-netns"
		fi
		ip netns add "$1"
	fi
	ip -n "$1" link set lo up
}

net_up() {
	local n="$1" i j ns rif
	ensure_ns "$HUB"
	ip -n "$HUB" link show br0 >/dev/null 2>&1 || ip -n "$HUB" link add br0 type bridge
	ip -n "$HUB" link set br0 up
	for ((i = 1; i <= n; i++)); do
		ns="$(node_ns "$i")" rif="$(root_if "$i")"
		ensure_ns "$ns"
		if ! ip -n "$ns" link show eth0 >/dev/null 2>&1; then
			ip -n "$HUB" link del "n$i" 2>/dev/null || true
			ip -n "$HUB" link add "n$i" type veth peer name eth0 netns "$ns"
		fi
		ip -n "$HUB" link set "n$i" master br0 up
		ip -n "$ns" addr replace "$(node_addr "$i")/24" dev eth0
		ip -n "$ns" link set eth0 up
		if ! ip -n "$ns" link show host0 >/dev/null 2>&1; then
			ip link del "$rif" 2>/dev/null || true
			ip link add "$rif" type veth peer name host0 netns "$ns"
		fi
		ip addr replace "$(link_addr "$i" 1)/30" dev "$rif"
		ip link set "$rif" up
		ip -n "$ns" addr replace "$(link_addr "$i" 2)/30" dev host0
		ip -n "$ns" link set host0 up
		ip route replace "$(node_addr "$i")/32" via "$(link_addr "$i" 2)" dev "$rif"
		ip route replace "$(pod_cidr "$i")" via "$(link_addr "$i" 2)" dev "$rif"
		# a node forwards between its pods, the hub and the root link; its
		# bridge's traffic goes through its iptables (Service DNAT replies
		# between two pods of one node)
		in_node "$i" sysctl -qw net.ipv4.ip_forward=1
		in_node "$i" sysctl -qw net.bridge.bridge-nf-call-iptables=1 2>/dev/null ||
			say "node$i: net.bridge.bridge-nf-call-iptables not settable in the namespace"
		for ((j = 1; j <= n; j++)); do
			[ "$j" -eq "$i" ] || ip -n "$ns" route replace "$(pod_cidr "$j")" via "$(node_addr "$j")" dev eth0
		done
	done
}

ip2int() {
	local IFS=. a b c d
	read -r a b c d <<<"$2"
	printf -v "$1" '%d' $(((a << 24) | (b << 16) | (c << 8) | d))
}

overlaps() {
	local la="${1#*/}" lb="${2#*/}" m x y
	[ "$la" = "$1" ] && la=32
	[ "$lb" = "$2" ] && lb=32
	m=$((la < lb ? la : lb))
	[ "$m" -eq 0 ] && return 0
	ip2int x "${1%/*}"
	ip2int y "${2%/*}"
	[ $((x >> (32 - m))) -eq $((y >> (32 - m))) ]
}

# check_ranges N fails when a range of the fixture collides with a route or
# address of this machine that is not the fixture's own.
check_ranges() {
	local n="$1" ours=("10.79.0.0/24" "$CLUSTER_CIDR" "$SERVICE_CIDR") p r i
	for ((i = 1; i <= n; i++)); do ours+=("10.80.$i.0/30"); done
	for p in $({
		ip -4 -o route show table all | grep -v " dev $PREFIX-r[0-9]* " |
			awk '{p = $1} p ~ /^(local|broadcast|unicast|anycast|multicast|blackhole|unreachable|prohibit|throw)$/ {p = $2}
				p != "default" && p != "0.0.0.0/0" {print p}'
		ip -4 -o addr show | grep -v " $PREFIX-r[0-9]* " | awk '{print $4}'
	} | sort -u); do
		for r in "${ours[@]}"; do
			overlaps "$p" "$r" && die "address range $r collides with $p on this machine (ip route / ip addr)"
		done
	done
	return 0
}

# net_down removes the root links (their routes go with them) and every
# namespace named $PREFIX-*; links inside a namespace go with it.
net_down() {
	local l ns made
	for l in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E "^$PREFIX-r[0-9]+$" || true); do
		ip link del "$l" && say "removed link $l"
	done
	for ns in $(ip netns list | awk '{print $1}' | grep -E "^$PREFIX-" || true); do
		ip netns del "$ns" && say "removed namespace $ns"
	done
	made="$(cat "$DIR/run-netns" 2>/dev/null)" || return 0
	[ -z "$(ls -A /var/run/netns 2>/dev/null)" ] || return 0
	mountpoint -q /var/run/netns && umount /var/run/netns
	[ "$made" = dir ] && rmdir /var/run/netns
	rm "$DIR/run-netns"
	say "removed /var/run/netns, made by the fixture's first namespace"
}
