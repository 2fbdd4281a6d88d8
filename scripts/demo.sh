#!/usr/bin/env bash
# scripts/demo.sh - "make demo": install what is missing, build, install, then run
# scripts/demo.sql with psql in a throwaway PostgreSQL cluster (pg_virtualenv).

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bf_run_in_root_if_needed "$@"
cd "$BF_ROOT"

bash scripts/deps.sh
bf_resolve_pg_config

bf_say "make all"
"$MAKE" all PG_CONFIG="$PG_CONFIG"
bf_install

bf_say "demo in a throwaway PostgreSQL $PG_MAJOR cluster (pg_virtualenv)"
bf_virtualenv psql -X -v ON_ERROR_STOP=1 -f "$BF_ROOT/scripts/demo.sql"
