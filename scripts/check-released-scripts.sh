#!/usr/bin/env bash
# scripts/check-released-scripts.sh - released install and upgrade scripts never change.
#
# A database that ran "CREATE EXTENSION bloomfilter VERSION '1.0'" or an update script holds
# what that script made; were the script edited later, a fresh install of the same version
# would differ from it, and pg_dump/pg_upgrade would rebuild something else.  So once a
# version is released its scripts are frozen: test/released-scripts.sha256 lists every
# released script with its SHA-256, and this check fails when one differs or is missing.  A
# script not listed is a version in the making (listed when it is released).  The version
# bloomfilter.control installs by default must be released.
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
exit $status
