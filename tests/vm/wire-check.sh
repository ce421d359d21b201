#!/bin/bash
# tests/vm/wire-check.sh PCAP CALLS [OUTDIR]
#
# The independent decoder's verdict on a capture of tests/vm/wire_calls
# (tests/vm/t/80-wire.sh runs both; this also runs on the host, on a
# capture kept in tests/vm/results/wire). CALLS is wire_calls' output:
# lines "wire: call XID NAME", "wire: raw XID NAME", "wire: expect-v1 N".
# Wireshark's tshark (Debian 12: 4.0) decodes RoCEv2 on UDP 4791 as
# InfiniBand and hands each SEND's payload (reassembled when it spans
# several packets) to its rpcordma heuristic dissector. Checks:
#   1. every RC SEND message (SEND Only, or the Last packet of a longer
#      SEND) decodes as rpcordma, except the crafted messages that are not
#      version 1 on purpose (tshark's dissector takes version 1 only), and
#      their count is wire_calls' expect-v1;
#   2. no frame is malformed or carries an expert error;
#   3. for each known XID, the call and the reply tshark decodes have the
#      expected message type and chunk lists (read positions and lengths,
#      write chunk segments and lengths, reply chunk, error code), the
#      RPC XID inside, a multi-packet inline message decoded in its SEND
#      Last, and the Long Call and DDP call rebuilt by tshark from the
#      RDMA Read Responses into whole RPC calls;
#   4. a reply sent With Invalidate names an rkey its call offered.
# Prints tshark's table of rpcordma messages; exits 1 on a failed check.
set -u
pcap=$1
calls=$2
out=${3:-$(mktemp -d)}
mkdir -p "$out" || exit 1
fail=0
bad() {
	echo "wire-check: FAIL: $*"
	fail=1
}

# Read from wire_calls' own lines: the XIDs and the message count. (No
# process substitution: the guest has no /dev/fd.)
declare -A xid_of
grep '^wire: ' "$calls" >"$out/lines.txt"
while read -r _ kind xid name; do
	case "$kind" in
	call | raw) xid_of[$name]=$((16#$xid)) ;;
	expect-v1) expect_v1=$xid ;;
	esac
done <"$out/lines.txt"
for n in null inline-100 long-call ddp-read write-chunk reply-chunk \
	inline-3000 err-vers err-chunk; do
	[ -n "${xid_of[$n]:-}" ] || { bad "no XID for '$n' in $calls"; exit 1; }
done
[ -n "${expect_v1:-}" ] || { bad "no expect-v1 line in $calls"; exit 1; }

# The client is RPCRDMA_ADDR_A: what it sends is a call.
addr_a=${RPCRDMA_ADDR_A:-10.99.0.1}

# The provider's packets (RPCRDMA_PROVIDER): RoCE v2 (rxe) as InfiniBand
# BTHs; iWARP (siw) as MPA FPDUs on TCP, whose DDP/RDMAP headers say the
# same things in other fields. Columns 3 and 19 to 21 and 23 to 24 are
# the provider's (opcode, sequence, stream, invalidated key, payload,
# last segment); a message's payload starts after 12 bytes of BTH, or
# after 2 of MPA length and 18 of untagged DDP/RDMAP header.
iwarp=0
if [ "${RPCRDMA_PROVIDER:-rxe}" = siw ]; then
	iwarp=1
	pf=(-e iwarp_rdma.opcode -e tcp.seq -e tcp.stream
	    -e iwarp_rdma.inval_stag -e tcp.payload -e iwarp_ddp.last_flag)
	skip=41
else
	pf=(-e infiniband.bth.opcode -e infiniband.bth.psn
	    -e infiniband.bth.destqp -e infiniband.ieth -e udp.payload
	    -e frame.len)	# (unused: tshark leaves a field asked twice empty)
	skip=25
fi
# Two passes (-2): the rpcordma dissector completes reassembly (SENDs in
# several packets, chunks moved by RDMA Read and Write) on the second.
# Unknown RPC programs are dissected too, so the RPC header inside each
# message is checked against the transport header's XID.
topts=(-n -2 -o rpc.dissect_unknown_programs:TRUE)
t0=$(date +%s)
tshark -r "$pcap" "${topts[@]}" -T fields -E separator='|' \
	-E occurrence=a -E aggregator=';' \
	-e frame.number -e ip.src "${pf[0]}" "${pf[1]}" \
	-e rpcordma.xid -e rpcordma.version -e rpcordma.msg_type \
	-e rpcordma.reads_count -e rpcordma.writes_count \
	-e rpcordma.reply_count -e rpcordma.position \
	-e rpcordma.rdma_length -e rpcordma.segment_count \
	-e rpcordma.errcode -e rpcordma.vers_low -e rpcordma.vers_high \
	-e rpc.xid -e rpc.msgtyp -e rpc.procedure "${pf[@]:2:6}" \
	-e rpcordma.rdma_handle "${pf[@]:8:4}" \
	-e _ws.malformed -e _ws.expert.severity -e _ws.expert.message \
	>"$out/raw.txt" 2>"$out/tshark.err" ||
	{ cat "$out/tshark.err"; bad "tshark could not read $pcap"; exit 1; }
awk -F'|' -v OFS='|' -v iw="$iwarp" '
	# One opcode column in decimal for both: iWARP RDMAP Sends (RFC 5040
	# section 4.3: 3, 4 with Invalidate, 5 and 6 Solicited) ending a
	# message (DDP last flag) become the RC codes of a SEND Only (4) or
	# Only with Invalidate (23); other segments 0.
	function hex(s,  n, i, c) {
		n = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) {
			c = index("0123456789abcdef", substr(s, i, 1))
			if (!c) break
			n = n * 16 + c - 1
		}
		return n
	}
	iw == 1 {
		op = hex($3)
		$3 = (op >= 3 && op <= 6 && $24 == "1") ? ((op == 4 || op == 6) ? 23 : 4) : 0
	}
	{ print }' "$out/raw.txt" >"$out/fields.txt"
# Malformed frames and expert errors from the same pass (columns 25 to
# 27; a second run of tshark cost 23 s under TCG): the frame number, then
# what tshark said. An expert error is severity PI_ERROR (0x00800000),
# what the display filter "_ws.expert.severity == error" matches.
awk -F'|' '$25 != "" || (";" $26 ";") ~ /;8388608;/ { print $1, $25, $27 }' \
	"$out/raw.txt" >"$out/malformed.txt"
echo "wire-check: tshark ran in $(($(date +%s) - t0)) s on" \
	"$(wc -l <"$out/fields.txt") frames"

# 2. Malformed frames and expert errors. On iWARP, Wireshark 4.0's
# rpcordma dissector fails an assertion of its own ("Dissector bug",
# tvb not initialized) on every Send that spans several DDP segments:
# the two 3000-byte inline messages, and only those (checked below), are
# left to the checks of their bytes by wire_calls itself.
tbug=()
if [ "$iwarp" = 1 ]; then
	awk '/Dissector bug, protocol RPCoRDMA/ { print $1 }' \
		"$out/malformed.txt" >"$out/tbug.txt"
	mapfile -t tbug <"$out/tbug.txt"
	grep -v 'Dissector bug, protocol RPCoRDMA' "$out/malformed.txt" \
		>"$out/malformed-other.txt"
	mv "$out/malformed-other.txt" "$out/malformed.txt"
	[ "${#tbug[@]}" = 2 ] ||
		bad "tshark's dissector bug on ${#tbug[@]} frame(s) (${tbug[*]}), expected 2 (the 3000-byte Sends)"
fi
if [ -s "$out/malformed.txt" ]; then
	cat "$out/malformed.txt"
	bad "tshark marks $(wc -l <"$out/malformed.txt") frame(s) malformed or with an expert error"
fi

# 1. Every SEND message decodes. RC opcodes (IBA 9.2, table 38): Send
# Only 4, Only with Immediate 5, Only with Invalidate 23; Last 2, Last
# with Immediate 3, Last with Invalidate 22. A message ends on these.
awk -F'|' -v want="$((expect_v1 - ${#tbug[@]}))" -v crafted="$((3 + ${#tbug[@]}))" '
{ op = $3 + 0 }
# A packet rxe sent again (same sender, QP, PSN and opcode) counts once.
seen[$2 "|" $20 "|" $19 "|" $3]++ { next }
op == 4 || op == 5 || op == 23 || op == 2 || op == 3 || op == 22 {
	sends++
	if ($4 != "") { dec++; next }
	undec[$1] = 1	# below: which they are
}
END {
	printf "wire-check: %d SEND messages, %d decoded as rpcordma, %d expected\n", sends, dec, want
	if (dec != want) { print "wire-check: FAIL: decoded " dec " != expected " want; exit 1 }
	n = 0; for (f in undec) n++
	if (n != crafted) { print "wire-check: FAIL: " n " SENDs not decoded, expected " crafted " (3 crafted, the rest tshark'"'"'s bug)"; exit 1 }
}' "$out/fields.txt" || fail=1
# The SEND messages it did not decode, with their UDP payload (the BTH's
# 12 bytes, the message, the ICRC), to say which they are.
awk -F'|' '$4 == "" && ($3 == 4 || $3 == 5 || $3 == 23 || $3 == 2 ||
	$3 == 3 || $3 == 22) { print $1 "|" $2 "|" $3 "|" $23 }' \
	"$out/fields.txt" >"$out/undecoded.txt"
grep -q '^[0-9]*|[^|]*|[^|]*|0x' "$out/fields.txt" ||
	{ bad "tshark decoded no rpcordma message at all"; exit 1; }
# tshark's bug frames are Sends it left undecoded.
for f in "${tbug[@]}"; do
	grep -q "^$f|" "$out/undecoded.txt" ||
		bad "frame $f (tshark's dissector bug) is not an undecoded Send"
done
# The three that must stay undecoded: the version-2 call and its
# ERR_VERS answer (version 2 echoed, as the Linux server does), and the
# call with procedure 7. Identified by their first words.
vx=$(printf '%08x' "${xid_of[err-vers]}")
cx=$(printf '%08x' "${xid_of[err-chunk]}")
for pfx in "${vx}000000020000000100000000" \
	"${vx}00000002000000010000000400000001" \
	"${cx}000000010000000100000007"; do
	cut -d'|' -f4 "$out/undecoded.txt" | cut -c"$skip"- | grep -qi "^$pfx" ||
		bad "no undecoded SEND starting ${pfx} (a crafted message)"
done

# The decoded messages, as a table: frame, dir, xid, type, reads, writes,
# reply, positions, lengths, segment counts, errcode, rpc xid.
awk -F'|' -v a="$addr_a" 'seen[$2 "|" $20 "|" $19 "|" $3]++ { next } $4 != "" {
	printf "%5s %-5s %s %-2s r=%s w=%s rc=%s pos=%s len=%s segs=%s err=%s rpc=%s\n",
		$1, ($2 == a ? "call" : "reply"), $4, $6, $7, $8, $9, $10,
		$11, $12, $13, $16 }' "$out/fields.txt" | tee "$out/table.txt"

# Send With Invalidate (where the client set R, RFC 8797 section 4.1; on
# rxe since Linux 6.12): a reply may invalidate only an rkey its call
# offered. The IETH of each such reply must be a handle of its call.
awk -F'|' -v a="$addr_a" '
seen[$2 "|" $20 "|" $19 "|" $3]++ { next }
$4 != "" && $2 == a {
	n = split($22, h, ";")
	for (i = 1; i <= n; i++) offered[$4 "|" tolower(h[i])] = 1
}
$4 != "" && $2 != a && ($3 == 22 || $3 == 23) {
	split($21, k, /[;,]/)
	key = "0x" tolower(k[1])
	inv++
	if (!((($4 "|" key) in offered))) {
		print "wire-check: FAIL: frame " $1 ": reply " $4 " invalidates rkey " key ", which its call did not offer"
		bad = 1
	}
}
END {
	printf "wire-check: %d replies with Send With Invalidate%s\n", inv,
		bad ? "" : (inv ? ", each of an rkey its call offered" : "")
	exit bad
}' "$out/fields.txt" || fail=1

# 3. The known calls. expect NAME DIR FIELD VALUE: the one message of
# that XID in that direction has FIELD (a column of fields.txt) = VALUE.
col_of() {
	case $1 in
	version) echo 5 ;; type) echo 6 ;; reads) echo 7 ;; writes) echo 8 ;;
	reply) echo 9 ;; pos) echo 10 ;; len) echo 11 ;; segs) echo 12 ;;
	err) echo 13 ;; vlow) echo 14 ;; vhigh) echo 15 ;; rpcxid) echo 16 ;;
	rpctype) echo 17 ;; op) echo 3 ;;
	esac
}
expect() {
	local name=$1 dir=$2 field=$3 want=$4 xid got c
	xid=$(printf '0x%08x' "${xid_of[$name]}")
	c=$(col_of "$field")
	got=$(awk -F'|' -v a="$addr_a" -v x="$xid" -v d="$dir" -v c="$c" '
		seen[$2 "|" $20 "|" $19 "|" $3]++ { next }
		$4 == x && (($2 == a) == (d == "call")) { print $c; n++ }
		END { if (n != 1) print "(" n + 0 " messages)" }' \
		"$out/fields.txt" | paste -sd' ')
	if [ "$got" = "$want" ]; then
		echo "wire-check: ok $name $dir $field = $want"
	else
		bad "$name ($xid) $dir: $field is '$got', expected '$want'"
	fi
}
# expect_rpc NAME PROC: tshark put the call's chunks back where their
# positions say (the RDMA Read Responses it reassembled) and decoded the
# whole RPC call of that XID, procedure PROC, exactly once.
expect_rpc() {
	local name=$1 want=$2 xid got
	if [ "$iwarp" = 1 ]; then
		# Wireshark 4.0 rebuilds calls from RDMA Read Responses on
		# InfiniBand only.
		echo "wire-check: not checked on iWARP: $name rebuilt from its Read Responses (tshark does not)"
		return
	fi
	xid=$(printf '0x%08x' "${xid_of[$name]}")
	got=$(awk -F'|' -v x="$xid" '
		seen[$2 "|" $20 "|" $19 "|" $3]++ { next }
		$16 == x && $17 == "0" { split($18, p, ";"); print p[1] }' \
		"$out/fields.txt" | paste -sd' ')
	if [ "$got" = "$want" ]; then
		echo "wire-check: ok $name: the RPC call reassembled from its chunk, procedure $want"
	else
		bad "$name ($xid): RPC calls tshark decoded for it: procedure(s) '$got', expected one, '$want'"
	fi
}
# Sizes: an RPC call header with AUTH_NONE is 40 bytes, a successful
# reply's 24; XDR opaques carry a 4-byte length.
for n in null inline-100; do
	for d in call reply; do
		expect $n $d type 0
		expect $n $d reads 0
		expect $n $d writes 0
		expect $n $d reply 0
		expect $n $d rpcxid "$(printf '0x%08x' "${xid_of[$n]}")"
	done
done
# Long Call: RDMA_NOMSG, the whole call (40 + 4 + 12 * (4 + 400) =
# 4892 bytes) in one read chunk at position zero; the reply inline.
expect long-call call type 1
expect long-call call reads 1
expect long-call call pos 0
expect long-call call len 4892
expect long-call call writes 0
expect long-call call reply 0
expect long-call reply type 0
expect long-call reply reads 0
expect_rpc long-call 4
# DDP: the 8000-byte blob in a read chunk at XDR position 44 (after the
# call header and the blob's length); the rest inline (RDMA_MSG).
expect ddp-read call type 0
expect ddp-read call reads 1
expect ddp-read call pos 44
expect ddp-read call len 8000
expect_rpc ddp-read 1
expect ddp-read reply type 0
expect ddp-read reply reads 0
# A write chunk of 8192 offered; the reply says 6000 bytes went in it.
expect write-chunk call type 0
expect write-chunk call writes 1
expect write-chunk call segs 1
expect write-chunk call len 8192
expect write-chunk call reply 0
expect write-chunk reply type 0
expect write-chunk reply writes 1
expect write-chunk reply segs 1
expect write-chunk reply len 6000
expect write-chunk reply reply 0
# A reply chunk of 8192 offered; the reply (24 + 4 + 6000 = 6028 bytes)
# came in it: RDMA_NOMSG.
expect reply-chunk call type 0
expect reply-chunk call writes 0
expect reply-chunk call reply 1
expect reply-chunk call segs 1
expect reply-chunk call len 8192
expect reply-chunk reply type 1
expect reply-chunk reply reply 1
expect reply-chunk reply segs 1
expect reply-chunk reply len 6028
# 3000 bytes inline both ways: each message spans several packets and is
# decoded in its last one (SEND Last, 2): tshark reassembled it.
for d in call reply; do
	if [ "$iwarp" = 1 ]; then
		echo "wire-check: not checked on iWARP: inline-3000 $d (tshark's dissector bug, above)"
		continue
	fi
	expect inline-3000 $d op 2
	expect inline-3000 $d type 0
	expect inline-3000 $d reads 0
	expect inline-3000 $d writes 0
	expect inline-3000 $d reply 0
	expect inline-3000 $d rpcxid "$(printf '0x%08x' "${xid_of[inline-3000]}")"
done
# RDMA_ERROR ERR_CHUNK for the unknown procedure.
expect err-chunk reply type 4
expect err-chunk reply err 2

if [ "$fail" = 0 ]; then
	echo "wire-check: all checks passed"
else
	echo "wire-check: tshark's files are in $out"
fi
exit "$fail"
