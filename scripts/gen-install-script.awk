# scripts/gen-install-script.awk - writes an install script from its template
# (bloomfilter.sql.in; make install-script, and a test in make test that the
# committed script is what the template gives).
#
# The template is SQL with two directives, each a whole line:
#
#   -- @foreach TYPE...        the lines up to "-- @end" are written once per TYPE, in
#   ...                         order, with every @type@ replaced by it
#   -- @end
#
#   -- @only TYPE...           inside a @foreach: the lines up to "-- @endonly" are written
#   ...                         only for the TYPEs named
#   -- @endonly
#
#   -- @@ TEXT                 a note on the template itself, not written
#
# Everything else is copied as it stands.

function emit(type,    i, line, keep, n, j, only) {
	keep = 1
	for (i = 1; i <= nblock; i++) {
		line = block[i]
		if (line ~ /^-- @only /) {
			n = split(substr(line, 10), only, " ")
			keep = 0
			for (j = 1; j <= n; j++)
				if (only[j] == type)
					keep = 1
			continue
		}
		if (line == "-- @endonly") {
			keep = 1
			continue
		}
		if (keep) {
			gsub(/@type@/, type, line)
			print line
		}
	}
}

/^-- @@ / || /^-- @@$/ {
	next
}

/^-- @foreach / {
	if (inside)
		error("a @foreach inside a @foreach")
	ntypes = split(substr($0, 13), types, " ")
	nblock = 0
	inside = 1
	next
}

/^-- @end$/ {
	if (!inside)
		error("@end without @foreach")
	for (t = 1; t <= ntypes; t++)
		emit(types[t])
	inside = 0
	next
}

inside {
	block[++nblock] = $0
	next
}

/@type@|^-- @only |^-- @endonly$/ {
	error("@type@ or @only outside a @foreach")
}

{ print }

END {
	if (inside && !failed)
		error("@foreach without @end")
	if (failed)
		exit 1
}

function error(msg) {
	printf("%s:%d: %s\n", FILENAME, FNR, msg) > "/dev/stderr"
	failed = 1
	exit 1
}
