#!/usr/bin/env bash
# scripts/cross-version.sh - a pg_dump of PostgreSQL 15 restores into 17 and 18 byte for byte.
#
#     bash scripts/cross-version.sh            dump on 15 (this machine), restore in the roots
#     bash scripts/cross-version.sh restore    (inside a root: the restoring half)
#
# test/cluster/dump_restore.sh builds its database of filters of every variant and element type
# (TOASTed, compressed and inline ones too) in a throwaway PostgreSQL 15 cluster and writes its
# pg_dump -Fc and the length and md5 of every filter's bytes and text form; in the Debian root
# of each later version (scripts/roots.sh) the same script restores that dump and requires the
# same fingerprint, every element found and bloomfilter_info reading every filter.  Expects
# the extension to be installed in each (make test, or make install, ran there first: the
# all-versions target of scripts/test.sh runs this last).
#
# Environment: CROSS_FROM (default 15), CROSS_TO (default "17 18").

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$BF_ROOT"

run_dump_restore() { # export|import directory
	local mode=$1 dir=$2
	bf_resolve_pg_config
	"$MAKE" -s install PG_CONFIG="$PG_CONFIG" >/dev/null
	bf_virtualenv bash -c '
		createdb bf_cross
		if [ "$1" = export ]; then export BF_CROSS_EXPORT=$2; else export BF_CROSS_IMPORT=$2; fi
		PGDATABASE=bf_cross BF_TMPDIR=$(mktemp -d) bash test/cluster/dump_restore.sh' bf-cross "$mode" "$dir"
}

if [ "${1:-}" = restore ]; then
	run_dump_restore import "$BF_ROOT/build/cross"
	exit
fi

from=${CROSS_FROM:-15}
[ "$from" = "$PG_MAJOR" ] || bf_die "the dump is made by this machine's PostgreSQL $PG_MAJOR, not $from"
dir=$BF_ROOT/build/cross
rm -rf "$dir"
bf_say "PostgreSQL $from: the source database and its dump"
run_dump_restore export "$dir"
chmod -R a+rX "$dir"

status=0
for to in ${CROSS_TO:-17 18}; do
	bf_say "PostgreSQL $to: restore the $from dump"
	root=${BF_ROOTS:-$BF_ROOT/build/roots}/pg$to
	bash scripts/roots.sh "$to" >/dev/null
	rm -rf "$root/bf/tree/build/cross"
	mkdir -p "$root/bf/tree/build"
	cp -a "$dir" "$root/bf/tree/build/cross"
	bash scripts/roots.sh "$to" run bash scripts/cross-version.sh restore || status=1
done
[ "$status" -eq 0 ] && echo "cross-version: a PostgreSQL $from dump restores byte for byte into ${CROSS_TO:-17 18}"
exit $status
