#!/usr/bin/env bash
# test/cluster/upgrade.sh - ALTER EXTENSION bloomfilter UPDATE from 1.0 (through 1.1) gives a fresh 1.2.
#
#   1. the released install and update scripts are unchanged (scripts/check-released-scripts.sh);
#   2. in $PGDATABASE a role that is not a superuser (the extension is trusted) installs 1.0,
#      stores filters of every variant (inline, compressed, out of line, grown), filters of hash
#      scheme 1 as releases 1.0 and 1.1 built them (numeric, interval, jsonb, float elements,
#      whose hashing scheme 2 changed), a view and a CHECK constraint that use the extension,
#      and a PL/pgSQL function adding in a loop;
#   3. the same role runs ALTER EXTENSION bloomfilter UPDATE, in the session that used them;
#   4. the catalog then equals a fresh 1.2 install with the same objects in another database:
#      every extension member with its definition (functions with their volatility, strictness,
#      parallel safety, cost, support function and C symbol; comments), and pg_dump
#      --schema-only --binary-upgrade of both (object identifiers left out);
#   5. the stored filters have the same bytes, text form, bloomfilter_info and @> answers as
#      before the update, the view and the loop give the same filters, add, ||, union and remove
#      work on them, and UPDATE TO '1.0' (no such path) fails cleanly.
#
# Run by scripts/server-tests.sh (PGDATABASE a fresh database).  Prints one PASS or FAIL line;
# exits non-zero on failure.  Drops the database and role it creates.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

: "${PGDATABASE:?set PGDATABASE to an empty database}"
BF_ROOT=${BF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
old=$PGDATABASE
fresh=bf_upgrade_fresh_$$
owner=bf_upgrade_owner_$$
work=$(mktemp -d -t bf-upgrade.XXXXXX)

export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"

cleanup() {
	q -d postgres -c "DROP DATABASE IF EXISTS $fresh" >/dev/null 2>&1 || true
	q -d "$old" -c "DROP EXTENSION IF EXISTS bloomfilter CASCADE" -c "DROP OWNED BY $owner" \
		>/dev/null 2>&1 || true
	q -d postgres -c "DROP ROLE IF EXISTS $owner" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

same() { # description, file, file
	if diff -u "$2" "$3" >"$work/diff"; then
		echo "ok:   $1"
	else
		echo "FAIL: $1 (- ${2##*/}, + ${3##*/}):"
		head -40 "$work/diff"
		fail=1
	fi
}

# ---- 1. released scripts ----------------------------------------------------------------------
bash "$BF_ROOT/scripts/check-released-scripts.sh" || fail=1

latest=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$BF_ROOT/bloomfilter.control")
check "bloomfilter.control installs 1.2 by default (found $latest)" test "$latest" = 1.2

# ---- 2. version 1.0 with filters, a view, a constraint and a function ------------------------
password=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
q -d postgres -c "CREATE ROLE $owner LOGIN PASSWORD '$password'" -c "GRANT CREATE ON DATABASE $old TO $owner" \
	-c "CREATE DATABASE $fresh" -c "GRANT CREATE ON DATABASE $fresh TO $owner"
for db in "$old" "$fresh"; do
	q -d "$db" -c "GRANT CREATE ON SCHEMA public TO $owner"
done

# the user's objects: the same in both databases
cat >"$work/objects.sql" <<'SQL'
CREATE TABLE filters (id int PRIMARY KEY, variant text, f bloomfilter,
                      CHECK (f @> 'sentinel'::text));
ALTER TABLE filters ALTER COLUMN f SET STORAGE EXTENDED;
CREATE VIEW filter_facts AS
SELECT id, f @> 'item 7'::text AS has7, bloomfilter_add(f, 'view'::text) @> 'view'::text AS adds
FROM filters;
CREATE FUNCTION loop_filter(variant text, n int) RETURNS bloomfilter LANGUAGE plpgsql AS $$
DECLARE
	f bloomfilter := bloomfilter_create(n / 4, 0.01, variant);
BEGIN
	FOR i IN 1 .. n LOOP
		f := f || ('loop ' || i);
	END LOOP;
	RETURN f;
END $$;
SQL
cat >"$work/data.sql" <<'SQL'
INSERT INTO filters
SELECT row_number() OVER (), v, bloomfilter_add(bloomfilter_agg('item ' || g, n, 0.01, v), 'sentinel'::text)
FROM unnest(ARRAY['blocked', 'classic', 'counting', 'scalable', 'cuckoo']) AS v,
     unnest(ARRAY[10, 100000]) AS n,             -- inline and large (out of line, or compressed)
     LATERAL generate_series(1, CASE WHEN v IN ('scalable', 'cuckoo') THEN n * 3 ELSE n / 2 END) g
GROUP BY v, n;
-- filters of hash scheme 1, byte for byte what releases 1.0 and 1.1 built (sql/hash_schemes.sql
-- checks that a scheme-1 header gives those bytes)
CREATE TABLE old_filters AS
SELECT v AS variant,
       bloomfilter_add_all(set_byte(bloomfilter_create(2000, 0.01, v)::bytea, 6, 1)::bloomfilter,
                           ARRAY(SELECT g / 4.0 FROM generate_series(1, 400) g))
       || '1 day'::interval || '{"a": 1.0}'::jsonb || '-0'::float8 AS f
FROM unnest(ARRAY['blocked', 'classic', 'counting', 'scalable', 'cuckoo']) AS v;
SQL
# what a session sees of the stored filters, the view and the loop
cat >"$work/facts.sql" <<'SQL'
SELECT id, variant, octet_length(f::bytea), md5(f::bytea), md5(f::text),
       (SELECT count(*) FROM generate_series(1, 1000) g WHERE f @> ('item ' || g)),
       (SELECT count(*) FROM generate_series(1, 1000) g WHERE f @> ('stranger ' || g)),
       (SELECT row(i.*)::text FROM bloomfilter_info(f) i)
FROM filters ORDER BY id;
SELECT * FROM filter_facts ORDER BY id;
SELECT variant, get_byte(f::bytea, 6) AS scheme, md5(f::bytea),
       (SELECT count(*) FROM generate_series(1, 400) g WHERE f @> g / 4.0),
       (SELECT count(*) FROM generate_series(1, 400) g WHERE f @> (g / 4.0)::numeric(10, 4)),
       f @> '1 day'::interval, f @> '24 hours'::interval, f @> '{"a": 1.0}'::jsonb,
       f @> '{"a": 1}'::jsonb, f @> '-0'::float8, f @> '0'::float8,
       get_byte((f || 5.0)::bytea, 6), (f || 5.0) @> 5.0
FROM old_filters ORDER BY variant;
SELECT v, md5(loop_filter(v, 300)::bytea)
FROM unnest(ARRAY['blocked', 'classic', 'counting', 'scalable', 'cuckoo']) v ORDER BY v;
SQL

PGUSER=$owner PGPASSWORD=$password q -d "$old" -c "CREATE EXTENSION bloomfilter VERSION '1.0'" -f "$work/objects.sql" -f "$work/data.sql"
check "installed 1.0 as a role that is not a superuser" \
	test "$(q -d "$old" -At -c "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'")" = 1.0
read -r nfilters outline < <(q -d "$old" -At -F ' ' -c "SELECT count(*), count(*) FILTER (WHERE pg_column_size(f) < octet_length(f::bytea) / 2) FROM filters")
echo "      $nfilters filters of every variant, $outline of them compressed"

# ---- 3. the update, in the session that used the objects --------------------------------------
PGUSER=$owner PGPASSWORD=$password q -d "$old" -At -o "$work/before.txt" -f "$work/facts.sql"
PGUSER=$owner PGPASSWORD=$password q -d "$old" -At -f "$work/facts.sql" -c "ALTER EXTENSION bloomfilter UPDATE" \
	-f "$work/facts.sql" >"$work/same_session.txt"
check "ALTER EXTENSION bloomfilter UPDATE by the owner: 1.0 -> $(q -d "$old" -At -c "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'")" \
	test "$(q -d "$old" -At -c "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'")" = 1.2
# one session: the same answers before and after the update
n=$(wc -l <"$work/before.txt")
head -n "$n" "$work/same_session.txt" >"$work/session_before.txt"
tail -n +"$((n + 1))" "$work/same_session.txt" >"$work/session_after.txt"
same "in one session: stored filters, the view and the PL/pgSQL loop answer the same before and after the update" \
	"$work/session_before.txt" "$work/session_after.txt"
PGUSER=$owner PGPASSWORD=$password q -d "$old" -At -o "$work/after.txt" -f "$work/facts.sql"
same "a new session after the update: the same bytes, text, bloomfilter_info and @> answers" \
	"$work/before.txt" "$work/after.txt"

# ---- 4. the catalog equals a fresh 1.2 ------------------------------------------------------
PGUSER=$owner PGPASSWORD=$password q -d "$fresh" -c "CREATE EXTENSION bloomfilter" -f "$work/objects.sql" -f "$work/data.sql"
cat >"$work/members.sql" <<'SQL'
SELECT pg_describe_object(d.classid, d.objid, d.objsubid),
       CASE WHEN d.classid = 'pg_proc'::regclass THEN
           (SELECT format('%s(%s) -> %s kind %s volatile %s strict %s parallel %s cost %s rows %s support %s symbol %s',
                          p.proname, pg_get_function_identity_arguments(p.oid),
                          pg_get_function_result(p.oid), p.prokind, p.provolatile, p.proisstrict,
                          p.proparallel, p.procost, p.prorows, p.prosupport, p.prosrc)
            FROM pg_proc p WHERE p.oid = d.objid)
       WHEN d.classid = 'pg_operator'::regclass THEN
           (SELECT format('%s %s %s commutator %s negator %s restrict %s join %s',
                          o.oprname, o.oprcode, o.oprresult::regtype, o.oprcom::regoper,
                          o.oprnegate::regoper, o.oprrest, o.oprjoin)
            FROM pg_operator o WHERE o.oid = d.objid)
       WHEN d.classid = 'pg_type'::regclass THEN
           (SELECT format('%s len %s in %s out %s recv %s send %s align %s storage %s',
                          t.typname, t.typlen, t.typinput, t.typoutput, t.typreceive, t.typsend,
                          t.typalign, t.typstorage)
            FROM pg_type t WHERE t.oid = d.objid)
       END,
       obj_description(d.objid, d.classid::regclass::name)
FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomfilter')
ORDER BY 1;
SQL
q -d "$old" -At -o "$work/members_updated.txt" -f "$work/members.sql"
q -d "$fresh" -At -o "$work/members_fresh.txt" -f "$work/members.sql"
echo "      $(wc -l <"$work/members_fresh.txt") extension members in a fresh 1.2"
check "a fresh 1.2: bloomfilter_modify_support is the support function of 14 functions" \
	test "$(grep -c 'support bloomfilter_modify_support' "$work/members_fresh.txt")" -eq 14
same "catalog: every member's definition and comment, 1.0 updated = fresh 1.2" \
	"$work/members_updated.txt" "$work/members_fresh.txt"

dump() { # database, output
	"$bindir/pg_dump" --schema-only --binary-upgrade -d "$1" |
		grep -v -e 'binary_upgrade_set_next' -e '^-- Dumped' -e '^SET ' -e '^SELECT pg_catalog.set_config' \
			-e '^\\restrict' -e '^\\unrestrict' | sed "s/oid = '[0-9]*'/oid = '(oid)'/" >"$2"
}
dump "$old" "$work/dump_updated.sql"
dump "$fresh" "$work/dump_fresh.sql"
same "pg_dump --schema-only --binary-upgrade: 1.0 updated = fresh 1.2" \
	"$work/dump_updated.sql" "$work/dump_fresh.sql"

# ---- 5. the stored filters keep working ---------------------------------------------------------
PGUSER=$owner PGPASSWORD=$password q -d "$fresh" -At -o "$work/fresh_facts.txt" -f "$work/facts.sql"
same "the stored filters, the view and the loop give what a fresh 1.2 gives" \
	"$work/after.txt" "$work/fresh_facts.txt"
ops=$(PGUSER=$owner PGPASSWORD=$password q -d "$old" -At -c "
	UPDATE filters SET f = bloomfilter_add(f, 'added'::text) || 'concatenated'::text;
	UPDATE filters SET f = bloomfilter_remove(f, 'added'::text) WHERE variant IN ('counting', 'cuckoo');
	SELECT bool_and(f @> 'concatenated'::text AND f @> 'sentinel'::text
	                AND (f @> 'added'::text OR variant IN ('counting', 'cuckoo')))
	       AND bool_and(bloomfilter_union(f, f) @> 'item 1'::text)
	FROM filters")
check "bloomfilter_add, ||, bloomfilter_remove and bloomfilter_union work on the stored filters" test "$ops" = t
old_ops=$(PGUSER=$owner PGPASSWORD=$password q -d "$old" -At -c "
	SELECT bool_and(bloomfilter_hash_scheme(f) = 1 AND bloomfilter_hash_scheme(f || 9.0) = 1
	                AND (f || 9.0) @> 9.0 AND bloomfilter_union(f, f) @> 1 / 4.0
	                AND NOT bloomfilter_is_compatible(f, bloomfilter_create(2000, 0.01, variant)))
	FROM old_filters")
check "scheme-1 filters after the update: bloomfilter_hash_scheme says 1, adds keep scheme 1, they unite with their own scheme only" test "$old_ops" = t
err=$(PGUSER=$owner PGPASSWORD=$password q -d "$old" -c "ALTER EXTENSION bloomfilter UPDATE TO '1.0'" 2>&1) || true
check "ALTER EXTENSION bloomfilter UPDATE TO '1.0' fails cleanly ($(head -n1 <<<"$err"))" \
	grep -q 'no update path from version "1.2" to version "1.0"' <<<"$err"

if [ "$fail" -eq 0 ]; then
	echo "PASS: upgrade: 1.0 -> 1.2 by ALTER EXTENSION UPDATE equals a fresh 1.2 (catalog and pg_dump); $nfilters stored filters of every variant read and answer as before"
else
	echo "FAIL: upgrade"
	exit 1
fi
