#!/usr/bin/env bash
# scripts/roots.sh - Debian roots for the PostgreSQL versions the host's archive does not ship.
#
#     bash scripts/roots.sh N              make (or complete) the root of PostgreSQL N
#     bash scripts/roots.sh N run CMD...   run CMD in it, in a copy of this tree
#
# A root is a minimal Debian made with debootstrap from Debian's archive, holding PostgreSQL N
# and every build and test dependency (scripts/deps.sh, run inside it):
#     17  Debian 13 (trixie)      18  Debian unstable (sid)      15  Debian 12 (bookworm)
# It lives in ${BF_ROOTS:-build/roots}/pgN; a root is complete when its stamp file .bf-root
# names its suite, and a later call only runs deps.sh again (which costs nothing when nothing
# is missing).  Needs root (debootstrap, chroot).
#
# "run" copies the working tree (tracked and untracked files, not build/ or .git/) to /bf/tree
# in the root with rsync --delete, so that the root's build/ survives between runs (Citus is
# built once), binds ../shared (read-only) to /bf/shared beside it, and runs CMD there with
# bash -c as root, PG_MAJOR=N and BF_IN_ROOT=N set.  Every mount (/proc, /dev, /sys, shared)
# is made in a mount namespace of the command's own (unshare), so none outlives it.
#
# Exit status: CMD's.

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ $# -ge 1 ] || bf_die "usage: scripts/roots.sh N [run CMD...]"
version=$1
shift
case $version in
15) suite=bookworm ;;
17) suite=trixie ;;
18) suite=sid ;;
*) bf_die "no Debian root known for PostgreSQL $version (15, 17, 18)" ;;
esac
bf_is_root || bf_die "making and entering a Debian root needs root"

BF_ROOTS=${BF_ROOTS:-$BF_ROOT/build/roots}
root=$BF_ROOTS/pg$version
stamp=$root/.bf-root
mirror=${BF_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# Host tools: debootstrap makes the roots, rsync copies the tree into them.
bf_host_tools() {
	local missing=()
	command -v debootstrap >/dev/null || missing+=(debootstrap)
	command -v rsync >/dev/null || missing+=(rsync)
	command -v unshare >/dev/null || missing+=(util-linux)
	[ ${#missing[@]} -eq 0 ] && return 0
	bf_say "installing on the host: ${missing[*]}"
	# apt-get update waits for no lock of its own: two of these at once must take turns
	flock /tmp/bf-apt.lock bash -c 'export DEBIAN_FRONTEND=noninteractive
		apt-get -o DPkg::Lock::Timeout=300 update &&
		apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends "$@"' bf-apt "${missing[@]}"
}

# Run a shell command inside the root, in a private mount namespace.  Extra mounts come as
# "SOURCE TARGET" pairs in BF_ROOT_BINDS (TARGET inside the root), read-only.
bf_chroot() {
	local cmd=$1
	unshare --mount --propagation private -- bash -euo pipefail -c '
		root=$1 cmd=$2 binds=$3
		mount -t proc proc "$root/proc"
		mount -t sysfs sys "$root/sys"
		mount --rbind /dev "$root/dev"
		while read -r src dst; do
			[ -n "$src" ] || continue
			mkdir -p "$root$dst"
			mount --bind "$src" "$root$dst"
			mount -o remount,bind,ro "$root$dst"
		done <<<"$binds"
		cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
		exec chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			LANG=C.UTF-8 LC_ALL=C.UTF-8 BF_IN_ROOT="$BF_VERSION" PG_MAJOR="$BF_VERSION" \
			$BF_PASS_ENV bash -c "$cmd"
	' bf-chroot "$root" "$cmd" "${BF_ROOT_BINDS:-}" 9>&-
}

# Environment passed into the root: the test and bench knobs the caller set.
BF_PASS_ENV=
for var in $(compgen -e); do
	case $var in
	BF_IN_ROOT | BF_ROOTS | BF_ROOT) ;;
	BF_* | BENCH_* | FUZZ_* | ORACLE_* | CI) BF_PASS_ENV+=" $var=$(printf '%q' "${!var}")" ;;
	esac
done
export BF_PASS_ENV BF_VERSION=$version

make_root() {
	if [ "$(cat "$stamp" 2>/dev/null)" != "$suite" ]; then
		bf_host_tools
		bf_say "debootstrap $suite into $root (PostgreSQL $version; 1-2 minutes)"
		rm -rf "$root"
		mkdir -p "$BF_ROOTS"
		# debootstrap mounts /proc and /sys in the target: keep those mounts in a namespace
		unshare --mount --propagation private -- debootstrap --variant=minbase \
			--include="postgresql-$version,postgresql-server-dev-$version,libxxhash-dev,make,gcc,libc6-dev" \
			"$suite" "$root" "$mirror" >"$BF_ROOTS/pg$version.debootstrap.log" 2>&1 9>&- ||
			bf_die "debootstrap $suite failed; see $BF_ROOTS/pg$version.debootstrap.log"
		# the archive moves on: do not let a Valid-Until date stop a later apt-get update
		echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99bloomfilter"
		echo "$suite" >"$stamp"
	fi
	# the rest of the dependencies, with the project's own list
	mkdir -p "$root/bf/deps"
	cp "$BF_ROOT/scripts/deps.sh" "$BF_ROOT/scripts/common.sh" "$root/bf/deps/"
	bf_chroot "bash /bf/deps/deps.sh" >"$BF_ROOTS/pg$version.deps.log" 2>&1 ||
		{ tail -n 30 "$BF_ROOTS/pg$version.deps.log" >&2; bf_die "deps.sh failed in the $suite root"; }
}

bf_host_tools
# one user of a root at a time: a second "run" would copy the tree under a running test
mkdir -p "$BF_ROOTS"
exec 9>"$BF_ROOTS/pg$version.lock"
if ! flock -n 9; then
	bf_say "waiting for another user of the PostgreSQL $version root ($BF_ROOTS/pg$version.lock)"
	flock 9
fi
make_root

[ $# -gt 0 ] || { bf_say "root for PostgreSQL $version ready: $root"; exit 0; }
[ "$1" = run ] || bf_die "usage: scripts/roots.sh N [run CMD...]"
shift
[ $# -gt 0 ] || bf_die "scripts/roots.sh $version run: no command"

# The working tree as the developer has it, uncommitted changes included.
mkdir -p "$root/bf/tree"
if git -C "$BF_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	# rsync -a keeps the host's times: a file it copies (one that differs) is touched, so that
	# an object the root built earlier from another tree is older than it and is made again
	copied=$( (cd "$BF_ROOT" && git ls-files -z --cached --others --exclude-standard) |
		rsync -a --from0 --files-from=- --out-format='%n' "$BF_ROOT/" "$root/bf/tree/")
	copied=$(grep -v '/$' <<<"$copied") || true
	[ -z "$copied" ] || (cd "$root/bf/tree" && xargs -d '\n' touch -- <<<"$copied")
	# --files-from does not delete: remove what is no longer in the tree (build/ is kept)
	(cd "$root/bf/tree" && find . -path ./build -prune -o -type f -print) | sed 's|^\./||' | sort >"$root/bf/files.copy"
	(cd "$BF_ROOT" && git ls-files --cached --others --exclude-standard) | sort >"$root/bf/files.tree"
	stale=$(comm -23 "$root/bf/files.copy" "$root/bf/files.tree" | grep -v -e '\.o$' -e '\.bc$' \
		-e '\.so$' -e '^results/' -e '^regression\.' -e '/__pycache__/') || true
	[ -z "$stale" ] || (cd "$root/bf/tree" && xargs -d '\n' rm -f -- <<<"$stale")
else
	rsync -a --delete --exclude=/build/ --exclude=/.git/ "$BF_ROOT/" "$root/bf/tree/"
fi

binds=
[ -d "$BF_ROOT/../shared" ] && binds="$(cd "$BF_ROOT/../shared" && pwd) /bf/shared"
cmd=$(printf '%q ' "$@")
BF_ROOT_BINDS=$binds bf_chroot "cd /bf/tree && $cmd"
