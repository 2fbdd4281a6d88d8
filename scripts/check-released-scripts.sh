#!/usr/bin/env bash
# scripts/check-released-scripts.sh - released install and upgrade scripts never change.
#
# A database that ran "CREATE EXTENSION bloomfilter VERSION '1.0'" or an update script holds
# what that script made; were the script edited later, a fresh install of the same version
# would differ from it, and pg_dump/pg_upgrade would rebuild something else.  So once a
# version is released its scripts are frozen: test/released-scripts.sha256 lists every
# released script with its SHA-256, and this check fails when one differs or is missing.  A
# script not listed is a version in the making (listed when it is released).  The version
# bloomfilter.control installs by default must be released, and its install script must be
# exactly what the template bloomfilter.sql.in gives (scripts/gen-install-script.awk; make
# install-script writes it).
#
# Run by test/cluster/upgrade.sh (so by make test).  Exits non-zero on failure.

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$BF_ROOT"

list=test/released-scripts.sha256
status=0
while read -r sum file; do
	if [ ! -f "$file" ]; then
		echo "FAIL: $file is released (in $list) but missing"
		status=1
	elif [ "$(sha256sum "$file" | cut -d' ' -f1)" != "$sum" ]; then
		echo "FAIL: $file differs from the released script: released scripts are frozen;" \
			"write the change as a new version and its update script"
		status=1
	else
		echo "ok:   $file is as released"
	fi
done <"$list"
for file in bloomfilter--*.sql; do
	grep -q " $file\$" "$list" || echo "note: $file is not released yet (not in $list)"
done
default=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" bloomfilter.control)
if ! grep -q " bloomfilter--$default.sql\$" "$list"; then
	echo "FAIL: the default version $default (bloomfilter.control) has no released install script in $list"
	status=1
fi
generated=$(mktemp)
trap 'rm -f "$generated"' EXIT
if ! awk -f scripts/gen-install-script.awk bloomfilter.sql.in >"$generated"; then
	echo "FAIL: bloomfilter.sql.in: the template does not generate"
	status=1
elif ! cmp -s "$generated" "bloomfilter--$default.sql"; then
	echo "FAIL: bloomfilter--$default.sql is not what bloomfilter.sql.in gives (make install-script writes it):"
	diff -u "bloomfilter--$default.sql" "$generated" | head -40
	status=1
else
	echo "ok:   bloomfilter--$default.sql is what the template bloomfilter.sql.in gives"
fi
exit $status
