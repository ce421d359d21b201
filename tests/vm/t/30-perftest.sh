# perftest over RDMA-CM (-R) between rxe1 (server, RPCRDMA_ADDR_B) and rxe0
# (client, from RPCRDMA_ADDR_A): ib_send_lat and ib_write_bw with
# bounded iteration counts must complete. Their result lines are the limit
# of this fabric for benchmarks run in the same guest, kept in
# $RPCRDMA_VM_RESULTS/perftest.txt (full outputs next to it).
# vm-timeout: 300
set -u
A=$RPCRDMA_ADDR_A
B=$RPCRDMA_ADDR_B
out=$RPCRDMA_VM_RESULTS
port=18600
summary=$out/perftest.txt
: >"$summary.tmp"
status=0

# Debian's perftest (4.5-0.17) ignores --source_ip in -R mode on both
# sides: its server listens on the wildcard address and its client resolves
# B without a source, which the local table would send over lo, keeping the
# connection on rxe1 at both ends. A rule for the duration of this test
# sends unbound traffic to B out of v0 from A (table 10, made by
# tests/vm/run), so the client is on rxe0 and the server, reached at B, on
# rxe1; the GIDs each side prints are checked below.
ip rule add pref 12 iif lo to "$B" lookup 10 || exit 1
trap 'ip rule del pref 12 2>/dev/null' EXIT
gid_a=$(echo "$A" | awk -F. '{ printf "%d:%d:%02d:%02d", $1, $2, $3, $4 }')
gid_b=$(echo "$B" | awk -F. '{ printf "%d:%d:%02d:%02d", $1, $2, $3, $4 }')

wait_listen() {
	local i
	for i in $(seq 100); do
		rdma resource show cm_id 2>/dev/null |
			grep -q "state LISTEN .*comm $1 .*:$port " && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}

# run_pair TOOL ARGS...: server on rxe1, client on rxe0; both must exit 0.
run_pair() {
	local tool=$1 spid crc src
	shift
	port=$((port + 1))
	timeout 100 "$tool" -R -d rxe1 -p "$port" -F "$@" \
		>"$out/$tool.server.txt" 2>&1 &
	spid=$!
	if ! wait_listen "$tool" "$spid"; then
		echo "$tool: the server never listened on port $port"
		cat "$out/$tool.server.txt"
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		return 1
	fi
	timeout 100 "$tool" -R -d rxe0 -p "$port" -F "$@" \
		"$B" >"$out/$tool.client.txt" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	cat "$out/$tool.client.txt"
	if [ "$crc" != 0 ] || [ "$src" != 0 ]; then
		echo "$tool: client exit status $crc, server exit status $src"
		echo "--- $tool server output:"
		cat "$out/$tool.server.txt"
		return 1
	fi
	# perftest prints the local GID, then the remote one: A, then B.
	if ! grep -A 3 'local address' "$out/$tool.client.txt" |
		awk -v a="$gid_a" -v b="$gid_b" '
			/GID:/ { n++; g[n] = $2 }
			END { exit !(g[1] ~ (a "$") && g[2] ~ (b "$")) }'; then
		echo "$tool: the connection did not go from $A (rxe0) to $B (rxe1)"
		return 1
	fi
	# The result line: the one after the column headings.
	if ! awk '/#bytes/ { getline; print; found = 1 } END { exit !found }' \
		"$out/$tool.client.txt" >"$out/$tool.line"; then
		echo "$tool: no result line in the client's output"
		return 1
	fi
	printf '%s %s:%s\n' "$tool" "$*" "$(cat "$out/$tool.line")" \
		>>"$summary.tmp"
	rm -f "$out/$tool.line"
	return 0
}

run_pair ib_send_lat -n 200 -s 64 || status=1
run_pair ib_write_bw -n 200 -s 65536 || status=1
mv "$summary.tmp" "$summary"
echo "--- fabric limits ($summary):"
cat "$summary"
exit "$status"
