#!/usr/bin/env bash
# scripts/deb.sh - release tarball and Debian packages.
#
#     bash scripts/deb.sh dist     build/dist/bloomfilter-VERSION.tar.gz from git archive of HEAD
#                                  (the one step that needs a git checkout)
#     bash scripts/deb.sh build    the packages for this machine's PostgreSQL from the tree as it
#                                  is (a checkout, an unpacked make dist tarball, any export),
#                                  then lintian, the documentation they install, and the manual
#                                  page against bloomtool --help (test/cluster/bloomtool_man.sh)
#     bash scripts/deb.sh check    in a git checkout: make dist, then make deb in the tarball
#                                  unpacked into a temporary directory, with no .git around, as a
#                                  PGXN user starts (elsewhere: build); then install the packages
#                                  with apt-get and try them: on a fresh Debian 12 root
#                                  (debootstrap), and for each of DEB_VERSIONS other than 15
#                                  (default "17 18") built in its root (scripts/roots.sh)
#
# The packages are built the way Debian builds PostgreSQL extensions (debian/: pg_buildext,
# debian/pgversions), in a copy of the source under build/deb/src: postgresql-NN-bloomfilter for
# each PostgreSQL of the build machine, and bloomtool (/usr/bin/bloomtool, bloomtool(1)), each
# with README.md in /usr/share/doc/<package>/.  They land in build/deb/.  lintian must report no
# error and no warning.  Every chroot happens in a mount namespace of its own (unshare), so no
# mount outlives this script.  Ends with the time of each step.  Needs root.

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$BF_ROOT"

mode=${1:-build}
version=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" bloomfilter.control).0
out=$BF_ROOT/build/deb
steps=()
step() { # description, command...
	local what=$1 t=$EPOCHREALTIME
	shift
	bf_say "$what"
	"$@"
	steps+=("$(printf '%-62s %6.1f s' "$what" "$(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')")")
}
print_steps() {
	echo
	echo "deb.sh step times:"
	printf '    %s\n' "${steps[@]}"
}

apt_install() { # packages...
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	flock /tmp/bf-apt.lock bash -c 'export DEBIAN_FRONTEND=noninteractive
		apt-get -o DPkg::Lock::Timeout=300 update -qq &&
		apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "$@"' bf-apt "${missing[@]}"
}

# Is this tree the top of a git checkout?  (Not a tarball unpacked somewhere inside another one,
# whose HEAD is not ours.)
is_checkout() {
	local top
	top=$(git -C "$BF_ROOT" rev-parse --show-toplevel 2>/dev/null) || return 1
	[ "$top" = "$(cd "$BF_ROOT" && pwd -P)" ]
}

# ---- dist ---------------------------------------------------------------------------------------
make_dist() {
	is_checkout || bf_die "make dist needs a git checkout (it archives HEAD); make deb and make deb-check build the tree as it is"
	# PGXN's META.json: valid, and of the version bloomfilter.control installs
	python3 - "$version" <<-'PY' || bf_die "META.json is not right (above)"
		import json, sys
		meta = json.load(open("META.json"))
		want = sys.argv[1]
		got = {meta["version"], meta["provides"]["bloomfilter"]["version"]}
		if got != {want}:
		    sys.exit("META.json says %s, bloomfilter.control %s" % (sorted(got), want))
		if meta["provides"]["bloomfilter"]["file"] != "bloomfilter--%s.sql" % want.rsplit(".", 1)[0]:
		    sys.exit("META.json's provides names another install script")
	PY
	echo "dist: META.json is valid and says $version"
	mkdir -p build/dist
	git -C "$BF_ROOT" archive --format=tar.gz --prefix="bloomfilter-$version/" \
		-o "build/dist/bloomfilter-$version.tar.gz" HEAD
	if [ -n "$(git -C "$BF_ROOT" status --porcelain --untracked-files=no)" ]; then
		bf_warn "the tree has uncommitted changes: the tarball holds HEAD without them"
	fi
	echo "dist: build/dist/bloomfilter-$version.tar.gz ($(git -C "$BF_ROOT" rev-parse --short HEAD), $(du -k "build/dist/bloomfilter-$version.tar.gz" | cut -f1) kB)"
}

if [ "$mode" = dist ]; then
	make_dist
	exit 0
fi
bf_is_root || bf_die "building and installing the packages needs root"

# ---- build: in a copy of the source, as a package build would see it ----------------------------
# (run here, or inside a root by "scripts/roots.sh N run bash scripts/deb.sh build-here")

# The tree as it is, without build/ (the packages, the roots) and .git/; what make built in it
# goes with debian/rules clean, dpkg-buildpackage's first step.  (tar's status 1: a file
# changed while it was read, as another user's editor saves it)
copy_tree() { # destination
	mkdir -p "$1"
	{ tar -C "$BF_ROOT" --exclude=./build --exclude=./.git -cf - . || [ $? -eq 1 ]; } |
		tar -C "$1" -xf -
}

build_here() { # [tarball]: the source unpacked from it, or else the tree as it is
	local src=$out/src/bloomfilter-$version
	apt_install build-essential debhelper postgresql-server-dev-all libxxhash-dev fakeroot
	rm -rf "$out/src" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
	mkdir -p "$out/src"
	if [ -n "${1:-}" ]; then
		tar -xzf "$1" -C "$out/src"
	else
		copy_tree "$src"
	fi
	(cd "$src" && pg_buildext updatecontrol >/dev/null &&
		dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1) ||
		{ tail -n 40 "$out/build.log" >&2; bf_die "dpkg-buildpackage failed (log: $out/build.log)"; }
	mv "$out/src"/*.deb "$out/src"/*.changes "$out/src"/*.buildinfo "$out/" 2>/dev/null || true
	ls "$out"/*.deb >/dev/null 2>&1 || bf_die "dpkg-buildpackage made no package"
}

if [ "$mode" = build-here ]; then
	build_here "${2:-}"
	exit 0
fi

# lintian of the packages in a directory: errors and warnings fail, the rest is shown
run_lintian() { # directory
	local log=$1/lintian.log
	lintian --tag-display-limit 0 "$1"/*.deb >"$log" 2>&1 || true
	cat "$log"
	if grep -q '^[EW]: ' "$log"; then
		bf_die "lintian reports errors or warnings (above)"
	fi
}

# What the packages in a directory install beside the programs: README.md (and bloomtool's
# page and manual page), as dpkg-deb lists them; dh_compress may have gzipped them
check_contents() { # directory
	local deb pkg files want f
	for deb in "$1"/*.deb; do
		pkg=$(dpkg-deb -f "$deb" Package)
		case $pkg in *-dbgsym) continue ;; esac
		files=$(dpkg-deb -c "$deb" | awk '{ sub(/^\./, "", $6); print $6 }')
		want=("/usr/share/doc/$pkg/README.md" "/usr/share/doc/$pkg/STORAGE.md" "/usr/share/doc/$pkg/copyright")
		if [ "$pkg" = bloomtool ]; then
			want+=(/usr/share/doc/bloomtool/bloomtool.md /usr/share/man/man1/bloomtool.1)
		else
			want+=("/usr/share/doc/$pkg/scaling-out.md" "/usr/share/doc/$pkg/performance.md")
		fi
		for f in "${want[@]}"; do
			grep -qxF -e "$f" -e "$f.gz" <<<"$files" || bf_die "$(basename "$deb") does not install $f"
		done
		echo "$pkg installs $(printf '%s\n' "${want[@]}" | sed 's|.*/||' | tr '\n' ' ')"
	done
}

# The manual page and the program of the bloomtool package, as installed, against each other
# and through groff, man --warnings and mandoc (test/cluster/bloomtool_man.sh)
check_manpage() { # directory
	local tmp rc=0
	tmp=$(mktemp -d -t bf-bloomtool-deb.XXXXXX)
	dpkg-deb -x "$1"/bloomtool_*.deb "$tmp"
	BLOOMTOOL=$tmp/usr/bin/bloomtool BLOOMTOOL_MAN=$tmp/usr/share/man/man1/bloomtool.1.gz \
		bash test/cluster/bloomtool_man.sh || rc=$?
	rm -rf "$tmp"
	[ $rc -eq 0 ] || bf_die "the manual page of the bloomtool package fails its test (above)"
}

# make deb as a PGXN user runs it: in the release tarball unpacked into a temporary directory,
# with no .git around; the packages it makes are the ones the rest of the check installs
build_from_dist() {
	local tmp tree
	tmp=$(mktemp -d -t bf-dist.XXXXXX)
	tree=$tmp/bloomfilter-$version
	tar -xzf "build/dist/bloomfilter-$version.tar.gz" -C "$tmp"
	(cd "$tree" && "$MAKE" -s deb) || bf_die "make deb failed in the unpacked tarball $tree (left there)"
	rm -rf "$out/src" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
	mkdir -p "$out"
	cp "$tree/build/deb"/*.deb "$tree/build/deb"/*.changes "$tree/build/deb"/*.buildinfo \
		"$tree/build/deb/build.log" "$tree/build/deb/lintian.log" "$out/"
	rm -rf "$tmp"
}

if [ "$mode" = check ] && is_checkout; then
	step "dist tarball (git archive of HEAD)" make_dist
	step "make deb in the dist tarball unpacked with no .git (on the host)" build_from_dist
	tarball=build/dist/bloomfilter-$version.tar.gz
else
	step "build dependencies, lintian and mandoc on the host" apt_install lintian mandoc \
		build-essential debhelper postgresql-server-dev-all libxxhash-dev fakeroot
	step "dpkg-buildpackage (PostgreSQL $(pg_buildext supported-versions | tr '\n' ' ')on the host), the tree as it is" \
		build_here
	step "lintian" run_lintian "$out"
	step "documentation in the packages" check_contents "$out"
	step "manual page of the bloomtool package against its bloomtool --help" check_manpage "$out"
	tarball=
fi
ls -1 "$out"/*.deb | sed 's|.*/|built: |'
if [ "$mode" = build ]; then
	print_steps
	exit 0
fi

# ---- check: install on fresh roots and try --------------------------------------------------------
# The smoke test, run inside a root as root with the packages in /bf/debs
cat >"$out/smoke.sh" <<'SMOKE'
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
cd /bf/debs
apt-get -o DPkg::Lock::Timeout=300 update -qq
apt-get install -y -qq --no-install-recommends ./*.deb >/dev/null
v=$(ls -d /usr/lib/postgresql/*/lib/bloomfilter.so | sed 's|/usr/lib/postgresql/\([0-9]*\)/.*|\1|')
echo "smoke: $(bloomtool --version | head -n 1) at $(command -v bloomtool)"
found=$(su - postgres -s /bin/sh -c 'command -v bloomtool')
[ "$found" = /usr/bin/bloomtool ] || { echo "smoke: a login shell of postgres does not find bloomtool ($found)"; exit 1; }
echo "smoke: a login shell of the user postgres finds $found"
printf 'https://a.example/\nhttps://b.example/\n' >/tmp/urls.txt
bloomtool build --items 1000 -o /tmp/urls.bf /tmp/urls.txt
LC_ALL=C.UTF-8 pg_virtualenv -t -v "$v" sh -c '
	set -e
	psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION bloomfilter"
	got=$(psql -X -At -v ON_ERROR_STOP=1 -c "
		SELECT extversion FROM pg_extension WHERE extname = '\''bloomfilter'\''" -c "
		SELECT f @> '\''https://a.example/'\''::text AND NOT f @> '\''https://c.example/'\''::text,
		       (bloomfilter_info(f)).items_added, md5(f::bytea)
		FROM (SELECT bloomfilter_agg(u, 1000, 0.01) AS f
		      FROM (VALUES ('\''https://a.example/'\''), ('\''https://b.example/'\'')) v(u)) s")
	echo "$got" | tr "\n" " "; echo
	want=$(md5sum /tmp/urls.bf | cut -d" " -f1)
	echo "$got" | grep -q "^t|2|$want\$" || { echo "smoke: SQL does not give bloomtool'\''s bytes ($want)"; exit 1; }
	echo "smoke: $(psql -X -At -c "SELECT version()" | cut -d" " -f1-2): CREATE EXTENSION bloomfilter $(echo "$got" | head -n1), bloomfilter_agg, @>, bloomfilter_info, and bloomtool build gives the aggregate'\''s bytes"
'
printf 'https://a.example/\nhttps://c.example/\n' | bloomtool check /tmp/urls.bf | grep -qx 'https://a.example/'
echo "smoke: bloomtool check finds the members"
for p in "postgresql-$v-bloomfilter" bloomtool; do
	ls /usr/share/doc/$p/README.md* >/dev/null 2>&1 || { echo "smoke: $p installed no /usr/share/doc/$p/README.md"; exit 1; }
done
[ -s /usr/share/man/man1/bloomtool.1.gz ] || { echo "smoke: bloomtool installed no manual page"; exit 1; }
echo "smoke: README.md in /usr/share/doc/postgresql-$v-bloomfilter/ and /usr/share/doc/bloomtool/, bloomtool(1) in /usr/share/man/man1/"
apt-get purge -y -qq "postgresql-$v-bloomfilter" bloomtool >/dev/null
echo "smoke: passed"
SMOKE

# A fresh Debian 12: minbase, nothing of PostgreSQL (apt brings it with the package)
fresh=${BF_ROOTS:-$BF_ROOT/build/roots}/deb-bookworm
make_fresh_root() {
	if [ "$(cat "$fresh/.bf-root" 2>/dev/null)" != bookworm-minbase ] || [ ! -d "$fresh.pristine" ]; then
		rm -rf "$fresh"
		mkdir -p "$(dirname "$fresh")"
		unshare --mount --propagation private -- debootstrap --variant=minbase bookworm "$fresh" \
			"${BF_DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$out/debootstrap.log" 2>&1 ||
			bf_die "debootstrap bookworm failed (log: $out/debootstrap.log)"
		echo 'Acquire::Check-Valid-Until "false";' >"$fresh/etc/apt/apt.conf.d/99bloomfilter"
		# as a Debian 12 machine is installed: with its updates and security updates
		cat >"$fresh/etc/apt/sources.list" <<-EOF
			deb ${BF_DEBIAN_MIRROR:-http://deb.debian.org/debian} bookworm main
			deb ${BF_DEBIAN_MIRROR:-http://deb.debian.org/debian} bookworm-updates main
			deb ${BF_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security} bookworm-security main
		EOF
		rm -rf "$fresh.pristine"
		cp -a "$fresh" "$fresh.pristine"
		echo bookworm-minbase >"$fresh/.bf-root"
	else
		# back to what debootstrap made: the check always starts from a fresh machine
		rm -rf "$fresh"
		cp -a "$fresh.pristine" "$fresh"
		echo bookworm-minbase >"$fresh/.bf-root"
	fi
	rm -rf "$fresh/bf/debs"
	mkdir -p "$fresh/bf/debs"
	cp "$out"/*.deb "$out/smoke.sh" "$fresh/bf/debs/"
}
in_fresh_root() {
	unshare --mount --propagation private -- bash -euo pipefail -c '
		mount -t proc proc "$1/proc"
		mount -t sysfs sys "$1/sys"
		mount --rbind /dev "$1/dev"
		cp -L /etc/resolv.conf "$1/etc/resolv.conf" 2>/dev/null || true
		chroot "$1" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
			bash /bf/debs/smoke.sh' bf-fresh "$fresh"
}
step "debootstrap --variant=minbase bookworm (fresh root)" make_fresh_root
step "apt-get install the packages and try them (fresh Debian 12 root)" in_fresh_root

# The other versions: built and tried in their roots, from the same tarball (in a checkout), or
# from the tree as it is (copied into the root by scripts/roots.sh)
for v in ${DEB_VERSIONS:-17 18}; do
	[ "$v" != 15 ] || continue
	step "PostgreSQL $v root: ready" bash scripts/roots.sh "$v"
	root=${BF_ROOTS:-$BF_ROOT/build/roots}/pg$v
	if [ -n "$tarball" ]; then
		mkdir -p "$root/bf/tree/build/dist"
		cp "$tarball" "$root/bf/tree/build/dist/"
	fi
	step "PostgreSQL $v root: dpkg-buildpackage" bash scripts/roots.sh "$v" run \
		bash scripts/deb.sh build-here $tarball
	rm -rf "$out/pg$v"
	mkdir -p "$out/pg$v"
	cp "$root/bf/tree/build/deb"/*.deb "$out/pg$v/"
	step "PostgreSQL $v root: lintian (the host's)" run_lintian "$out/pg$v"
	step "PostgreSQL $v root: documentation in the packages" check_contents "$out/pg$v"
	cp "$out/smoke.sh" "$root/bf/tree/build/deb/"
	step "PostgreSQL $v root: apt-get install the packages and try them" bash scripts/roots.sh "$v" run \
		bash -c 'mkdir -p /bf/debs && rm -f /bf/debs/* && cp build/deb/*.deb build/deb/smoke.sh /bf/debs/ && bash /bf/debs/smoke.sh'
done
echo "deb-check: the packages install and work on a fresh Debian 12 root and for PostgreSQL ${DEB_VERSIONS:-17 18}"
print_steps
