#!/bin/bash
# bench/report.sh OUTDIR: the table and the plot of one benchmark run,
# from OUTDIR/results.txt (written by bench/guest.sh in the guest).
# Writes OUTDIR/table.txt (also printed) and OUTDIR/plot.png (gnuplot).
# Every figure's reference was measured in the same guest run; a figure
# missing from results.txt is an error, never a blank or a guess.
set -u
out=${1:?usage: report.sh OUTDIR}
res=$out/results.txt
[ -s "$res" ] || { echo "report: no results in $res" >&2; exit 1; }
# Functions below run in $(...) subshells: a missing figure is marked in
# a file, not a variable.
flag=$out/report.incomplete
rm -f "$flag"

# get KIND KEY=VALUE... FIELD: the FIELD of the first line of KIND that
# has every KEY=VALUE.
get() {
	local kind=$1 field=${!#} v
	local sel=("${@:2:$#-2}")
	v=$(awk -v kind="$kind" -v field="$field" -v sel="${sel[*]}" '
		$1 != kind { next }
		{
			delete kv
			for (i = 2; i <= NF; i++) {
				split($i, p, "=")
				kv[p[1]] = substr($i, length(p[1]) + 2)
			}
			n = split(sel, s, " ")
			for (i = 1; i <= n; i++) {
				split(s[i], p, "=")
				if (kv[p[1]] != substr(s[i], length(p[1]) + 2))
					next
			}
			print kv[field]
			exit
		}' "$res")
	if [ -z "$v" ]; then
		echo "report: no '$field' for $kind ${sel[*]} in $res" >&2
		touch "$flag"
		v=nan
	fi
	echo "$v"
}
calc() {
	awk "BEGIN { x = $1; if (x != x) print \"nan\"; else printf \"%.${2:-2}f\", x }" 2>/dev/null || echo nan
}
# ratio A B: A / B, or nan (and the run counts as incomplete) when B is 0.
ratio() {
	if awk -v b="$2" 'BEGIN { exit !(b + 0 > 0) }'; then
		calc "$1 / $2"
	else
		echo "report: a zero or missing reference ($2)" >&2
		touch "$flag"
		echo nan
	fi
}
# verdict VALUE OP LIMIT: "met" or "MISSED"
verdict() {
	awk -v a="$1" -v b="$3" -v op="$2" 'BEGIN {
		if (a == "nan" || b == "nan") { print "n/a"; exit }
		ok = (op == "<=") ? a <= b : (op == "<") ? a < b : (op == ">=") ? a >= b : a > b
		print ok ? "met" : "MISSED" }'
}

table=$out/table.txt
{
kernel=$(get guest kernel)
quick=$(get guest quick)
max_msg=$(get guest max_msg)
echo "librpcrdma benchmark: one guest run (kernel $kernel), TCG, 2 cores."
[ "$quick" = no ] || echo "QUICK RUN (bench/run --quick): counts too small to quote."
echo "Only ratios mean anything here; every reference was taken in the same run."
echo "MiB = 2^20 bytes (perftest's \"MB\"). RPCRDMA_MAX_MSG=$max_msg (4 MiB of data + headers)."
echo
fmt='%-44s %12s %12s %-22s %7s %s\n'
printf "$fmt" "figure" "rdma" "reference" "(reference is)" "ratio" "goal"
printf "$fmt" "------" "----" "---------" "--------------" "-----" "----"
row() {	# FIGURE RDMA REF REFNAME RATIO [GOAL]
	printf "$fmt" "$1" "$2" "$3" "$4" "$5" "${6:-}"
}

lat=$(get fabric tool=ib_send_lat typical_us)
lat2=$(calc "2 * $lat" 1)
r50=$(get rpc mode=lat netid=rdma p50_us)
t50=$(get rpc mode=lat netid=tcp p50_us)
r99=$(get rpc mode=lat netid=rdma p99_us)
t99=$(get rpc mode=lat netid=tcp p99_us)
x=$(ratio "$r50" "$lat2")
row "NULL latency p50, 1 in flight (us)" "$r50" "$lat2" "2 x ib_send_lat" "$x" \
	"<= 1.5: $(verdict "$x" '<=' 1.5)"
x=$(ratio "$r50" "$t50")
row "NULL latency p50, 1 in flight (us)" "$r50" "$t50" "tcp" "$x" \
	"< 1: $(verdict "$x" '<' 1)"
row "NULL latency p99, 1 in flight (us)" "$r99" "$t99" "tcp" "$(ratio "$r99" "$t99")"
x=$(ratio "$r99" "$r50")
row "NULL latency p99, 1 in flight (us)" "$r99" "$r50" "its p50" "$x" \
	"<= 3: $(verdict "$x" '<=' 3)"
d50=$(get rpcdefault mode=lat netid=rdma p50_us)
row "NULL latency p50, no reply hint (us)" "$d50" "$t50" "tcp" "$(ratio "$d50" "$t50")"
x=$(ratio "$d50" "$r50")
row "NULL latency p50, no reply hint (us)" "$d50" "$r50" "with hints" "$x" \
	"<= 1.1: $(verdict "$x" '<=' 1.1)"
p50=$(get rpcnopoll mode=lat netid=rdma p50_us)
row "NULL latency p50, polling off (us)" "$p50" "$r50" "default (polls)" "$(ratio "$p50" "$r50")"
n50=$(get nfsd mode=lat netid=rdma p50_us)
x=$(ratio "$r50" "$n50")
row "NULL latency p50, our server (us)" "$r50" "$n50" "kernel nfsd, rdma" "$x" \
	"<= 1: $(verdict "$x" '<=' 1)"
row "NULL latency p50, nfsd over tcp (us)" "-" "$(get nfsd mode=lat netid=tcp p50_us)" "(for scale)" "-"

sbw=$(get fabric tool=ib_send_bw msg_per_s)
for t in $(awk '$1 == "rpc" && /mode=rate/ && /netid=rdma/ && /clients=shared/ {
		for (i = 2; i <= NF; i++) if ($i ~ /^threads=/) print substr($i, 9) }' "$res"); do
	modes="shared own"
	[ "$t" = 32 ] && modes="shared 4 own"
	for m in $modes; do
		case $m in
		shared) what="1 CLIENT" ;;
		own) what="a CLIENT each" ;;
		*) what="$m CLIENTs" ;;
		esac
		r=$(get rpc mode=rate netid=rdma threads="$t" clients="$m" calls_per_s)
		c=$(get rpc mode=rate netid=tcp threads="$t" clients="$m" calls_per_s)
		x=$(ratio "$r" "$c")
		g=
		[ "$t" = 32 ] && g="> 1: $(verdict "$x" '>' 1)"
		row "NULL calls/s, $t in flight, $what" "$r" "$c" "tcp" "$x" "$g"
		if [ "$t" = 32 ]; then
			x=$(ratio "$r" "$sbw")
			row "NULL calls/s, $t in flight, $what" "$r" "$sbw" \
				"ib_send_bw 64 B msg/s" "$x" ">= 0.5: $(verdict "$x" '>=' 0.5)"
		fi
	done
done

# Issue 25's rate goal: one rdma CLIENT shared by 32 threads against what
# libtirpc users do over tcp, a CLIENT per thread.
r=$(get rpc mode=rate netid=rdma threads=32 clients=shared calls_per_s)
c=$(get rpc mode=rate netid=tcp threads=32 clients=own calls_per_s)
x=$(ratio "$r" "$c")
row "NULL calls/s, 32 in flight, 1 CLIENT" "$r" "$c" "tcp, a CLIENT each" \
	"$x" ">= 1: $(verdict "$x" '>=' 1)"

d=$(get rpcdefault mode=rate netid=rdma threads=32 clients=shared calls_per_s)
row "NULL calls/s, 32 in flight, 1 CLIENT, no hint" "$d" "$r" "with hints" "$(ratio "$d" "$r")"
p=$(get rpcnopoll mode=rate netid=rdma threads=32 clients=shared calls_per_s)
row "NULL calls/s, 32 in flight, 1 CLIENT, polling off" "$p" "$r" "default (polls)" "$(ratio "$p" "$r")"

# The server side: our server (svc_run, and a pool of 2 threads) against
# the kernel's nfsd (2 threads), the same client and load.
for m in shared 4; do
	case $m in
	shared) what="1 CLIENT" ;;
	*) what="$m CLIENTs" ;;
	esac
	r=$(get rpc mode=rate netid=rdma threads=32 clients="$m" calls_per_s)
	p=$(get rpcpool mode=rate netid=rdma threads=32 clients="$m" calls_per_s)
	n=$(get nfsd mode=rate netid=rdma threads=32 clients="$m" calls_per_s)
	x=$(ratio "$r" "$n")
	row "NULL calls/s, 32 in flight, $what, svc_run" "$r" "$n" \
		"kernel nfsd, rdma" "$x" ">= 1: $(verdict "$x" '>=' 1)"
	x=$(ratio "$p" "$n")
	row "NULL calls/s, 32 in flight, $what, pool 2" "$p" "$n" \
		"kernel nfsd, rdma" "$x" ">= 1: $(verdict "$x" '>=' 1)"
	row "NULL calls/s, 32 in flight, $what, pool 2" "$p" "$r" \
		"our svc_run" "$(ratio "$p" "$r")"
	row "NULL calls/s, 32 in flight, $what, nfsd tcp" "-" \
		"$(get nfsd mode=rate netid=tcp threads=32 clients="$m" calls_per_s)" \
		"(for scale)" "-"
done

sizes=$(awk '$1 == "rpc" && /mode=read/ && /netid=rdma/ {
	for (i = 2; i <= NF; i++) if ($i ~ /^size=/) print substr($i, 6) }' "$res")
human() {
	awk -v s="$1" 'BEGIN { if (s >= 1048576) printf "%d MiB", s / 1048576;
		else printf "%d KiB", s / 1024 }'
}
for dir in read write; do
	if [ "$dir" = read ]; then
		fab=ib_write_bw what="results (server to client)"
	else
		fab=ib_read_bw what="arguments (client to server)"
	fi
	for s in $sizes; do
		r=$(get rpc mode="$dir" netid=rdma size="$s" MiBps)
		c=$(get rpc mode="$dir" netid=tcp size="$s" MiBps)
		f=$(get fabric tool="$fab" size="$s" MiBps)
		x=$(ratio "$r" "$f")
		g=
		[ "$s" = 1048576 ] && g=">= 0.8: $(verdict "$x" '>=' 0.8)"
		row "$(human "$s") $what, MiB/s" "$r" "$f" "$fab" "$x" "$g"
		row "$(human "$s") $what, MiB/s" "$r" "$c" "tcp" "$(ratio "$r" "$c")"
	done
done

# A lossy fabric (netem drops 0.1% of the packets on the veth): 1 MiB
# results and arguments over rdma against tcp under the same loss; the
# fabric's retries are in fabric-loss.txt (rpcrdma-stat -f).
for dir in read write; do
	if [ "$dir" = read ]; then what="results"; else what="arguments"; fi
	r=$(get rpcloss mode="$dir" netid=rdma size=1048576 MiBps)
	c=$(get rpcloss mode="$dir" netid=tcp size=1048576 MiBps)
	row "1 MiB $what under 0.1% loss, MiB/s" "$r" "$c" "tcp" "$(ratio "$r" "$c")"
done

# NFS file I/O: the kernel client's dd of a 64 MiB file with direct I/O,
# our server (nfs3d) against the kernel's nfsd, mounted side by side;
# the rsize and wsize each mount negotiated.
mib=$(get nfsdd server=nfs3d netid=rdma op=read MiB)
for op in read write; do
	OP=$(echo "$op" | tr a-z A-Z)
	u=$(get nfsdd server=nfs3d netid=rdma op="$op" MiBps)
	k=$(get nfsdd server=knfsd netid=rdma op="$op" MiBps)
	ut=$(get nfsdd server=nfs3d netid=tcp op="$op" MiBps)
	kt=$(get nfsdd server=knfsd netid=tcp op="$op" MiBps)
	x=$(ratio "$u" "$k")
	row "NFS $OP $mib MiB, kernel client dd, MiB/s" "$u" "$k" \
		"kernel nfsd, rdma" "$x" ">= 1: $(verdict "$x" '>=' 1)"
	row "NFS $OP $mib MiB, kernel client dd, MiB/s" "$u" "$ut" \
		"nfs3d over tcp" "$(ratio "$u" "$ut")"
	# For scale, both servers over tcp (the first column is nfs3d's).
	row "NFS $OP $mib MiB dd over tcp: nfs3d, MiB/s" "$ut" "$kt" \
		"kernel nfsd, tcp" "$(ratio "$ut" "$kt")"
done
# NFS small I/O: fio 4 KiB random reads and writes, direct I/O, 32 in
# flight, nconnect 1 and 4 (4 only in a quick run), over rdma; nfs3d
# against the kernel's nfsd.
fio_nc="1 4"
[ "$quick" = no ] || fio_nc=4
for nc in $fio_nc; do
	for op in randread randwrite; do
		u=$(get nfsfio server=nfs3d op="$op" nconnect="$nc" iops)
		k=$(get nfsfio server=knfsd op="$op" nconnect="$nc" iops)
		x=$(ratio "$u" "$k")
		row "NFS fio 4 KiB $op IOPS, nconnect $nc" "$u" "$k" \
			"kernel nfsd, rdma" "$x" ">= 1: $(verdict "$x" '>=' 1)"
	done
done
kib() {	# SERVER SIZE: "rdma; tcp" in KiB (nan when missing)
	local n v out=
	for n in rdma tcp; do
		v=$(get nfsdd server="$1" netid="$n" op=read "$2")
		[ "$v" = nan ] || v=$((v / 1024))
		out="$out${out:+; }$v"
	done
	echo "$out"
}
for x in rsize wsize; do
	row "NFS $x negotiated (rdma; tcp), KiB" "$(kib nfs3d "$x")" \
		"$(kib knfsd "$x")" "kernel nfsd" "-"
done

for side in client server; do
	r=$(get instr side="$side" netid=rdma per_call)
	c=$(get instr side="$side" netid=tcp per_call)
	g=2500
	[ "$side" = server ] && g=3000
	row "user instructions per NULL call, $side" "$r" "$c" "tcp" "$(ratio "$r" "$c")" \
		"rdma <= $g: $(verdict "$r" '<=' "$g")"
done
# System calls and context switches per NULL call (perf stat), with the
# goals of issue 25 where it sets one.
for fl in 1 32; do
	for side in client server; do
		for what in syscalls csw; do
			case $fl.$side.$what in
			1.*.syscalls) g=4 ;;
			32.client.syscalls) g=3 ;;
			32.server.syscalls) g=1 ;;
			32.client.csw) g=1 ;;
			32.server.csw) g=0.5 ;;
			*) g= ;;
			esac
			name="system calls"
			[ "$what" = csw ] && name="context switches"
			r=$(get cost netid=rdma inflight=$fl "${side}_$what")
			c=$(get cost netid=tcp inflight=$fl "${side}_$what")
			# A count of 0 over tcp is a figure, not a missing one.
			x=-
			awk -v c="$c" 'BEGIN { exit !(c + 0 > 0) }' && x=$(ratio "$r" "$c")
			row "$name per NULL call, $side, $fl in flight" "$r" "$c" "tcp" \
				"$x" "${g:+rdma <= $g: $(verdict "$r" '<=' "$g")}"
		done
	done
done
# The verbs work behind a NULL call, each side (engine counters): no tcp
# reference; the client's doorbells at 32 in flight show how many callers
# shared one.
for fl in 1 32; do
	for what in doorbells wrs cqes recvs; do
		case $what in
		doorbells) name="send doorbells (ibv_post_send)" ;;
		wrs) name="send work requests" ;;
		cqes) name="completions reaped" ;;
		recvs) name="receives posted" ;;
		esac
		cv=$(get verbs inflight=$fl client_$what)
		sv=$(get verbs inflight=$fl server_$what)
		row "$name per NULL call, $fl in flight (client; server)" \
			"$cv; $sv" "-" "-" "-"
	done
done
echo
echo "Where the user-space instructions go (callgrind, self cost, top 8):"
for side in client server; do
	for netid in rdma tcp; do
		f=$out/cg.$side.$netid.txt
		echo "  $side over $netid:"
		[ -f "$f" ] || { echo "    (missing)"; touch "$flag"; continue; }
		awk '/file:function/ { go = 1; getline; next }
			# Zeroing the counts mid-call leaves the frames above
			# it with the whole total: not a function of its own.
			go && NF && !/\(100\.0%\)/ {
				match($0, /\( *[0-9.]+%\)/)
				pct = substr($0, RSTART + 1, RLENGTH - 2)
				gsub(/ /, "", pct)
				fn = substr($0, RSTART + RLENGTH)
				lib = fn
				sub(/^ +/, "", fn); sub(/ \[.*$/, "", fn)
				sub(/^.*:/, "", fn); sub(/@@.*$/, "", fn)
				sub(/^.*\//, "", lib); sub(/\]$/, "", lib)
				printf "    %6s  %-36s %s\n", pct, fn, lib
				if (++n == 8) exit }' "$f"
	done
done
} >"$table"
cat "$table"

# ---- the plot ----
dat=$out/plot.dat
{
	echo "# size rdma_read tcp_read ib_write_bw rdma_write tcp_write ib_read_bw (MiB/s)"
	for s in $sizes; do
		echo "$s $(get rpc mode=read netid=rdma size="$s" MiBps) \
$(get rpc mode=read netid=tcp size="$s" MiBps) \
$(get fabric tool=ib_write_bw size="$s" MiBps) \
$(get rpc mode=write netid=rdma size="$s" MiBps) \
$(get rpc mode=write netid=tcp size="$s" MiBps) \
$(get fabric tool=ib_read_bw size="$s" MiBps)"
	done
} >"$dat"
lat_dat=$out/plot-lat.dat
{
	echo "\"rdma (ours)\" $r50"
	echo "\"tcp (libtirpc)\" $t50"
	echo "\"nfsd, rdma\" $n50"
	echo "\"2 x ib\\\\_send\\\\_lat\" $lat2"
} >"$lat_dat"
if command -v gnuplot >/dev/null; then
	gnuplot <<GP || { echo "report: gnuplot failed" >&2; touch "$flag"; }
set terminal png size 1200,500 font ",10"
set output "$out/plot.png"
set multiplot layout 1,2 title "librpcrdma vs libtirpc tcp vs the fabric ($kernel, TCG guest)"
set logscale x 2
set xtics ($(for s in $sizes; do printf '"%s" %s,' "$(human "$s")" "$s"; done | sed 's/,$//'))
set xlabel "size of the result or argument"
set ylabel "MiB/s"
set key top left
set grid
plot "$dat" u 1:2 w lp lw 2 t "rdma results", \
     "$dat" u 1:5 w lp lw 2 t "rdma arguments", \
     "$dat" u 1:3 w lp dt 2 t "tcp results", \
     "$dat" u 1:6 w lp dt 2 t "tcp arguments", \
     "$dat" u 1:4 w l lw 1 lc rgb "gray40" t "ib\\\\_write\\\\_bw", \
     "$dat" u 1:7 w l lw 1 lc rgb "gray70" t "ib\\\\_read\\\\_bw"
unset logscale x
set xlabel ""
set ylabel "NULL call p50, 1 in flight (us)"
set style fill solid 0.6
set boxwidth 0.6
set yrange [0:*]
unset key
plot "$lat_dat" u 0:2:xtic(1) w boxes
unset multiplot
GP
else
	echo "report: gnuplot not installed, no plot" >&2
	touch "$flag"
fi
if [ -e "$flag" ]; then
	echo "report: some figures are missing or invalid (see above)" >&2
	exit 1
fi
echo "report: $table, $out/plot.png"
