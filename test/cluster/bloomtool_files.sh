#!/usr/bin/env bash
# test/cluster/bloomtool_files.sh - bloomtool never loses input, items or files, whatever happens
# to the files it writes (no server needed; run by scripts/server-tests.sh with the others).
#
#   - input that cannot be read is an error, never an early end: a 300 MB line that does not
#     fit under ulimit -v (generated on the fly into a pipe), or a directory given as input,
#     exits 3 with a message, for build, add and check, and writes nothing;
#   - concurrent writers take turns: three add runs of 150,000 distinct items each into one
#     file (blocked, then a scalable filter that grows meanwhile), started together, all
#     exit 0 and every item of every writer is in the file afterwards;
#   - no temporary file survives an error: a full file system (a 1 MB tmpfs; skipped with a
#     message where mount is not permitted) and a file size limit (ulimit -f) exit 3, keep
#     the old file unchanged and leave no other file;
#   - nor a signal: a build or add stopped by SIGTERM, SIGINT or SIGHUP while it reads its
#     input from a pipe, or (under strace, which delivers the signal as the finished
#     temporary file is synced) just before the rename, dies of the signal, leaves the old
#     file as it was and no temporary file; SIGKILL leaves one, named .NAME.bloomtool-tmp.*;
#   - symlinks are followed: rewriting a link (relative, into another directory, a chain, a
#     dangling one) writes the file it names and the link stays a link;
#   - a rewritten file keeps its owner, group and mode (as root: a file of nobody's, mode
#     0640, still nobody's and still readable by nobody); a new file gets the umask's mode.
#
# Tests build/bin/bloomtool (BLOOMTOOL=path overrides).  Prints one PASS line, or FAIL and
# exits non-zero.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

ROOT=${BF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
TOOL=${BLOOMTOOL:-$ROOT/build/bin/bloomtool}
started=$(date +%s)
WORK=$(mktemp -d -t bf-bloomtool-files.XXXXXX)
MNT=$WORK/full
skipped=()

cleanup() {
	jobs -p | xargs -r kill 2>/dev/null || true
	mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"
	rm -rf "$WORK"
}
trap cleanup EXIT


[ -x "$TOOL" ] || die "no bloomtool at $TOOL (run make)"
cd "$WORK"
chmod 0755 "$WORK" # for the nobody user below

# the files in a directory, hidden ones included, on one line
files_in() { echo $(ls -A "$1" | LC_ALL=C sort); }

# only_files CONTEXT DIR FILE...: DIR holds these files and no other (no temporary file)
only_files() {
	local context=$1 dir=$2
	shift 2
	[ "$(files_in "$dir")" = "$*" ] || die "$context: $dir holds $(files_in "$dir"), not $*"
}

# no temporary file of the current naming left anywhere under the work directory
no_temp_left() { # context
	local left
	left=$(find "$WORK" -name '*.bloomtool-tmp.*' | head -3)
	[ -z "$left" ] || die "$1: a temporary file was left behind: $left"
}

seq 1 1000 | sed 's/^/item-/' >small.txt

# ---- input that cannot be read ---------------------------------------------------------

# a 300 MB line after the first: getline cannot hold it under a 250 MB address space
big_line_into() { # command...
	local rc=0
	(
		ulimit -v 250000
		set +o pipefail # the writer dies of SIGPIPE when bloomtool stops reading
		{
			echo first
			head -c 300000000 /dev/zero | tr '\0' a
			echo
			cat small.txt
		} | "$@"
	) >out.txt 2>err.txt || rc=$?
	echo $rc
}
mkdir input
rc=$(big_line_into "$TOOL" build --items 2000 -o input/big.bf)
[ "$rc" -eq 3 ] || die "build with a line that does not fit in memory exited $rc, not 3 ($(head -c 300 err.txt))"
grep -qF 'could not read line 2 of "standard input": Cannot allocate memory' err.txt ||
	die "build with a line that does not fit in memory says: $(head -c 300 err.txt)"
only_files "build with an unreadable line" input
"$TOOL" build --items 2000 -o input/add.bf small.txt
cp input/add.bf add.orig
rc=$(big_line_into "$TOOL" add input/add.bf)
[ "$rc" -eq 3 ] || die "add with a line that does not fit in memory exited $rc, not 3"
cmp -s input/add.bf add.orig || die "add with an unreadable line changed the file"
only_files "add with an unreadable line" input add.bf
rc=$(big_line_into "$TOOL" check --count input/add.bf)
[ "$rc" -eq 3 ] || die "check with a line that does not fit in memory exited $rc, not 3"
[ ! -s out.txt ] || die "check with an unreadable line printed a count: $(cat out.txt)"
# a read error (a directory given as input) is not an empty input
mkdir adir
expect 3 'could not read line 1 of "adir"' "$TOOL" build --items 10 -o input/dir.bf adir
only_files "build from a directory" input add.bf

# ---- concurrent writers ----------------------------------------------------------------

# three add runs started together, each reading its items from a pipe that is fed once all
# three have started (so that without a lock all three read the file before any writes it);
# the third writes through a symlink to the file
concurrent_adds() { # file
	local file=$1 w pids=() rc
	ln -sf "$(basename "$file")" "$file.link"
	for w in 1 2 3; do
		seq "${w}000001" "${w}150000" | sed "s/^/writer-$w-/" >"items$w.txt"
		rm -f "feed$w"
		mkfifo "feed$w"
	done
	for w in 1 2 3; do
		"$TOOL" add "$([ $w -eq 3 ] && echo "$file.link" || echo "$file")" "feed$w" 2>"add$w.err" &
		pids+=($!)
	done
	for w in 1 2 3; do
		cat "items$w.txt" >"feed$w" &
	done
	for w in 1 2 3; do
		rc=0
		wait "${pids[$((w - 1))]}" || rc=$?
		[ $rc -eq 0 ] || die "$file: concurrent add $w exited $rc: $(cat "add$w.err")"
	done
	wait # the feeders
	rc=0
	"$TOOL" check --invert "$file" items1.txt items2.txt items3.txt >lost.txt || rc=$?
	[ $rc -eq 1 ] || die "$file: $(wc -l <lost.txt) of 450000 items of concurrent writers are missing (e.g. $(head -1 lost.txt))"
	[ "$("$TOOL" info "$file" | awk '$1 == "items_added" { print $2 }')" -eq 450000 ] ||
		die "$file: items_added is not 450000 after three writers of 150000"
	[ -L "$file.link" ] || die "$file: a concurrent add through a link replaced the link"
	rm "$file.link"
}
mkdir shared
"$TOOL" build --items 450000 -o shared/blocked.bf </dev/null
concurrent_adds shared/blocked.bf
"$TOOL" build --items 50000 --variant scalable -o shared/scalable.bf </dev/null
concurrent_adds shared/scalable.bf

# a file that does not exist yet cannot be locked: a build that began before another writer
# created the file must still wait for the writer holding its lock.  C builds shared/new.bf
# from a pipe; meanwhile D creates the file, and E, an add, locks it and reads a pipe.  When
# C's input ends it must wait for E (/proc/locks shows it waiting), and replace E's file only
# after: the file ends as C's, not as D's and E's with C's build lost.
rm -f feedC feedE
mkfifo feedC feedE
"$TOOL" build --items 100000 -o shared/new.bf feedC 2>c.err &
pidC=$!
exec 3>feedC                                            # C reads its input (no file: no lock)
"$TOOL" build --items 100000 -o shared/new.bf small.txt # D
"$TOOL" add shared/new.bf feedE 2>e.err 3>&- & # not holding C's pipe open
pidE=$!
exec 4>feedE                                            # E holds the lock and reads its input
seq 1 30000 | sed 's/^/C-/' >&3
exec 3>&-
# C's input has ended: wait until C waits for the lock (or has ended without waiting)
tries=0
until grep -Eq "^[0-9]+: +-> FLOCK +ADVISORY +WRITE +$pidC " /proc/locks || ! kill -0 "$pidC" 2>/dev/null; do
	tries=$((tries + 1))
	[ $tries -lt 600 ] || die "the build of a new file neither waited for the lock nor ended"
	sleep 0.1
done
seq 1 20000 | sed 's/^/E-/' >&4
exec 4>&-
rc=0
wait "$pidE" || rc=$?
[ $rc -eq 0 ] || die "the add E exited $rc: $(cat e.err)"
rc=0
wait "$pidC" || rc=$?
[ $rc -eq 0 ] || die "the build C of a new file exited $rc: $(cat c.err)"
items=$("$TOOL" info shared/new.bf | awk '$1 == "items_added" { print $2 }')
[ "$items" -eq 30000 ] ||
	die "a build of a new file overtook the add holding the lock: the file has $items items, not C's 30000"
rm -f feedC feedE

# the lock is flock(2) on the file itself, which a script can hold too (flock(1)); a writer that
# waits for it says so when standard error is a terminal (script(1) gives it one)
exec 5<shared/blocked.bf
flock -x 5
script -qec "$TOOL add shared/blocked.bf small.txt" /dev/null >waiting.txt 2>&1 5<&- &
pid=$!
tries=0
until grep -qF 'bloomtool add: waiting for another writer of' waiting.txt; do
	tries=$((tries + 1))
	[ $tries -lt 600 ] || die "an add waiting for a lock held by flock(1) did not say so: $(cat waiting.txt)"
	sleep 0.1
done
kill -0 "$pid" 2>/dev/null || die "an add did not wait for a lock held by flock(1): $(cat waiting.txt)"
exec 5<&-
rc=0
wait "$pid" || rc=$?
[ $rc -eq 0 ] || die "an add that waited for the lock exited $rc: $(cat waiting.txt)"
rc=0
"$TOOL" check --invert shared/blocked.bf small.txt >/dev/null || rc=$?
[ $rc -eq 1 ] || die "an add that waited for the lock lost items"
only_files "concurrent writers" shared blocked.bf new.bf scalable.bf

# ---- errors leave no temporary file ----------------------------------------------------

mkdir "$MNT"
if mount -t tmpfs -o size=1m tmpfs "$MNT" 2>mount.err; then
	# 620 KB: the old file and a new one do not both fit in 1 MB
	"$TOOL" build --items 500000 -o "$MNT/big.bf" small.txt
	cp "$MNT/big.bf" big.orig
	expect 3 "No space left on device" "$TOOL" add "$MNT/big.bf" small.txt
	cmp -s "$MNT/big.bf" big.orig || die "an add that filled the file system changed the file"
	only_files "add on a full file system" "$MNT" big.bf
	expect 3 "No space left on device" "$TOOL" union "$MNT/big.bf" big.orig -o "$MNT/big.bf"
	cmp -s "$MNT/big.bf" big.orig || die "a union that filled the file system changed the file"
	expect 3 "No space left on device" "$TOOL" build --items 1000000 -o "$MNT/new.bf" small.txt
	only_files "union and build on a full file system" "$MNT" big.bf
	# once there is room again, add works
	rm "$MNT/big.bf"
	cp big.orig "$MNT/big.bf"
	"$TOOL" build --items 100 -o "$MNT/small.bf" small.txt
	"$TOOL" add "$MNT/small.bf" small.txt || die "add on a tmpfs with room failed"
	umount "$MNT"
else
	skipped+=("full file system (mount -t tmpfs not permitted: $(head -c 100 mount.err))")
fi

# a name of 250 bytes still has room for its temporary file (NAME is cut short in it)
long=$(printf 'n%.0s' $(seq 1 247)).bf
"$TOOL" build --items 100 -o "$long" small.txt || die "build -o a 250-byte name exited $?"
echo item-long | "$TOOL" add "$long" || die "add to a 250-byte name exited $?"
[ "$(echo item-long | "$TOOL" check "$long")" = item-long ] || die "add to a 250-byte name lost its item"
rm "$long"

# output that cannot be written: standard output, a device
"$TOOL" build --items 100 -o out.bf small.txt
expect 3 'could not write "standard output": No space left on device' sh -c "\"\$0\" check out.bf small.txt >/dev/full" "$TOOL"
expect 3 'could not write "standard output": No space left on device' sh -c "\"\$0\" info out.bf >/dev/full" "$TOOL"
expect 3 'could not write "standard output": No space left on device' sh -c "\"\$0\" build --items 10 -o - small.txt >/dev/full" "$TOOL"
expect 3 'could not write "/dev/full": No space left on device' "$TOOL" build --items 10 -o /dev/full small.txt

# the temporary file comes first: a directory that does not exist fails before the input is
# read (from a pipe that no one writes, which would block)
rm -f feed
mkfifo feed
expect 3 "could not create a temporary file beside" timeout 60 "$TOOL" build --items 10 -o no_such_dir/x.bf feed
rm feed

# a file size limit: write fails (EFBIG) rather than SIGXFSZ killing bloomtool mid-write
mkdir limited
"$TOOL" build --items 100 -o limited/f.bf small.txt
cp limited/f.bf limited.orig
rc=0
(
	ulimit -f 100
	"$TOOL" add limited/f.bf small.txt && "$TOOL" build --items 1000000 -o limited/f.bf small.txt
) 2>err.txt || rc=$?
[ $rc -eq 3 ] || die "a write past ulimit -f exited $rc, not 3 ($(head -c 300 err.txt))"
grep -qF "File too large" err.txt || die "a write past ulimit -f says: $(head -c 300 err.txt)"
"$TOOL" add limited.orig small.txt
cmp -s limited/f.bf limited.orig || die "a build past ulimit -f changed the file"
only_files "a write past ulimit -f" limited f.bf

# ---- signals ---------------------------------------------------------------------------

mkdir sig
signum() { kill -l "$1"; }

# a build or add reading a pipe (its temporary file already created) is stopped by a signal:
# it dies of the signal, the old file stays, the temporary file goes
stopped_while_reading() { # signal command-words... (the output file is sig/f.bf)
	local sig=$1 pid rc
	shift
	rm -f feed
	mkfifo feed
	# background jobs of a script ignore SIGINT: give bloomtool the default actions back
	env --default-signal=HUP,INT,TERM "$TOOL" "$@" feed 2>sig.err &
	pid=$!
	exec 3>feed # returns once bloomtool opened its input, after it created its temporary file
	ls -A sig | grep -q '^\.f\.bf\.bloomtool-tmp\.' ||
		die "$*: no temporary file .f.bf.bloomtool-tmp.* while reading the input: $(files_in sig)"
	seq 1 50000 >&3
	rc=0
	kill "-$sig" "$pid"
	{ wait "$pid"; } 2>/dev/null || rc=$?
	exec 3>&-
	[ $rc -eq $((128 + $(signum "$sig"))) ] || die "$* stopped by SIG$sig exited $rc ($(cat sig.err))"
}
for sig in TERM INT HUP; do
	stopped_while_reading "$sig" build --items 1000000 -o sig/f.bf
	only_files "a build stopped by SIG$sig" sig
	"$TOOL" build --items 1000 -o sig/f.bf small.txt
	cp sig/f.bf sig.orig
	stopped_while_reading "$sig" add sig/f.bf
	cmp -s sig/f.bf sig.orig || die "an add stopped by SIG$sig changed the file"
	only_files "an add stopped by SIG$sig" sig f.bf
	rm sig/f.bf
done

# the same once the temporary file is complete: strace delivers the signal at its fsync
if strace -f -qq -o /dev/null true 2>/dev/null; then
	"$TOOL" build --items 1000 -o sig/f.bf small.txt
	cp sig/f.bf sig.orig
	for sig in TERM INT HUP; do
		rc=0
		# (in a subshell, whose stderr takes bash's "Terminated")
		(strace -f -qq -o /dev/null -e trace=fsync -e "inject=fsync:signal=$sig" \
			env --default-signal=HUP,INT,TERM "$TOOL" add sig/f.bf small.txt 2>sig.err; exit $?) 2>/dev/null || rc=$?
		[ $rc -eq $((128 + $(signum "$sig"))) ] ||
			die "an add stopped by SIG$sig at fsync exited $rc ($(cat sig.err))"
		cmp -s sig/f.bf sig.orig || die "an add stopped by SIG$sig before its rename changed the file"
		only_files "an add stopped by SIG$sig at fsync" sig f.bf
	done
	# a failed fsync is an error like any other
	expect 3 "Input/output error" strace -qq -o /dev/null -e trace=fsync -e inject=fsync:error=EIO \
		"$TOOL" add sig/f.bf small.txt
	cmp -s sig/f.bf sig.orig || die "an add whose fsync failed changed the file"
	only_files "an add whose fsync failed" sig f.bf
	# the file is synced, renamed, then its directory synced
	strace -qq -o order.trace -e trace=fsync,rename,renameat2 "$TOOL" add sig/f.bf small.txt
	order=$(grep -o '^[a-z0-9]*' order.trace | tr '\n' ' ')
	[ "$order" = "fsync rename fsync " ] || die "add syncs and renames in the order: $order"
	rm sig/f.bf
else
	skipped+=("signals and errors at fsync (strace cannot trace here)")
fi

# a signal the caller ignores stays ignored: a script's background job ignores SIGINT
rm -f feed
mkfifo feed
"$TOOL" build --items 1000 -o sig/ignored.bf feed 2>sig.err &
pid=$!
exec 3>feed
seq 1 100 >&3
kill -INT "$pid"
seq 101 200 >&3 || true # fails if bloomtool died of it
exec 3>&-
rc=0
wait "$pid" || rc=$?
[ $rc -eq 0 ] || die "a build whose caller ignores SIGINT exited $rc on SIGINT ($(cat sig.err))"
[ "$("$TOOL" info sig/ignored.bf | awk '$1 == "items_added" { print $2 }')" -eq 200 ] ||
	die "a build whose caller ignores SIGINT lost lines"
rm sig/ignored.bf

# SIGKILL cannot be caught: the temporary file stays, under a name that says what it is
rm -f feed
mkfifo feed
"$TOOL" build --items 1000 -o sig/killed.bf feed &
pid=$!
exec 3>feed
rc=0
kill -KILL "$pid"
{ wait "$pid"; } 2>/dev/null || rc=$?
exec 3>&-
[ $rc -eq 137 ] || die "a build killed by SIGKILL exited $rc"
left=$(ls -A sig | grep '^\.killed\.bf\.bloomtool-tmp\.......$' || true)
[ -n "$left" ] || die "SIGKILL left no .killed.bf.bloomtool-tmp.XXXXXX: $(files_in sig)"
rm -f -- "sig/$left" feed
only_files "signals" sig

# ---- symlinks --------------------------------------------------------------------------

mkdir links other
"$TOOL" build --items 2000 -o links/real.bf small.txt
ln -s real.bf links/rel.bf                  # relative, same directory
ln -s ../links/real.bf other/into.bf        # relative, from another directory
ln -s "$WORK/other/into.bf" links/chain.bf  # absolute, to a link
n=0
for link in links/rel.bf other/into.bf links/chain.bf; do
	n=$((n + 1))
	echo "via-link-$n" | "$TOOL" add "$link" || die "add through $link exited $?"
	[ -L "$link" ] || die "add through $link replaced the link with a file"
	[ "$(echo "via-link-$n" | "$TOOL" check links/real.bf)" = "via-link-$n" ] ||
		die "add through $link did not reach the file it names"
done
only_files "add through links" links chain.bf real.bf rel.bf
only_files "add through links" other into.bf
# union and build through a link, and build through a dangling link creates the file
"$TOOL" union links/rel.bf links/real.bf -o other/into.bf
[ -L other/into.bf ] || die "union -o a link replaced the link"
ln -s ../links/new.bf other/dangling.bf
"$TOOL" build --items 10 -o other/dangling.bf small.txt
[ -L other/dangling.bf ] && [ -f links/new.bf ] || die "build -o a dangling link did not create the file it names"
[ "$(echo item-7 | "$TOOL" check other/dangling.bf)" = item-7 ] || die "the file built through a dangling link lacks its items"
only_files "links" links chain.bf new.bf real.bf rel.bf
only_files "links" other dangling.bf into.bf

# ---- owner, group and mode -------------------------------------------------------------

mkdir owner
umask 027
"$TOOL" build --items 10 -o owner/umask.bf small.txt
[ "$(stat -c %a owner/umask.bf)" = 640 ] ||
	die "a new file under umask 027 has mode $(stat -c %a owner/umask.bf), not 640"
umask 022
"$TOOL" build --items 2000 -o owner/mode.bf small.txt
chmod 0604 owner/mode.bf
echo item-x | "$TOOL" add owner/mode.bf
[ "$(stat -c %a owner/mode.bf)" = 604 ] || die "add changed mode 604 to $(stat -c %a owner/mode.bf)"
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	group=$(id -gn nobody)
	"$TOOL" build --items 2000 -o owner/nobodys.bf small.txt
	chown "nobody:$group" owner/nobodys.bf
	chmod 0640 owner/nobodys.bf
	ln -s nobodys.bf owner/link.bf
	for target in nobodys.bf link.bf; do
		echo "root-adds-$target" | "$TOOL" add "owner/$target"
		[ "$(stat -c '%U:%G %a' owner/nobodys.bf)" = "nobody:$group 640" ] ||
			die "root's add through $target made nobody's file $(stat -c '%U:%G %a' owner/nobodys.bf)"
	done
	[ "$(runuser -u nobody -- "$TOOL" check owner/nobodys.bf <<<root-adds-link.bf)" = root-adds-link.bf ] ||
		die "nobody cannot read its file after root's add"
	# and nobody can still rewrite it, in a directory it may write
	chown nobody owner
	runuser -u nobody -- "$TOOL" add owner/nobodys.bf small.txt ||
		die "nobody's add to its file after root's failed"
	[ "$(stat -c '%U:%G %a' owner/nobodys.bf)" = "nobody:$group 640" ] ||
		die "nobody's add made its file $(stat -c '%U:%G %a' owner/nobodys.bf)"
	# a user who may write the directory but does not own the file: it becomes theirs (a
	# rename cannot keep another owner), with its mode
	"$TOOL" build --items 2000 -o owner/roots.bf small.txt
	chmod 0644 owner/roots.bf
	runuser -u nobody -- "$TOOL" add owner/roots.bf <<<"nobody-adds" || die "nobody's add to root's file failed"
	[ "$(stat -c '%U %a' owner/roots.bf)" = "nobody 644" ] ||
		die "nobody's add made root's file $(stat -c '%U %a' owner/roots.bf), not nobody 644"
	only_files "owner kept" owner link.bf mode.bf nobodys.bf roots.bf umask.bf
else
	skipped+=("owner kept (needs root and a nobody user)")
fi
# a hard link: the name written gets the new filter, the other names keep the old one
"$TOOL" build --items 2000 -o owner/linked.bf small.txt
ln owner/linked.bf owner/hard.bf
cp owner/linked.bf linked.orig
echo item-new | "$TOOL" add owner/linked.bf
cmp -s owner/hard.bf linked.orig || die "add to one name of a hard-linked file changed the other"
[ "$(echo item-new | "$TOOL" check owner/linked.bf)" = item-new ] || die "add to a hard-linked file lost its item"
no_temp_left "all"

note=""
[ ${#skipped[@]} -eq 0 ] || note="; SKIPPED: ${skipped[*]}"
echo "PASS bloomtool_files: unreadable input exits 3; 3 concurrent writers x 150000 items, none lost; full file system, ulimit -f, SIGTERM/SIGINT/SIGHUP leave no temporary file; symlinks followed; owner and mode kept; $(($(date +%s) - started)) s$note"
