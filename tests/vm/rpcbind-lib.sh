# Sourced by guest suites that need rpcbind: rpcbind_up starts one in
# the foreground of a background job when none answers, and waits until
# it does (up to 5 s); rpcbind_pid is then its pid (the caller stops it),
# empty when one was running already. Returns 1 when none answers.
rpcbind_pid=
rpcbind_up() {
	rpcinfo -p 127.0.0.1 >/dev/null 2>&1 && return 0
	mkdir -p /run/rpcbind
	rpcbind -f &
	rpcbind_pid=$!
	for _ in $(seq 50); do
		rpcinfo -p 127.0.0.1 >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}
