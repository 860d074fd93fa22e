# net.sh: the fixture's network, sourced by fixture.sh.
#
# For N nodes it makes, without touching the root namespace's firewall:
#   sweepswarm-hub       a namespace holding bridge br0 with one port n<i> per node
#   sweepswarm-node<i>   eth0  10.77.0.<i+1>/24   (peer n<i> on br0 in the hub)
#                        host0 10.78.<i>.2/30     (peer sweepswarm-r<i> in the root
#                                                  namespace, 10.78.<i>.1/30)
#   root namespace       a host route 10.77.0.<i+1>/32 via 10.78.<i>.2
# Node-to-node traffic (swarm control, gossip, VXLAN) crosses only the hub's
# bridge, never the root namespace, whose FORWARD policy may be DROP. The
# root namespace reaches each node over its own point-to-point link, so
# tests and sweep on the host reach host-mode published ports at the node's
# address. Nodes have no default route: nothing they run can reach out.
# Every step checks before it acts, so a second run changes nothing.

HUB="$PREFIX-hub"

node_ns() { echo "$PREFIX-node$1"; }
node_addr() { echo "10.77.0.$(($1 + 1))"; }
root_if() { echo "$PREFIX-r$1"; }
# link_addr I SIDE prints the root (1) or node (2) end of node I's link.
link_addr() { echo "10.78.$1.$2"; }

ns_exists() { [ -e "/var/run/netns/$1" ]; }

# link_exists NS IF: NS empty means the root namespace.
link_exists() {
	if [ -z "$1" ]; then ip link show dev "$2" >/dev/null 2>&1; else ip -n "$1" link show dev "$2" >/dev/null 2>&1; fi
}

# ensure_ns NS makes namespace NS unless it exists. The first `ip netns
# add` on a machine makes /var/run/netns (and a bind mount of it) and
# leaves them; $DIR/run-netns notes that the fixture did, so net_down
# undoes it once no namespace is left there.
ensure_ns() {
	if ! ns_exists "$1"; then
		if [ ! -d /var/run/netns ]; then
			echo dir >"$DIR/run-netns"
		elif ! mountpoint -q /var/run/netns; then
			echo mount >"$DIR/run-netns"
		fi
		ip netns add "$1"
		say "made namespace $1"
	fi
	ip -n "$1" link set lo up
}

net_up_hub() {
	ensure_ns "$HUB"
	link_exists "$HUB" br0 || ip -n "$HUB" link add br0 type bridge
	ip -n "$HUB" link set br0 up
}

# net_up_node I gives node I its namespace, its hub port and its root link.
net_up_node() {
	local i="$1" ns rif
	ns="$(node_ns "$i")" rif="$(root_if "$i")"
	ensure_ns "$ns"
	if ! link_exists "$ns" eth0; then
		ip -n "$HUB" link del "n$i" 2>/dev/null || true
		ip -n "$HUB" link add "n$i" type veth peer name eth0 netns "$ns"
		say "linked $ns to the hub"
	fi
	ip -n "$HUB" link set "n$i" master br0 up
	ip -n "$ns" addr replace "$(node_addr "$i")/24" dev eth0
	ip -n "$ns" link set eth0 up
	if ! link_exists "$ns" host0; then
		ip link del "$rif" 2>/dev/null || true
		ip link add "$rif" type veth peer name host0 netns "$ns"
		say "linked $ns to the root namespace ($rif)"
	fi
	ip addr replace "$(link_addr "$i" 1)/30" dev "$rif"
	ip link set "$rif" up
	ip -n "$ns" addr replace "$(link_addr "$i" 2)/30" dev host0
	ip -n "$ns" link set host0 up
	ip route replace "$(node_addr "$i")/32" via "$(link_addr "$i" 2)" dev "$rif"
}

# ip2int VAR A.B.C.D sets VAR to the address as a 32-bit number (no
# subshell: check_ranges calls it for every route of the machine).
ip2int() {
	local IFS=. a b c d
	read -r a b c d <<<"$2"
	printf -v "$1" '%d' $(((a << 24) | (b << 16) | (c << 8) | d))
}

# overlaps A/LEN B/LEN is true when the two prefixes share an address.
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

# foreign_prefixes prints the prefixes of the root namespace's routes (all
# tables, default routes left out) and addresses that are not the fixture's.
foreign_prefixes() {
	ip -4 -o route show table all | grep -v " dev $PREFIX-r[0-9]* " |
		awk '{p = $1} p ~ /^(local|broadcast|unicast|anycast|multicast|blackhole|unreachable|prohibit|throw)$/ {p = $2}
			p != "default" && p != "0.0.0.0/0" {print p}'
	ip -4 -o addr show | grep -v " $PREFIX-r[0-9]* " | awk '{print $4}'
}

# check_ranges fails when the node range or a root link of nodes 1..N
# collides with a route or address this machine already has.
check_ranges() {
	local n="$1" ours=("10.77.0.0/24") p r i
	for ((i = 1; i <= n; i++)); do ours+=("10.78.$i.0/30"); done
	for p in $(foreign_prefixes | sort -u); do
		for r in "${ours[@]}"; do
			overlaps "$p" "$r" && die "address range $r collides with $p on this machine (ip route / ip addr); the fixture needs 10.77.0.0/24 and 10.78.1-$n.0/30 free"
		done
	done
	return 0
}

# net_down removes the root links (their routes go with them) and every
# namespace named $PREFIX-*; the links inside a namespace go with it.
net_down() {
	local l ns
	for l in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E "^$PREFIX-r[0-9]+$" || true); do
		ip link del "$l" && say "removed link $l"
	done
	for ns in $(ip netns list | awk '{print $1}' | grep -E "^$PREFIX-" || true); do
		ip netns del "$ns" && say "removed namespace $ns"
	done
	local made
	made="$(cat "$DIR/run-netns" 2>/dev/null)" || return 0
	[ -z "$(ls -A /var/run/netns 2>/dev/null)" ] || return 0
	mountpoint -q /var/run/netns && umount /var/run/netns
	[ "$made" = dir ] && rmdir /var/run/netns
	rm "$DIR/run-netns"
	say "removed /var/run/netns, made by the fixture's first namespace"
}
