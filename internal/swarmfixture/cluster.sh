# cluster.sh: the swarm over the nodes, their labels, their images and the
# state file, sourced by fixture.sh.
#
# Node 1 is the manager; the others join as workers. Every node reports
# the machine's hostname, so nodes are told apart by id and by the labels
# set here: sweep.index=<I>, sweep.cpus=<CPU list>, and role=<role> where
# the node has one. Images move from the main engine with `docker save`
# and `docker load` (there is no registry), only to nodes whose copy has a
# different image id.

# NODE_ID and NODE_CPUS hold each node's swarm id and the CPU list its
# dockerd runs on, filled by load_facts: every docker call costs a few
# tenths of a second on a busy machine.
declare -A NODE_ID=() NODE_CPUS=()
node_id() { echo "${NODE_ID[$1]}"; }

# load_facts N fills NODE_ID and NODE_CPUS for nodes 1..N.
load_facts() {
	local i
	for ((i = 1; i <= $1; i++)); do
		NODE_ID[$i]="$(ndocker "$i" info --format '{{.Swarm.NodeID}}')"
		NODE_CPUS[$i]="$(taskset -pc "$(dockerd_pid "$i")" | sed 's/.*: //')"
	done
}

# swarm_form N makes node 1 the manager of a swarm and joins nodes 2..N,
# leaving alone the nodes that are members already, then waits until all
# are ready and drops member entries that are none of the N nodes.
swarm_form() {
	local n="$1" i token members pids=()
	if [ "$(ndocker 1 info --format '{{.Swarm.LocalNodeState}}')" != active ]; then
		ndocker 1 swarm init --advertise-addr "$(node_addr 1)" --listen-addr "$(node_addr 1):2377" >/dev/null
		say "node1: swarm initialised (manager)"
	fi
	token="$(ndocker 1 swarm join-token -q worker)"
	members="$(ndocker 1 node ls -q)"
	for ((i = 2; i <= n; i++)); do
		join_worker "$i" "$token" "$members" &
		pids+=("$!")
	done
	for i in "${pids[@]}"; do wait "$i" || die "a worker did not join the swarm"; done
	load_facts "$n"
	wait_ready "$n"
}

# join_worker I TOKEN MEMBERS joins node I unless it is one of MEMBERS.
join_worker() {
	local i="$1" state id
	read -r state id <<<"$(ndocker "$i" info --format '{{.Swarm.LocalNodeState}} {{.Swarm.NodeID}}')"
	if [ "$state" = active ] && grep -qxF "$id" <<<"$3"; then
		return 0
	fi
	[ "$state" = inactive ] || ndocker "$i" swarm leave --force >/dev/null
	ndocker "$i" swarm join --token "$2" --advertise-addr "$(node_addr "$i")" \
		--listen-addr "$(node_addr "$i"):2377" "$(node_addr 1):2377" >/dev/null
	say "node$i: joined the swarm"
}

# wait_ready N waits up to 60 s until the manager lists the N nodes
# (NODE_ID) as ready, and removes listed nodes that are not among them (a worker that
# rejoined after losing its data leaves its old entry behind).
wait_ready() {
	local n="$1" t ready id status
	for ((t = 0; t < 600; t++)); do
		ready=0
		while read -r id status; do
			if printf '%s\n' "${NODE_ID[@]}" | grep -qxF "$id"; then
				[ "$status" = Ready ] && ready=$((ready + 1))
			else
				ndocker 1 node rm --force "$id" >/dev/null && say "removed stale swarm node $id"
			fi
		done < <(ndocker 1 node ls --format '{{.ID}} {{.Status}}')
		[ "$ready" -eq "$n" ] && return 0
		sleep 0.1
	done
	die "the swarm did not list $n ready nodes within 60 s"
}

# label_nodes N sets the nodes' labels (index, CPUs, role, and
# sweep.engine: the node's own Docker host, where sweep's swarm backend
# reads containers back), only those that differ, after one inspect of
# all nodes.
label_nodes() {
	local n="$1" i id labels args kv
	declare -A have=()
	while read -r id labels; do have[$id]=" $labels "; done < <(ndocker 1 node inspect \
		--format '{{.ID}} {{range $k, $v := .Spec.Labels}}{{$k}}={{$v}} {{end}}' "${NODE_ID[@]}")
	for ((i = 1; i <= n; i++)); do
		id="$(node_id "$i")" args=()
		for kv in "sweep.index=$i" "sweep.cpus=${NODE_CPUS[$i]}" "sweep.engine=$(node_host "$i")" ${ROLE[$i]:+"role=${ROLE[$i]}"}; do
			[[ "${have[$id]}" == *" $kv "* ]] || args+=(--label-add "$kv")
		done
		[ -z "${ROLE[$i]}" ] && [[ "${have[$id]}" == *" role="* ]] && args+=(--label-rm role)
		[ ${#args[@]} -eq 0 ] && continue
		ndocker 1 node update "${args[@]}" "$id" >/dev/null
		say "node$i: labels ${args[*]}"
	done
}

# wanted_images prints the images every node gets: SWARM_IMAGES, or the
# demo's images that `make demo-images` wrote to compose/demo/.env.
wanted_images() {
	if [ -n "${SWARM_IMAGES:-}" ]; then
		tr ' ' '\n' <<<"$SWARM_IMAGES" | grep .
	elif [ -f "$REPO/compose/demo/.env" ]; then
		grep -E '^SWEEP_DEMO_[A-Z]+_IMAGE=' "$REPO/compose/demo/.env" | cut -d= -f2- | grep . || true
	fi
}

# sync_images N copies the wanted images from the main engine to the
# nodes that lack them or hold another image under the same name: one
# `docker save` of what any node lacks, loaded into those nodes in parallel.
sync_images() {
	local n="$1" img i have lack=() nodes=() pids=() tar="$DIR/images.tar"
	local -a imgs ids
	mapfile -t imgs < <(wanted_images)
	[ ${#imgs[@]} -eq 0 ] && return 0
	have="$(docker image inspect --format '{{.Id}}' "${imgs[@]}")" ||
		die "an image of ${imgs[*]} is not on the main Docker engine: run make demo-images (or set SWARM_IMAGES)"
	mapfile -t ids <<<"$have"
	for ((i = 1; i <= n; i++)); do
		have="$(ndocker "$i" image ls --no-trunc --format '{{.Repository}}:{{.Tag}} {{.ID}}')"
		for img in "${!imgs[@]}"; do
			grep -qxF "${imgs[img]} ${ids[img]}" <<<"$have" && continue
			[[ " ${lack[*]} " == *" ${imgs[img]} "* ]] || lack+=("${imgs[img]}")
			[[ " ${nodes[*]} " == *" $i "* ]] || nodes+=("$i")
		done
	done
	[ ${#lack[@]} -eq 0 ] && return 0
	docker save -o "$tar" "${lack[@]}"
	for i in "${nodes[@]}"; do
		ndocker "$i" load -q -i "$tar" >/dev/null &
		pids+=("$!")
	done
	for i in "${pids[@]}"; do wait "$i" || { rm -f "$tar"; die "docker load into a node failed"; }; done
	rm -f "$tar"
	say "loaded ${lack[*]} into nodes ${nodes[*]}"
}
