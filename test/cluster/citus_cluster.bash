# test/cluster/citus_cluster.bash - a throwaway Citus cluster on 127.0.0.1, sourced by
# test/cluster/citus.sh (server-tests.sh runs only *.sh files, so this one is not a test itself).
#
#   citus_cluster_start DIR    initdb and start a coordinator and two workers under DIR
#                              (a fresh directory), create the extension citus in a database
#                              citus_test on each and register the workers; sets CITUS_PORTS
#                              (coordinator first)
#   citus_cluster_stop         stop the three nodes (safe to call twice; use it in a trap)
#   cq [psql options]          psql on the coordinator, database citus_test (-X -q -At, stop on
#                              error); cq_node N [psql options] on node N (0 coordinator)
#   citus_cluster_crashes      prints the lines of the three server logs that show a crash, a
#                              PANIC or an internal error (SQLSTATE XX000); empty if none
#   citus_try_start N LIBS LOG start the stopped node N with shared_preload_libraries = LIBS,
#                              logging to LOG (not the node's own log); succeeds if the server
#                              came up (and stops it again), fails if it refused to start
#
# Each node gets shared_preload_libraries = '$CITUS_PRELOAD' (default 'citus,bloomfilter', the
# order doc/scaling-out.md gives: Citus refuses to start unless it comes first), listens on
# 127.0.0.1 only (and on a socket in DIR), on the first free ports from $CITUS_BASE_PORT
# (default 9701), away from the 5432+ range of pg_virtualenv.  As root the servers run as the
# postgres user (PostgreSQL refuses root).  Logs: DIR/node<N>.log, every line prefixed with its
# SQLSTATE.  A repartition join gets one merge task per node instead of Citus's four
# (citus.repartition_join_bucket_count_per_node): 3 instead of 12, the same answers in about a
# third of the time.

CITUS_NODES=3
CITUS_PRELOAD=${CITUS_PRELOAD:-citus,bloomfilter}
CITUS_DIR=
CITUS_PORTS=()
citus_pgbin=$("$PG_CONFIG" --bindir)

# run a PostgreSQL server program as the owner of the data directories, without the libpq
# settings of the caller's environment (pg_virtualenv's), which the servers would pass on to
# the connections Citus opens between the nodes
citus_as_owner() {
	local clean=(env -u PGHOST -u PGHOSTADDR -u PGPORT -u PGUSER -u PGPASSWORD -u PGDATABASE
		-u PGOPTIONS -u PGSERVICE -u PGSSLMODE)
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "${clean[@]}" "$@"
	else
		"${clean[@]}" "$@"
	fi
}

citus_port_free() { # port
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

cq_node() { # node, psql options
	local n=$1
	shift
	psql -X -q -At -v ON_ERROR_STOP=1 -h "$CITUS_DIR" -p "${CITUS_PORTS[$n]}" -U postgres \
		-d citus_test "$@"
}

cq() { cq_node 0 "$@"; }

citus_cluster_start() { # dir
	local dir=$1 n port
	CITUS_DIR=$dir
	mkdir -p "$dir"
	[ "$(id -u)" != 0 ] || chown postgres: "$dir"
	port=${CITUS_BASE_PORT:-9701}
	for ((n = 0; n < CITUS_NODES; n++)); do
		while ! citus_port_free "$port" || [ -e "$dir/.s.PGSQL.$port" ]; do port=$((port + 1)); done
		CITUS_PORTS[n]=$port
		port=$((port + 1))
		citus_as_owner "$citus_pgbin/initdb" -D "$dir/node$n" -U postgres -A trust -E UTF8 \
			--locale=C.UTF-8 --no-sync >"$dir/initdb$n.log" 2>&1 ||
			{ cat "$dir/initdb$n.log" >&2; return 1; }
		cat >>"$dir/node$n/postgresql.conf" <<-EOF
			port = ${CITUS_PORTS[n]}
			listen_addresses = '127.0.0.1'
			unix_socket_directories = '$dir'
			shared_preload_libraries = '$CITUS_PRELOAD'
			citus.enable_statistics_collection = off
			fsync = off
			max_connections = 200
			shared_buffers = 64MB
			log_line_prefix = '%m [%p] %e '
			log_min_messages = warning
			citus.repartition_join_bucket_count_per_node = 1
		EOF
		citus_as_owner "$citus_pgbin/pg_ctl" -D "$dir/node$n" -l "$dir/node$n.log" -w -t 60 \
			start >/dev/null || { cat "$dir/node$n.log" >&2; return 1; }
	done
	for ((n = 0; n < CITUS_NODES; n++)); do
		psql -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "${CITUS_PORTS[n]}" -U postgres -d postgres \
			-c "CREATE DATABASE citus_test" || return 1
		cq_node "$n" -c "SET client_min_messages = warning" -c "CREATE EXTENSION citus" || return 1
	done
	cq -c "SELECT citus_set_coordinator_host('127.0.0.1', ${CITUS_PORTS[0]})" \
		-c "SELECT 1 FROM citus_add_node('127.0.0.1', ${CITUS_PORTS[1]})" \
		-c "SELECT 1 FROM citus_add_node('127.0.0.1', ${CITUS_PORTS[2]})" >/dev/null || return 1
}

citus_cluster_stop() {
	local n
	[ -n "$CITUS_DIR" ] || return 0
	for ((n = 0; n < ${#CITUS_PORTS[@]}; n++)); do
		[ -f "$CITUS_DIR/node$n/postmaster.pid" ] || continue
		citus_as_owner "$citus_pgbin/pg_ctl" -D "$CITUS_DIR/node$n" -m immediate -w -t 60 \
			stop >/dev/null 2>&1 || true
	done
}

citus_cluster_crashes() {
	local n
	for ((n = 0; n < ${#CITUS_PORTS[@]}; n++)); do
		grep -H -E 'terminated by signal|PANIC|TRAP:| XX000 (ERROR|FATAL):' \
			"$CITUS_DIR/node$n.log" || true
	done
}

citus_try_start() { # node, libraries, log file
	local n=$1 libs=$2 log=$3
	[ "$(id -u)" != 0 ] || { touch "$log" && chown postgres: "$log"; }
	citus_as_owner "$citus_pgbin/pg_ctl" -D "$CITUS_DIR/node$n" -l "$log" -w -t 60 \
		-o "-c shared_preload_libraries=$libs" start >/dev/null 2>&1 || return 1
	citus_as_owner "$citus_pgbin/pg_ctl" -D "$CITUS_DIR/node$n" -m immediate -w -t 60 \
		stop >/dev/null 2>&1 || true
}
