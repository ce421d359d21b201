# Sourced by the guest tests that run nfs/nfs3c or nfs/nfs3d (t/65, 66,
# 67, 69).
#
# prog BUILDDIR PATH sets REPLY to the way to run the uninstalled program
# PATH of BUILDDIR (nfs/nfs3c): the binary in .libs, not libtool's
# wrapper script. An installed program linked to the uninstalled
# librpcrdma gets a wrapper, which runs bash, three sed and an ls before
# the program: about a second a run under TCG (nfs3c null over rdma took
# 1.9 s through it and 0.75 s without). The binary needs the library's
# directory on LD_LIBRARY_PATH, as the wrapper would set it; that is
# exported here.
prog() {
	local d=${2%/*} b=${2##*/}
	[ "$d" = "$2" ] && d=.
	REPLY=$1/$2
	[ -x "$1/$d/.libs/$b" ] || return 0
	REPLY=$1/$d/.libs/$b
	case ":${LD_LIBRARY_PATH:-}:" in
	*":$1/.libs:"*) ;;
	*) export LD_LIBRARY_PATH=$1/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ;;
	esac
}
