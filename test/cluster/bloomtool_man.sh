#!/usr/bin/env bash
# test/cluster/bloomtool_man.sh - the manual page doc/bloomtool.1 says what "bloomtool --help"
# says, and renders cleanly (no server needed; run by scripts/server-tests.sh with the others,
# and by scripts/deb.sh on the page and the program the bloomtool package installs).
#
#   - the page's SYNOPSIS is the help's Usage, line for line;
#   - the commands the page's COMMANDS section describes are the help's commands, and the
#     options its OPTIONS section describes are the options the help names (-n, --items, ...,
#     --version), both ways: nothing missing from the page, nothing the program has not;
#   - the page's .TH names the version bloomtool --version prints;
#   - groff -man -ww reports no warning, nor does man --warnings as lintian runs it, nor
#     mandoc -T lint -W all where mandoc is installed (scripts/deb.sh installs it).
#
# Tests build/bin/bloomtool and doc/bloomtool.1 (BLOOMTOOL=path and BLOOMTOOL_MAN=path, which may
# be gzipped, override).  Needs groff (Debian package groff-base; installed with apt-get when
# missing and run as root, else the test is skipped).  Prints one PASS line, or FAIL and exits
# non-zero.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

ROOT=${BF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
TOOL=${BLOOMTOOL:-$ROOT/build/bin/bloomtool}
PAGE=${BLOOMTOOL_MAN:-$ROOT/doc/bloomtool.1}
t0=$EPOCHREALTIME

[ -x "$TOOL" ] || die "no bloomtool at $TOOL (run make)"
[ -r "$PAGE" ] || die "no manual page at $PAGE"
if ! command -v groff >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "installing groff-base (groff renders the page)"
		flock /tmp/bf-apt.lock bash -c 'export DEBIAN_FRONTEND=noninteractive
			apt-get -o DPkg::Lock::Timeout=300 update -qq &&
			apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends groff-base' \
			>/dev/null || die "apt-get install groff-base failed"
	else
		echo "skip $bf_test: groff is not installed (Debian package groff-base)"
		exit 77
	fi
fi

WORK=$(mktemp -d -t bf-bloomtool-man.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
case $PAGE in
*.gz) gzip -dc "$PAGE" >bloomtool.1 ;;
*) cp "$PAGE" bloomtool.1 ;;
esac

"$TOOL" --help >help.txt || die "bloomtool --help exited $?"
# as a terminal shows it, without bold or underlining, in lines long enough not to wrap the tags
groff -man -Tascii -P-cbou -rLL=300n bloomtool.1 >page.txt 2>/dev/null || die "groff cannot render $PAGE"

# the lines of one section of the rendered page (heading at column 0, text indented)
section() { awk -v s="$1" '/^[A-Z]/ { on = ($0 == s); next } on' page.txt; }
# every option a text names: -x or --name, after a blank, "[", "|" or "," (not "-" alone)
options_in() { { grep -oE '(^|[][ |,])--?[a-zA-Z][a-z-]*' || true; } | sed 's/^[][ |,]//' | sort -u; }
squeeze() { sed -E 's/^ +//; s/ +$//; s/ +/ /g' | awk 'NF' | sort; }
# "what is missing" "from" "list A" "list B": the lines of A that B lacks, or nothing
missing() { # the lines of $1 not in $2 (files, not /dev/fd: a chroot may lack /proc)
	printf '%s\n' "$1" | sort -u >missing.a
	printf '%s\n' "$2" | sort -u >missing.b
	comm -23 missing.a missing.b >missing.out || die "comm failed"
	grep -v '^$' missing.out || true
}
same() { # what, the help's lines, the page's lines
	local lack extra
	lack=$(missing "$2" "$3")
	extra=$(missing "$3" "$2")
	if [ -z "$lack" ] && [ -z "$extra" ]; then
		if printf '%s\n' "$2" | grep -q ' '; then
			echo "ok:   $1 ($(printf '%s\n' "$2" | grep -c .) lines)"
		else
			echo "ok:   $1 ($(echo $2))"
		fi
	else
		echo "FAIL: $1${lack:+; not in the page: $(echo $lack)}${extra:+; not in bloomtool --help: $(echo $extra)}"
		fail=1
	fi
}

# ---- the help's usage, commands and options ------------------------------------------------
help_usage=$(awk '/^Usage:/ { on = 1; next } /^[^ ]/ { on = 0 } on' help.txt | squeeze)
help_commands=$(
	{
		printf '%s\n' "$help_usage" | awk '$1 == "bloomtool" && $2 ~ /^[a-z]+$/ { print $2 }'
		awk '/^Commands:/ { on = 1; next } /^[^ ]/ { on = 0 } on && /^  [a-z]+  / { print $1 }' help.txt
	} | sort -u)
help_options=$(options_in <help.txt)
# the parse itself: five commands and their options, or the help has changed its layout
[ "$(printf '%s\n' "$help_commands" | grep -c .)" -ge 5 ] || die "found only these commands in bloomtool --help: $help_commands"
[ "$(printf '%s\n' "$help_options" | grep -c .)" -ge 15 ] || die "found only these options in bloomtool --help: $(echo $help_options)"

# ---- the page ------------------------------------------------------------------------------
page_usage=$(section SYNOPSIS | squeeze)
# the tags: a section's lines at its smallest indentation (groff 1.22 and 1.23 indent them 7
# columns, 1.24 5)
tags() { section "$1" | awk 'NF { n = match($0, /[^ ]/); line[NR] = $0; at[NR] = n; if (!min || n < min) min = n }
	END { for (i = 1; i <= NR; i++) if (at[i] == min) print line[i] }'; }
page_commands=$(tags COMMANDS | awk '$1 ~ /^[a-z]+$/ { print $1 }' | sort -u)
page_options=$(tags OPTIONS | awk '$1 ~ /^-/' | options_in)

same "SYNOPSIS is the help's Usage" "$help_usage" "$page_usage"
same "COMMANDS describes the help's commands" "$help_commands" "$page_commands"
same "OPTIONS describes the options the help names" "$help_options" "$page_options"

version=$("$TOOL" --version | sed -n 's/^bloomtool (bloomfilter) \([^ ,]*\).*/\1/p')
th=$(sed -n 's/^\.TH .*"bloomfilter \([^"]*\)".*/\1/p' bloomtool.1)
check "the page is of bloomtool ${version:-?} (.TH: bloomfilter ${th:-?})" \
	test -n "$version" -a "$version" = "$th"

# ---- rendering without warnings --------------------------------------------------------------
lint() { # what, command...: passes when the command says nothing
	local what=$1
	shift
	"$@" >lint.out 2>&1 || true
	if [ -s lint.out ]; then
		echo "FAIL: $what:"
		sed 's/^/    /' lint.out
		fail=1
	else
		echo "ok:   $what: no warning"
	fi
}
lint "groff -man -ww -z" groff -man -ww -z bloomtool.1
if command -v man >/dev/null; then
	# what lintian runs (its check manpages/mandb), at 80 columns
	lint "man --warnings (as lintian)" bash -c "LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \\
		man --warnings -E UTF-8 -l -Tutf8 -Z bloomtool.1 >/dev/null"
else
	echo "note: man is not installed: only groff (and mandoc) judge the page"
fi
if command -v mandoc >/dev/null; then
	lint "mandoc -T lint -W all" mandoc -T lint -W all bloomtool.1
else
	echo "note: mandoc is not installed (Debian package mandoc): its lint is left out"
fi

t1=$EPOCHREALTIME
finish "the manual page and bloomtool --help agree, and it renders cleanly" \
	"the manual page and bloomtool --help disagree, or it does not render cleanly"
