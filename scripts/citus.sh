#!/usr/bin/env bash
# scripts/citus.sh - build Citus from its release tarball and install it into the PostgreSQL
# $PG_MAJOR that the tests use, for test/cluster/citus.sh.
#
#     bash scripts/citus.sh          build if need be, then install if need be
#     bash scripts/citus.sh build    build only
#
# Citus is not packaged for Debian.  The tarball is $CITUS_TARBALL, by default
# ../shared/vendor/citus-13.2.2.tar.gz beside the repository (where CI keeps it).  Without it
# this script says so and exits 3 ("skipped"); test/cluster/citus.sh then passes as skipped.
#
# The build is cached: the tarball is unpacked into build/citus-$CITUS_VERSION/src, patched,
# configured and built once (make -j2, no JIT bitcode); build/citus-$CITUS_VERSION/stamp records
# what was built (tarball checksum, patch, pg_config version), and a later run whose stamp
# matches does not build again.  "make install" runs only when the installed citus.so or
# citus.control differ from the build's.  Installing needs root (or a writable PostgreSQL).
#
# The one change made to the unpacked source: Citus 13.2.2's src/include/pg_version_compat.h
# defines a static have_createdb_privilege() for PostgreSQL 15, which PostgreSQL 15.20 declares
# extern in commands/dbcommands.h; the definition is kept for older minor releases only.
#
# Exit status: 0 built and installed (or already), 3 skipped (no tarball, or a PostgreSQL
# version Citus does not support), 1 anything else.

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$BF_ROOT"
bf_resolve_pg_config

CITUS_VERSION=${CITUS_VERSION:-13.2.2}
CITUS_TARBALL=${CITUS_TARBALL:-$BF_ROOT/../shared/vendor/citus-$CITUS_VERSION.tar.gz}
dir=$BF_ROOT/build/citus-$CITUS_VERSION
src=$dir/src
stamp=$dir/stamp
# bump when the patch below or the build options change, to force a rebuild
patch_id="pg_version_compat-150020 no-llvm v1"

# Citus 13.2 supports PostgreSQL 15, 16 and 17 (its configure refuses the others)
case $PG_MAJOR in
15 | 16 | 17) ;;
*)
	echo "citus: skipped: Citus $CITUS_VERSION supports PostgreSQL 15 to 17, not $PG_MAJOR"
	exit 3
	;;
esac

if [ ! -f "$CITUS_TARBALL" ]; then
	echo "citus: skipped: the Citus source tarball $CITUS_TARBALL is not there"
	echo "citus: (CI keeps it in ../shared/vendor/ beside the repository; set CITUS_TARBALL to use another)"
	exit 3
fi

want="tarball $(sha256sum "$CITUS_TARBALL" | cut -d' ' -f1); $patch_id; $("$PG_CONFIG" --version)"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$src/src/backend/distributed/citus.so" ]; then
	bf_say "citus $CITUS_VERSION: already built in ${dir#"$BF_ROOT"/}"
else
	bf_say "citus $CITUS_VERSION: building in ${dir#"$BF_ROOT"/} (make -j2; once, then cached)"
	start=$(date +%s)
	rm -rf "$dir"
	mkdir -p "$src"
	tar -xzf "$CITUS_TARBALL" -C "$src"
	# the release tarball may or may not have a top-level directory
	if [ ! -f "$src/configure" ]; then
		top=$(find "$src" -mindepth 2 -maxdepth 2 -name configure -printf '%h\n' | head -n1)
		[ -n "$top" ] || bf_die "citus: no configure script in $CITUS_TARBALL"
		shopt -s dotglob
		mv "$top"/* "$src"/
		rmdir "$top"
		shopt -u dotglob
	fi

	compat=$src/src/include/pg_version_compat.h
	awk '
		pending { if ($0 == "have_createdb_privilege(void)") { print "#if PG_VERSION_NUM < 150020"; guarded = 1; inside = 1; n++ }
		          print held; pending = 0 }
		$0 == "static inline bool" { held = $0; pending = 1; next }
		{ print }
		inside && $0 == "}" { print "#endif"; inside = 0 }
		END { if (n != 1) exit 1 }' "$compat" >"$compat.new" ||
		bf_die "citus: could not find have_createdb_privilege() to patch in $compat"
	mv "$compat.new" "$compat"

	(
		cd "$src"
		./configure PG_CONFIG="$PG_CONFIG" >"$dir/configure.log" 2>&1 ||
			{ tail -n 30 "$dir/configure.log" >&2; bf_die "citus: configure failed (log: $dir/configure.log)"; }
		# with_llvm=no: no JIT bitcode, which would double the build time for nothing here
		"$MAKE" -j2 with_llvm=no >"$dir/build.log" 2>&1 ||
			{ tail -n 40 "$dir/build.log" >&2; bf_die "citus: build failed (log: $dir/build.log)"; }
	)
	echo "$want" >"$stamp"
	bf_say "citus $CITUS_VERSION: built in $(($(date +%s) - start)) s"
fi

[ "${1:-}" != build ] || exit 0

pkglibdir=$("$PG_CONFIG" --pkglibdir)
extdir=$("$PG_CONFIG" --sharedir)/extension
if cmp -s "$src/src/backend/distributed/citus.so" "$pkglibdir/citus.so" &&
	cmp -s "$src/src/backend/distributed/citus.control" "$extdir/citus.control"; then
	bf_say "citus $CITUS_VERSION: installed and current"
	exit 0
fi
if ! bf_is_root && ! { [ -w "$pkglibdir" ] && [ -w "$extdir" ]; }; then
	# another build of the same release (a clone elsewhere: the paths in its debug information
	# differ) will do
	if [ -f "$pkglibdir/citus.so" ] &&
		cmp -s "$src/src/backend/distributed/citus.control" "$extdir/citus.control"; then
		bf_say "citus $CITUS_VERSION: installed from another build of the same release (not root: not reinstalling)"
		exit 0
	fi
	echo "error: installing Citus into $pkglibdir needs root. Run:" >&2
	echo "    sudo $MAKE -C '$src' install with_llvm=no" >&2
	exit 1
fi
bf_say "citus $CITUS_VERSION: make install (into $pkglibdir)"
"$MAKE" -C "$src" install with_llvm=no >"$dir/install.log" 2>&1 ||
	{ tail -n 30 "$dir/install.log" >&2; bf_die "citus: make install failed (log: $dir/install.log)"; }
