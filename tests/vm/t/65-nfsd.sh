# Interoperability with the Linux kernel's nfsd (tests/vm/t_nfs): a tmpfs
# exported over NFSv3, nfsd listening on rdma port 20049, our CLIENT
# doing NULL, LOOKUP, GETATTR, FSINFO, READ and WRITE up to rtmax/wtmax
# with the kernel's write and read chunks (softroce-vm.md has the recipe).
# Then our client tool nfs/nfs3c against the same nfsd over rdma and, as
# the control (in the guest tier's first boot only), over tcp: null,
# getattr, lookup, ls -l (these three, and the rewrite below, in the
# first boot only), a 64 MiB
# READ (16 MiB in the boots after the first) and a WRITE
# of RPCRDMA_T_NFSC_WBIG bytes (64 MiB on both kernels: nfsd pulls it in
# its wtpref pieces of 256 KiB, which 6.1's rxe reads in time) compared with the
# export on disk, ls of a directory of 2,000 entries (the exact set of
# names); over rdma the kernel's Private Data parsed (inline thresholds),
# READ data in write chunks, WRITE data in read chunks, READDIRPLUS in
# reply chunks, and with more slots than nfsd's grant of 64 and 96
# threads, never more calls in flight than granted.
# Everything it starts is stopped again for the tests after it.
# vm-timeout: 480
. "$RPCRDMA_SRCDIR/tests/vm/nfsd-lib.sh" || exit 1
nfsd_require

dir=/run/rpcrdma-t-nfs
loc=/run/rpcrdma-t-nfsc
cleanup() {
	nfsd_cleanup
	umount "$loc" 2>/dev/null
}
trap cleanup EXIT
die() { echo "65-nfsd: $*"; exit 1; }

nfsd_export "$dir" 512m 7319
o=$(rpc.mountd -N 2 -N 4 2>&1) || die "rpc.mountd: $o"
o=$(rpc.nfsd -N 4 -N 4.1 -N 4.2 4 2>&1) || die "rpc.nfsd: $o"
echo "rdma 20049" >/proc/fs/nfsd/portlist || die "nfsd would not listen on rdma 20049"
echo "65-nfsd: nfsd $(cat /proc/fs/nfsd/versions) on $(tr '\n' ' ' </proc/fs/nfsd/portlist)"

RPCRDMA_T_NFS_DIR=$dir ./tests/vm/t_nfs || exit 1

# ---- nfs/nfs3c, our NFSv3 client tool, against nfsd ----
# The binary, not libtool's wrapper (tests/vm/prog-lib.sh).
. "$RPCRDMA_SRCDIR/tests/vm/prog-lib.sh" || exit 1
prog "$RPCRDMA_BUILDDIR" nfs/nfs3c
c3=$REPLY
[ -x $c3 ] || die "$c3 not built"
A=${RPCRDMA_ADDR_A:?}
B=${RPCRDMA_ADDR_B:?}
RBIG=67108864
# 64 MiB on 6.1 too, unlike t/66-nfs3d.sh: Linux 6.1's rxe stalls large
# RDMA Reads, but nfsd issues them in its wtpref pieces of 256 KiB.
WBIG=${RPCRDMA_T_NFSC_WBIG:-67108864}
# The boots after the first (RPCRDMA_T_CONTROLS=0: 6.1 under ASan, siw)
# move 16 MiB each way, still 64 calls of 256 KiB: the paths are the
# same, and 64 MiB took 31 s of the ASan boot's 136.
if [ "${RPCRDMA_T_CONTROLS:-1}" = 0 ]; then
	RBIG=16777216
	WBIG=${RPCRDMA_T_NFSC_WBIG:-16777216}
fi
t0=$(date +%s)
say() { echo "65-nfsd: nfs3c: [$(($(date +%s) - t0)) s] $*"; }
mkdir -p "$loc" && mount -t tmpfs -o size=400m tmpfs "$loc" || die "tmpfs on $loc"
head -c $RBIG /dev/urandom >"$dir/r_big" || die "r_big"
head -c "$WBIG" /dev/urandom >"$loc/w_src" || die "w_src"
mkdir "$dir/dir2000" || die "mkdir dir2000"
for i in $(seq 2000); do : >"$dir/dir2000/entry-$i"; done
ls -A "$dir/dir2000" | sort >"$loc/names.want"
[ "$(wc -l <"$loc/names.want")" = 2000 ] || die "dir2000 has $(wc -l <"$loc/names.want") names"
# rdma needs the source address (both ports are in this guest).
export RPCRDMA_SRCADDR=$A
# One "key=value" from nfs3c -v's line $2 of the file $1.
kv() { sed -n "s/^nfs3c: $2.* $3=\([0-9]*\).*/\1/p" "$1" | tail -n 1; }

# The tcp control only in the guest tier's first boot (RPCRDMA_T_CONTROLS,
# set to 0 by guest-tier.sh for the boots after it): tcp is libtirpc's
# transport and the kernel's, and proves nothing new on a second kernel
# or provider.
nets="rdma tcp"
if [ "${RPCRDMA_T_CONTROLS:-1}" = 0 ]; then
	nets=rdma
	say "tcp control: not in this boot (RPCRDMA_T_CONTROLS=0; the first boot runs it)"
fi
for net in $nets; do
	C="$c3 -n $net -v"
	o=$($C "$B:$dir" null 2>"$loc/err") || die "$net: null: $(cat "$loc/err")"
	[ "$o" = "null: ok" ] || die "$net: null said '$o'"
	if [ $net = rdma ]; then
		grep "^nfs3c: rdma inline (connected)" "$loc/err" | sed 's/^/65-nfsd:   /'
		grep -q "^nfs3c: rdma inline (connected):.* peer_sent_pvtdata=1 " "$loc/err" ||
			die "rdma: nfsd's Private Data was not seen"
		sm=$(kv "$loc/err" "rdma inline (connected)" send_max)
		rm_=$(kv "$loc/err" "rdma inline (connected)" recv_max)
		# nfsd advertises its max_req_size (4096) both ways
		# (shared/docs/linux-interop.md): both thresholds are whole
		# KiB from 1024, not the 1024 fallback of no Private Data.
		[ "${sm:-0}" -ge 4096 ] && [ $((sm % 1024)) = 0 ] &&
			[ "${rm_:-0}" -ge 4096 ] && [ $((rm_ % 1024)) = 0 ] ||
			die "rdma: inline thresholds send_max=$sm recv_max=$rm_"
	fi
	# The small procedures and nfs3c's own answers (a file handle, an
	# NFS error) in the first boot only: inline calls like NULL's, the
	# same on any kernel or provider, and each run of a program under
	# ASan costs about 2 s of the ASan boot.
	if [ "${RPCRDMA_T_CONTROLS:-1}" != 0 ]; then
		o=$($C "$B:$dir" getattr r_big 2>"$loc/err") || die "$net: getattr: $(cat "$loc/err")"
		echo "$o" | grep -q "^type=REG .* size=$RBIG " || die "$net: getattr said '$o'"
		h=$($C "$B:$dir" lookup r_big 2>"$loc/err") || die "$net: lookup: $(cat "$loc/err")"
		echo "$h" | grep -Eq '^([0-9a-f]{2}){8,64}$' || die "$net: lookup said '$h'"
		o=$($C "$B:$dir" lookup no/such 2>&1) && die "$net: lookup of a missing name succeeded"
		echo "$o" | grep -q "^nfs3c: LOOKUP no/such: NFS3ERR_NOENT$" || die "$net: lookup no/such said '$o'"
		say "$net: null, getattr, lookup ($h), NFS3ERR_NOENT"
	else
		say "$net: null (getattr and lookup in the first boot only)"
	fi

	$C "$B:$dir" read r_big "$loc/r_back" 2>"$loc/err" || die "$net: read: $(cat "$loc/err")"
	cmp "$dir/r_big" "$loc/r_back" || die "$net: read: r_big differs"
	say "$net: read of $RBIG bytes identical: $(grep "^nfs3c: read " "$loc/err")"
	if [ $net = rdma ]; then
		grep "^nfs3c: rdma \(chunks\|credits\) (end)" "$loc/err" | sed 's/^/65-nfsd:   /'
		rs=$(sed -n 's/^nfs3c: rdma: rsize \([0-9]*\) .*/\1/p' "$loc/err")
		n=$(kv "$loc/err" "rdma chunks (end)" replies_write_chunks)
		[ "${n:-0}" -ge $((RBIG / ${rs:-1})) ] || die "rdma: READ data in $n write chunks (rsize $rs)"
	fi
	rm -f "$loc/r_back"

	$C "$B:$dir" write "$loc/w_src" "w_$net" 2>"$loc/err" || die "$net: write: $(cat "$loc/err")"
	cmp "$loc/w_src" "$dir/w_$net" || die "$net: write: w_$net differs on the export"
	say "$net: write of $WBIG bytes identical on the export: $(grep "^nfs3c: write " "$loc/err")"
	if [ $net = rdma ]; then
		grep "^nfs3c: rdma chunks (end)" "$loc/err" | sed 's/^/65-nfsd:   /'
		ws=$(sed -n 's/^nfs3c: rdma: rsize [0-9]* wsize \([0-9]*\) .*/\1/p' "$loc/err")
		n=$(kv "$loc/err" "rdma chunks (end)" calls_read_chunks)
		[ "${n:-0}" -ge $((WBIG / ${ws:-1})) ] || die "rdma: WRITE data in $n read chunks (wsize $ws)"
	fi
	# Written again over the file: truncated, not appended to (nfs3c's
	# own logic: the first boot only).
	if [ "${RPCRDMA_T_CONTROLS:-1}" != 0 ]; then
		head -c 5000 "$loc/w_src" >"$loc/w_small"
		$C "$B:$dir" write "$loc/w_small" "w_$net" 2>"$loc/err" || die "$net: write again: $(cat "$loc/err")"
		cmp "$loc/w_small" "$dir/w_$net" || die "$net: the rewritten w_$net differs"
	fi
	rm -f "$dir/w_$net"

	$C "$B:$dir" ls dir2000 2>"$loc/err" | sort >"$loc/names.$net" ||
		die "$net: ls: $(cat "$loc/err")"
	cmp "$loc/names.want" "$loc/names.$net" ||
		die "$net: ls dir2000: $(diff "$loc/names.want" "$loc/names.$net" | head -n 5)"
	if [ $net = rdma ]; then
		n=$(kv "$loc/err" "rdma chunks (end)" reply_chunks)
		[ "${n:-0}" -ge 1 ] || die "rdma: READDIRPLUS replies in $n reply chunks"
		say "rdma: ls of 2000 names identical; $n READDIRPLUS replies in reply chunks"
	else
		say "tcp: ls of 2000 names identical"
	fi
	[ "${RPCRDMA_T_CONTROLS:-1}" = 0 ] && continue
	o=$($C "$B:$dir" ls -l 2>"$loc/err") || die "$net: ls -l: $(cat "$loc/err")"
	echo "$o" | grep -q "^- 0644 *$RBIG r_big$" && echo "$o" | grep -q "^d [0-7]* *[0-9]* dir2000$" ||
		die "$net: ls -l said: $o"
done

# The grant (RFC 8166 section 3.3): nfsd grants 64 whatever is asked;
# with 128 slots and 96 threads reading, never more than 64 in flight.
RPCRDMA_CREDITS=128 $c3 -v -j 96 -r 262144 "$B:$dir" read r_big "$loc/r_back" 2>"$loc/err" ||
	die "rdma, 96 threads: read: $(cat "$loc/err")"
cmp "$dir/r_big" "$loc/r_back" || die "rdma, 96 threads: r_big differs"
grep "^nfs3c: rdma credits (end)" "$loc/err" | sed 's/^/65-nfsd:   /'
g=$(kv "$loc/err" "rdma credits (end)" credits_granted)
p=$(kv "$loc/err" "rdma credits (end)" inflight_peak)
w=$(kv "$loc/err" "rdma credits (end)" credit_waits)
[ "${g:-0}" -ge 1 ] && [ "$g" -lt 128 ] || die "rdma: grant $g (128 asked)"
[ "${p:-0}" -ge 2 ] || die "rdma: 96 threads, at most $p calls in flight"
[ "$p" -le "$g" ] || die "rdma: $p calls in flight, $g granted"
say "rdma, 96 threads, 128 slots: grant $g, at most $p in flight, $w waits for a credit; read identical"
say "passed"
