#!/usr/bin/env python3
"""scripts/pg-suite-classify.py [--quiet] BASE RESULT

Is every difference between a PostgreSQL regression test's output on the baseline server
(BASE, no library) and with bloomfilter preloaded (RESULT) EXPLAIN plan text that the
extension's nodes account for?  Used by scripts/pg-suite.sh under bloomfilter.join_filter =
always.  Exit status 0 when every hunk of "diff -U0 BASE RESULT" is, 1 when one is not (the
hunks are printed, each with its judgement), 2 on a usage error.

A hunk is plan text when, after the lines the extension adds are set aside, its removed and
its added lines are the same lines once what the extension may change in a plan is masked.
Added lines the extension prints (src/join_filter/, src/prefetch_scan.c):
    the nodes      Custom Scan (bloomfilter join build), Custom Scan (bloomfilter join probe)
                   (and "Parallel Custom Scan ...")
    their details  Bloom Join Filter:, Bloom Join Filters:, Rows Removed by Bloom Join Filter:,
                   Planned Keys:, Filter Size:, Filter State:, Sent to Remote Scan:,
                   Bloom Join Filter Paused:, and the prefetching scan's Bloom Filter:,
                   Rows Read Ahead:, Filter First:, Filter In Turn:, Rows Removed by Filter
                   First:, Rows Removed by Filter In Turn:, Rows Removed by Bloom Filter:
Masked in the lines that pair up:
    a scan the extension's scans replace: "Custom Scan (bloomfilter join scan) on t" and
        "Custom Scan (bloomfilter prefetch) on t" read as "Seq Scan on t" (its Filter: and
        Rows Removed by Filter: lines are the sequential scan's)
    indentation and the "->" of a node line (a node added above shifts its subtree)
    cost and row numbers: (cost=...), (actual ...), Rows Removed by ...: N, and the row count
        "(N rows)" of the EXPLAIN's result, which grows by the lines added
Anything else (a different answer, a different join method, an error) is not plan text.
"""

import difflib
import re
import sys

# a node of the extension's that sits above another node, "->  " and all
EXT_NODE = re.compile(r"^( *)(->  )?(Parallel )?Custom Scan \(bloomfilter (join build|join probe)\)")
# the lines the extension's nodes print, wherever they are
EXT_DETAIL = re.compile(
    r"^ *(Bloom Join Filters?|Rows Removed by Bloom Join Filter|Planned Keys|Filter Size"
    r"|Filter State|Sent to Remote Scan|Bloom Join Filter Paused"
    r"|Bloom Filter|Rows Read Ahead|Filter First|Filter In Turn"
    r"|Rows Removed by Filter First|Rows Removed by Filter In Turn"
    r"|Rows Removed by Bloom Filter): ")
# the extension's scans, in place of a sequential scan
EXT_SCAN = re.compile(r"Custom Scan \(bloomfilter (join scan|prefetch)\)")
NUMBERS = [
    (re.compile(r"\((cost|actual)[= ][^()]*\)"), lambda m: "(" + m.group(1) + " #)"),
    (re.compile(r"^( *Rows Removed by [A-Za-z ]+): \d+$"), lambda m: m.group(1) + ": #"),
    (re.compile(r"^\(\d+ rows?\)$"), lambda m: "(# rows)"),
    (re.compile(r"^-+$"), lambda m: "---"),
]


def indent(line):
    return len(line) - len(line.lstrip(" "))


def without_extension(lines, tally):
    """the lines with the extension's nodes taken out of every text-format plan"""
    out = list(lines)
    origin = list(range(len(lines)))  # each line's number in 'lines'
    i = 0
    while i < len(out):
        m = EXT_NODE.match(out[i])
        if not m:
            i += 1
            continue
        tally["nodes"] += 1
        lead = len(m.group(1))
        arrow = m.group(2) is not None
        below = lead + (len(m.group(2)) if arrow else 0) + 2  # its details' and child's column
        del out[i]
        del origin[i]
        # its detail lines (Output:, Bloom Join Filter: ...), up to its child "->"
        while i < len(out) and indent(out[i]) == below and not out[i][below:].startswith("->"):
            del out[i]
            del origin[i]
            tally["details"] += 1
        # its subtree moves up in its place: 6 columns left, and for a node at the top of the
        # plan the child loses its arrow
        j = i
        while j < len(out) and indent(out[j]) >= below and out[j].strip():
            line = out[j]
            if j == i and not arrow and line[below:].startswith("->  "):
                line = " " * lead + line[below + 4:]
            else:
                line = line[6:]
            out[j] = line
            j += 1
        tally["shifted"] += j - i
    result = []
    kept = []
    for line, n in zip(out, origin):
        if EXT_DETAIL.match(line):
            tally["details"] += 1
            continue
        if EXT_SCAN.search(line):
            tally["scans"] += 1
            line = EXT_SCAN.sub("Seq Scan", line)
        result.append(line)
        kept.append(n)
    return result, kept


def masked(lines):
    """cost and row numbers masked, headers and their rules whatever their width"""
    out = []
    for k, line in enumerate(lines):
        s = line.rstrip()
        if k + 1 < len(lines) and re.match(r"^-+(\+-+)*$", lines[k + 1].rstrip()):
            s = s.strip()  # a result's header, centred over its column
        for pattern, repl in NUMBERS:
            s = pattern.sub(repl, s)
        out.append(s)
    return out


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def main(argv):
    quiet = "--quiet" in argv
    args = [a for a in argv if a != "--quiet"]
    if len(args) != 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    base, result = read(args[0]), read(args[1])
    hunks = [g for g in difflib.SequenceMatcher(None, base, result, autojunk=False).get_grouped_opcodes(0)]
    if not hunks:
        if not quiet:
            print("identical")
        return 0
    tally = {"nodes": 0, "details": 0, "scans": 0, "shifted": 0}
    nbase, kbase = without_extension(base, {"nodes": 0, "details": 0, "scans": 0, "shifted": 0})
    nresult, kresult = without_extension(result, tally)
    nbase, nresult = masked(nbase), masked(nresult)
    if nbase == nresult:
        if not quiet:
            print("%d hunk%s, all plan text: %d extension node%s with %d line%s of their own, "
                  "%d sequential scan%s replaced by the extension's, %d line%s of their subtrees "
                  "moved up, and cost/row numbers" %
                  (len(hunks), "" if len(hunks) == 1 else "s",
                   tally["nodes"], "" if tally["nodes"] == 1 else "s",
                   tally["details"], "" if tally["details"] == 1 else "s",
                   tally["scans"], "" if tally["scans"] == 1 else "s",
                   tally["shifted"], "" if tally["shifted"] == 1 else "s"))
        return 0
    if not quiet:
        # what remains, shown as the lines of the two files themselves (with their numbers)
        rest = [op for op in difflib.SequenceMatcher(None, nbase, nresult, autojunk=False).get_opcodes()
                if op[0] != "equal"]
        print("%d hunk%s; with the extension's plan lines taken out and cost/row numbers masked, "
              "%d remain%s, NOT plan text:" %
              (len(hunks), "" if len(hunks) == 1 else "s", len(rest), "s" if len(rest) == 1 else ""))
        for _, i1, i2, j1, j2 in rest:
            b1 = kbase[i1] if i1 < len(kbase) else len(base)
            r1 = kresult[j1] if j1 < len(kresult) else len(result)
            b2 = kbase[i2 - 1] + 1 if i2 > i1 else b1
            r2 = kresult[j2 - 1] + 1 if j2 > j1 else r1
            print("@@ baseline line %d, with the library line %d @@" % (b1 + 1, r1 + 1))
            for line in result[max(0, r1 - 3):r1]:
                print(" " + line)
            for line in base[b1:b2]:
                print("-" + line)
            for line in result[r1:r2]:
                print("+" + line)
            for line in result[r2:r2 + 2]:
                print(" " + line)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
