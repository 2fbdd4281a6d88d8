"""
check_storage.py - the Python half of test/cluster/storage_reader.sh.

Compares what the extension wrote and answered (CSV files exported by psql)
with what bloomfilter_reader.py, written from STORAGE.md alone, reads and
answers.  Subcommands (all files in WORKDIR):

  vectors-sql STORAGE.md WORKDIR   write vectors.sql: the SQL elements of
                                   STORAGE.md's canonical-vectors tables,
                                   each added to an empty filter of each
                                   hash scheme its table is for, and those
                                   of its integer-vectors table (scheme 2)
  examples-sql STORAGE.md WORKDIR  write examples.sql: the queries of the
                                   worked examples (sections 10 to 13), each
                                   run as written (scheme 2) and from an
                                   empty filter of scheme 1
  mutations WORKDIR                read bases.csv, write mutations.csv:
                                   hostile variants of valid filters
  check STORAGE.md WORKDIR         read every export, check, print a report;
                                   exit status 1 on any mismatch
  composed-rows SCHEME             print the rows of the tables that the
                                   reader composes, by hash scheme SCHEME
                                   (markdown)
  integer-rows                     print the rows of the integer-vectors
                                   table (scheme 2's integer hash; markdown)
"""

import base64
import csv
import json
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bloomfilter_reader as reader  # noqa: E402

MASK64 = reader.MASK64
csv.field_size_limit(1 << 30)

# The extension's message for each validation rule (STORAGE.md section 3)
RULE_MESSAGES = {
    1: "The value is shorter than the 64-byte header.",
    2: 'The value does not start with the bloomfilter magic bytes "BLMF".',
    3: "The format version is not one this build can read (it reads version 1).",
    4: "The variant code is unknown.",
    5: "The hash scheme is unknown.",
    6: "Reserved header fields are not zero, or the variant's own header word is invalid.",
    7: "The number of hash functions (for cuckoo filters, fingerprint bits) is outside what the variant allows (1 to 64; cuckoo 4 to 32).",
    8: "The bit count is zero, too large, or not valid for the variant.",
    9: "The payload size disagrees with the bit count.",
    "9a": "The filter would be larger than the 1 GB limit of a PostgreSQL value.",
    10: "The stored target false-positive rate is not a rate between 0 and 1, or it disagrees with the stored expected item count (both are set, or both are zero).",
    11: "The value is shorter than its header says.",
    12: "The value is longer than its header says.",
    13: "Padding bits past the end of the filter are set.",
}

# Filters the vectors are added to: big enough that a wrong byte string
# cannot set the same bits by chance
VECTOR_FILTERS = [("classic", 65536, 24), ("blocked", 65536, 24)]
SCHEMES = (reader.HASH_XXH3_128, reader.HASH_EQUALITY)

# Element types of storage_reader.sh's cases that scheme 2 hashes its own
# way: each case of them must be probed with values equal to members
SCHEME2_TYPES = ("numeric", "float8", "float4", "interval", "inet", "cidr", "jsonb", "hstore")

# Types the canonical-vectors table uses, created before its elements are added
VECTOR_TYPES = """CREATE TYPE storage_mood AS ENUM ('sad', 'happy');
CREATE DOMAIN storage_posint AS integer CHECK (VALUE > 0);
"""

_i = reader.canonical_int
_t = reader.canonical_text
_x = bytes.fromhex

# Rows of the canonical-vectors tables composed here by the reader's rules:
# the containers from their parts (STORAGE.md section 6.2), and scheme 2's
# own forms (section 6.3).  Each gives the bytes for a hash scheme, or None
# where the reader has no rule (scheme 1's send forms of numeric are taken
# as the table gives them).  The tables' bytes must be exactly these, and
# the extension must set exactly the bits they give.
_N15 = {1: _x("000200000000000100011388"), 2: reader.canonical_numeric("1.5")}
_num = reader.canonical_numeric

COMPOSED_VECTORS = {
    "ARRAY[1, NULL, 3]": lambda s: reader.canonical_array([_i(1), None, _i(3)]),
    "ARRAY[1, 2]::bigint[]": lambda s: reader.canonical_array([_i(1), _i(2)]),
    "ARRAY[7]::storage_posint[]": lambda s: reader.canonical_array([_i(7)]),
    "'{}'::integer[]": lambda s: reader.canonical_array([]),
    "'[0:1][2:3]={{a,b},{c,d}}'::text[]": lambda s: reader.canonical_array(
        [_t("a"), _t("b"), _t("c"), _t("d")], dims=[2, 2], lower_bounds=[0, 2]),
    "ARRAY['\u00e9', 'b']": lambda s: reader.canonical_array([_t("\u00e9"), _t("b")]),
    "ARRAY['happy'::storage_mood]": lambda s: reader.canonical_array([_t("happy")]),
    "ARRAY['2000-01-02'::date]": lambda s: reader.canonical_array([_x("00000001")]),
    "ROW(1, 'a')": lambda s: reader.canonical_record([_i(1), _t("a")]),
    "ROW(NULL::integer, ROW('b'))": lambda s: reader.canonical_record(
        [None, reader.canonical_record([_t("b")])]),
    "ROW(1.5, '2000-01-02'::date, ARRAY[42])": lambda s: reader.canonical_record(
        [_N15[s], _x("00000001"), reader.canonical_array([_i(42)])]),
    "int4range(1, 5)": lambda s: reader.canonical_range(_i(1), _i(5)),
    "'(,5]'::int4range": lambda s: reader.canonical_range(None, _i(6)),
    "'empty'::int4range": lambda s: reader.canonical_range(empty=True),
    "numrange(1.5, NULL)": lambda s: reader.canonical_range(_N15[s], None),
    "'{[1,3), [5,7)}'::int4multirange": lambda s: reader.canonical_multirange(
        [reader.canonical_range(_i(1), _i(3)), reader.canonical_range(_i(5), _i(7))]),
    "'{}'::int8multirange": lambda s: reader.canonical_multirange([]),
    "'1 2'::int2vector": lambda s: reader.canonical_array([_i(1), _i(2)], dims=[2], lower_bounds=[0]),
}

# Scheme 2's own forms (the examples of sql/element_encoding.sql among them)
SCHEME2_VECTORS = {
    "9223372036854775808::numeric": lambda: _num("9223372036854775808"),
    "2.50::numeric": lambda: _num("2.50"),
    "'-0.0010'::numeric": lambda: _num("-0.0010"),
    "1e-20::numeric": lambda: _num("1e-20"),
    "'NaN'::numeric": lambda: _num("NaN"),
    "'-Infinity'::numeric": lambda: _num("-Infinity"),
    "1.5::float8": lambda: reader.canonical_float(1.5),
    "1.5::float4": lambda: reader.canonical_float(1.5, single=True),
    "0.1::float4": lambda: reader.canonical_float(0.1, single=True),
    "'-0'::float8": lambda: reader.canonical_float("-0"),
    "'NaN'::float4": lambda: reader.canonical_float("NaN", single=True),
    "'1 day 00:00:00.000001'::interval": lambda: reader.canonical_interval(0, 1, 1),
    "'1 mon'::interval": lambda: reader.canonical_interval(1, 0, 0),
    "'-1 microsecond'::interval": lambda: reader.canonical_interval(0, 0, -1),
    "'10.1.2.3/8'::inet": lambda: reader.canonical_inet("10.1.2.3/8"),
    "'10.0.0.0/8'::cidr": lambda: reader.canonical_inet("10.0.0.0/8"),
    "'::1/128'::inet": lambda: reader.canonical_inet("::1/128"),
    "'{\"a\":1}'::jsonb": lambda: reader.canonical_jsonb({"a": 1}),
    "'{\"a\": [1.50, null, true]}'::jsonb": lambda: reader.canonical_jsonb_text('{"a": [1.50, null, true]}'),
    "'\"x\"'::jsonb": lambda: reader.canonical_jsonb("x"),
    "'{\"b\": false, \"a\": 1e2}'::jsonb": lambda: reader.canonical_jsonb_text('{"b": false, "a": 1e2}'),
    "ARRAY[1.0, NULL]::numeric[]": lambda: reader.canonical_array([_num("1.0"), None]),
}


# Scheme 2's integer elements (STORAGE.md section 10.9, hashed by section 5.3):
# the value the reader takes each for
_nint = reader.numeric_integer
INTEGER_VECTORS = {
    "42::smallint": lambda: 42,
    "42::integer": lambda: 42,
    "42::bigint": lambda: 42,
    "(-1)::integer": lambda: -1,
    "(-32768)::smallint": lambda: -32768,
    "7::storage_posint": lambda: 7,
    "42::numeric": lambda: _nint(42),
    "1.000::numeric": lambda: _nint("1.000"),
    "'-0.000'::numeric": lambda: _nint("-0.000"),
    "'-9223372036854775808.0'::numeric": lambda: _nint("-9223372036854775808.0"),
    "9223372036854775807::numeric": lambda: _nint("9223372036854775807"),
}


def composed(expr, scheme):
    """The reader's bytes for a row of the tables, or None without a rule."""
    if expr in COMPOSED_VECTORS:
        return COMPOSED_VECTORS[expr](scheme)
    if scheme == reader.HASH_EQUALITY and expr in SCHEME2_VECTORS:
        return SCHEME2_VECTORS[expr]()
    return None


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


def probe_hash(probe_type, text, f):
    """(lo, hi) of an exported probe value for filter f, by f's hash scheme:
    integers (and, in scheme 2, numerics) by the reader's integer hashing
    (STORAGE.md section 5), everything else by XXH3-128 of canonical()."""
    if probe_type in ("int2", "int4", "int8"):
        return reader.int_hash(int(text), f.seed, f.hash_scheme)
    if probe_type == "numeric" and f.hash_scheme == reader.HASH_EQUALITY:
        return reader.numeric_hash(text, f.seed)
    return reader.element_hash(canonical(probe_type, text), f.seed)


def canonical(probe_type, text):
    """Canonical bytes of an exported probe value (STORAGE.md section 6).
    The types of the first group hash alike under both schemes (their
    bytes do); the others are scheme 2's forms.  float4, float8 and
    interval come as the hex of their send form (their exact fields), the
    others as their text."""
    if probe_type == "text":
        return reader.canonical_text(text)
    if probe_type in ("int2", "int4", "int8"):
        return reader.canonical_int(int(text))
    if probe_type == "bytea":
        return bytes.fromhex(text)
    if probe_type == "uuid":
        return reader.canonical_uuid(text)
    if probe_type == "numeric":
        return reader.canonical_numeric(text)
    if probe_type == "float8":
        return reader.canonical_float(struct.unpack(">d", bytes.fromhex(text))[0])
    if probe_type == "float4":
        return reader.canonical_float(struct.unpack(">f", bytes.fromhex(text))[0],
                                      single=True)
    if probe_type == "interval":
        time, day, month = struct.unpack(">qii", bytes.fromhex(text))
        return reader.canonical_interval(month, day, time)
    if probe_type in ("inet", "cidr"):
        return reader.canonical_inet(text)
    if probe_type == "jsonb":
        return reader.canonical_jsonb_text(text)
    if probe_type == "typehash":
        return reader.canonical_type_hash(int(text))
    raise ValueError("unknown probe type %r" % probe_type)


def storage_vectors(storage_md):
    """The rows of STORAGE.md's canonical-vectors tables: (SQL element,
    canonical bytes, lo, hi, the hash schemes its table is for).  A table
    is marked <!-- canonical-vectors:begin schemes 1 2 --> ... <!--
    canonical-vectors:end -->."""
    text = open(storage_md, encoding="utf-8").read()
    tables = re.findall(r"<!-- canonical-vectors:begin schemes ([0-9 ]+) -->(.*?)"
                        r"<!-- canonical-vectors:end -->", text, re.S)
    if not tables:
        raise SystemExit("STORAGE.md has no canonical-vectors table")
    rows = []
    for schemes, body in tables:
        schemes = tuple(int(s) for s in schemes.split())
        if not schemes or not set(schemes) <= set(SCHEMES):
            raise SystemExit("a canonical-vectors table of STORAGE.md is for schemes %r"
                             % (schemes,))
        n = len(rows)
        for line in body.splitlines():
            cells = re.findall(r"`([^`]*)`", line)
            if len(cells) == 4 and re.fullmatch(r"[0-9a-f]{16}", cells[2]):
                rows.append(tuple(cells) + (schemes,))
        if len(rows) == n:
            raise SystemExit("a canonical-vectors table of STORAGE.md has no rows")
    seen = set()
    for expr, _hex, _lo, _hi, schemes in rows:
        for s in schemes:
            if (expr, s) in seen:
                raise SystemExit("STORAGE.md gives %s twice for scheme %d" % (expr, s))
            seen.add((expr, s))
    return rows


def integer_vectors(storage_md):
    """The rows of STORAGE.md's integer-vectors table (scheme 2's integer
    elements): (SQL element, v, canonical bytes, lo, hi), between
    <!-- integer-vectors:begin --> and <!-- integer-vectors:end -->."""
    text = open(storage_md, encoding="utf-8").read()
    tables = re.findall(r"<!-- integer-vectors:begin -->(.*?)<!-- integer-vectors:end -->",
                        text, re.S)
    if len(tables) != 1:
        raise SystemExit("STORAGE.md has %d integer-vectors tables, not one" % len(tables))
    rows = []
    for line in tables[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not re.fullmatch(r"`[0-9a-f]{16}`", cells[3]):
            continue
        expr, v, canon, lo, hi = (c.strip("`") for c in cells)
        rows.append((expr, int(v.replace("\u2212", "-")), canon, lo, hi))
    if not rows:
        raise SystemExit("the integer-vectors table of STORAGE.md has no rows")
    if len({r[0] for r in rows}) != len(rows):
        raise SystemExit("STORAGE.md's integer-vectors table gives an element twice")
    return rows


def empty_filter(variant, bits, k, scheme):
    """SQL for an empty filter of this hash scheme: scheme 2 as the
    extension creates it, scheme 1 with its header byte set (as releases
    1.0 and 1.1 created it)."""
    f = "bloomfilter_create_bits(%d, %d, '%s')" % (bits, k, variant)
    if scheme == reader.HASH_EQUALITY:
        return f
    return "set_byte(%s::bytea, 6, %d)::bloomfilter" % (f, scheme)


# ---- vectors-sql -----------------------------------------------------------

def cmd_vectors_sql(storage_md, workdir):
    rows = storage_vectors(storage_md)
    values = []
    for i, (expr, _hex, _lo, _hi, schemes) in enumerate(rows):
        for scheme in schemes:
            for variant, bits, k in VECTOR_FILTERS:
                values.append("(%d, %d, '%s', encode((%s || %s)::bytea, 'hex'))"
                              % (i, scheme, variant, empty_filter(variant, bits, k, scheme),
                                 expr))
    ints = []
    for i, (expr, _v, _hex, _lo, _hi) in enumerate(integer_vectors(storage_md)):
        for variant, bits, k in VECTOR_FILTERS:
            ints.append("(%d, '%s', encode((%s || %s)::bytea, 'hex'))"
                        % (i, variant, empty_filter(variant, bits, k, reader.HASH_EQUALITY),
                           expr))
    with open(os.path.join(workdir, "vectors.sql"), "w", encoding="utf-8") as fh:
        fh.write(VECTOR_TYPES)
        fh.write("CREATE TABLE vectors AS SELECT * FROM (VALUES\n%s\n) v(i, scheme, variant, hex);\n"
                 % ",\n".join(values))
        fh.write("\\copy vectors TO '%s' WITH (FORMAT csv)\n"
                 % os.path.join(workdir, "vectors.csv"))
        fh.write("CREATE TABLE int_vectors AS SELECT * FROM (VALUES\n%s\n) v(i, variant, hex);\n"
                 % ",\n".join(ints))
        fh.write("\\copy int_vectors TO '%s' WITH (FORMAT csv)\n"
                 % os.path.join(workdir, "int_vectors.csv"))


def storage_examples(storage_md):
    """(query, {offset: byte}, complete) for each worked example of sections
    10 to 13: an sql block followed by a hex dump."""
    text = open(storage_md, encoding="utf-8").read()
    text = text[text.index("## 10. Worked examples"):]
    out = []
    for m in re.finditer(r"```sql\n(.*?)```\s*```\n(.*?)```", text, re.S):
        query = re.sub(r"--[^\n]*", "", m.group(1)).strip().rstrip(";")
        dump = {}
        complete = True
        for line in m.group(2).splitlines():
            d = re.fullmatch(r"([0-9a-f]{4})  ((?:[0-9a-f]{2} ?)+)", line.strip())
            if not d:
                complete = False        # an elided part
                continue
            for j, byte in enumerate(d.group(2).split()):
                dump[int(d.group(1), 16) + j] = int(byte, 16)
        out.append((query, dump, complete))
    if not out:
        raise SystemExit("STORAGE.md has no worked examples")
    return out


def scheme1_query(query):
    """The example's query with its empty filter made a scheme-1 one (byte 6
    set to 1, as releases 1.0 and 1.1 made them): the first
    bloomfilter_create...(...) call wrapped in set_byte."""
    start = query.index("bloomfilter_create")
    depth = 0
    for end in range(query.index("(", start), len(query)):
        depth += {"(": 1, ")": -1}.get(query[end], 0)
        if depth == 0:
            break
    return "%sset_byte(%s::bytea, 6, %d)::bloomfilter%s" % (
        query[:start], query[start:end + 1], reader.HASH_XXH3_128, query[end + 1:])


def cmd_examples_sql(storage_md, workdir):
    rows = []
    for i, (q, _d, _c) in enumerate(storage_examples(storage_md)):
        q = " ".join(q.split())
        rows.append("SELECT %d AS i, (%s) AS hex, (%s) AS hex1" % (i, q, scheme1_query(q)))
    with open(os.path.join(workdir, "examples.sql"), "w", encoding="utf-8") as fh:
        fh.write("CREATE TABLE examples AS\n%s;\n" % "\nUNION ALL ".join(rows))
        fh.write("\\copy examples TO '%s' WITH (FORMAT csv)\n"
                 % os.path.join(workdir, "examples.csv"))


# ---- mutations -------------------------------------------------------------

def mutations(base):
    """Hostile and harmless variants of one valid filter, labelled."""
    out = []
    hdr = bytearray(base[:64])
    payload = base[64:]

    def with_header(label, h, p=payload):
        out.append((label, bytes(h) + bytes(p)))

    for off in range(64):
        for x in (0x01, 0x80, 0xFF):
            h = bytearray(hdr)
            h[off] ^= x
            with_header("byte %d ^ %02x" % (off, x), h)

    def put(fmt, off, value):
        h = bytearray(hdr)
        struct.pack_into(fmt, h, off, value)
        return h

    for v in (0, 2, 255):
        with_header("version %d" % v, put("<B", 4, v))
    for v in (0, 1, 2, 3, 255):
        with_header("variant %d" % v, put("<B", 5, v))
    for v in (0, 1, 2, 3, 255):
        with_header("hash scheme %d" % v, put("<B", 6, v))
    for v in (0, 1, 64, 65, 0xFFFFFFFF):
        with_header("hashes %d" % v, put("<I", 8, v))
    for v in (1, 1 << 31):
        with_header("reserved %d" % v, put("<I", 12, v))
    for v in (0, 1, reader.MAX_BITS, reader.MAX_BITS + 1, MASK64):
        with_header("bits %d" % v, put("<Q", 24, v))
    for v in (0, MASK64):
        with_header("items %d" % v, put("<Q", 32, v))
        with_header("expected_items %d" % v, put("<Q", 40, v))
    for v in (0.0, -0.0, 0.5, 1e-300, 5e-324, 1.0, -0.01, 2.0,
              float("inf"), float("-inf"), float("nan")):
        with_header("target_fpr %r" % v, put("<d", 48, v))
    for v in (0, len(payload) - 8, len(payload) + 8, MASK64):
        with_header("payload_bytes %d" % v, put("<Q", 56, v))
    # a classic bit count that is not a multiple of 64, payload unchanged
    bits = struct.unpack_from("<Q", hdr, 24)[0]
    with_header("bits - 1", put("<Q", 24, bits - 1))
    with_header("bits + 512", put("<Q", 24, bits + 512))
    for n in (0, 1, 63, 64, len(base) - 1):
        out.append(("truncated to %d" % n, base[:n]))
    for n in (1, 8):
        out.append(("%d trailing bytes" % n, base + bytes(n)))
    # each bit past m in the last payload word
    variant = hdr[5]
    if variant == reader.VARIANT_CLASSIC:
        for i in range(bits, len(payload) * 8):
            p = bytearray(payload)
            p[i >> 3] |= 1 << (i & 7)
            with_header("padding bit %d" % i, hdr, p)
        p = bytearray(payload)
        p[(bits - 1) >> 3] |= 1 << ((bits - 1) & 7)
        with_header("last usable bit %d" % (bits - 1), hdr, p)
    else:
        p = bytearray(payload)
        p[-1] |= 0x80
        with_header("last payload bit", hdr, p)
    return out


def cmd_mutations(workdir):
    rows = read_csv(os.path.join(workdir, "bases.csv"))
    with open(os.path.join(workdir, "mutations.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        for name, hexdata in rows:
            for label, data in mutations(bytes.fromhex(hexdata)):
                w.writerow(["%s: %s" % (name, label), data.hex()])


# ---- check -----------------------------------------------------------------

class Report:
    def __init__(self):
        self.failures = []
        self.info_checked = 0

    def fail(self, msg):
        self.failures.append(msg)

    def check(self, cond, msg):
        if not cond:
            self.fail(msg)
        return cond


def check_headers(workdir, rep):
    """Header fields parsed by the reader against what SQL says."""
    filters = {}
    rows = read_csv(os.path.join(workdir, "filters.csv"))
    for (name, elem_type, variant, how, n, p, bits_req, hashes_req, seed,
         n_added, hexdata, textform, octets, sql_bits, sql_hashes, scheme,
         sql_scheme, info) in rows:
        data = bytes.fromhex(hexdata)
        try:
            f = reader.Filter.from_bytes(data)
        except reader.FormatError as e:
            rep.fail("%s: the reader rejects the extension's filter: rule %s: %s"
                     % (name, e.rule, e))
            continue
        filters[name] = f
        c = rep.check
        c(f.variant_name == variant, "%s: variant %s, SQL built %s"
          % (name, f.variant_name, variant))
        c(f.seed == int(seed) & MASK64, "%s: seed %d, SQL seed %s"
          % (name, f.seed, seed))
        c(f.hash_scheme == int(scheme), "%s: hash scheme %d, SQL built %s"
          % (name, f.hash_scheme, scheme))
        c(sql_scheme == str(f.hash_scheme), "%s: hash scheme %d, bloomfilter_hash_scheme says %s"
          % (name, f.hash_scheme, sql_scheme))
        if n_added:
            c(f.items == int(n_added), "%s: items %d, SQL added %s"
              % (name, f.items, n_added))
        c(f.total_bytes == int(octets) == len(data),
          "%s: total %d bytes, octet_length %s" % (name, f.total_bytes, octets))
        if how == "bits":
            want_bits = int(bits_req)
            if variant == "blocked":
                want_bits = (want_bits + 511) // 512 * 512
            c(f.bits == want_bits, "%s: bits %d, requested %s (expected %d)"
              % (name, f.bits, bits_req, want_bits))
            c(f.hashes == int(hashes_req), "%s: hashes %d, requested %s"
              % (name, f.hashes, hashes_req))
            c(f.expected_items == 0 and f.target_fpr == 0.0,
              "%s: expected_items %d, target_fpr %r, want 0 and 0.0"
              % (name, f.expected_items, f.target_fpr))
        else:
            c(f.bits == int(sql_bits),
              "%s: bits %d, bloomfilter_optimal_bits says %s"
              % (name, f.bits, sql_bits))
            if sql_hashes:
                c(f.hashes == int(sql_hashes),
                  "%s: hashes %d, bloomfilter_optimal_hashes says %s"
                  % (name, f.hashes, sql_hashes))
            c(f.expected_items == int(n), "%s: expected_items %d, SQL n %s"
              % (name, f.expected_items, n))
            c(f.target_fpr == float(p), "%s: target_fpr %r, SQL p %s"
              % (name, f.target_fpr, p))
        try:
            same = reader.Filter.from_text(textform).data == data
        except reader.FormatError:
            same = False
        c(same, "%s: the text form does not decode to the bytea bytes" % name)
        c(textform.startswith("~") == name.endswith("/sparse"),
          "%s: a text form %s..., sparse only for the /sparse cases" % (name, textform[:8]))
        if info:
            info = json.loads(info)
            rep.info_checked += 1
            for key, want in (("bits", f.bits), ("hashes", f.hashes),
                              ("items_added", f.items), ("variant", f.variant_name)):
                if key in info:
                    c(info[key] == want, "%s: bloomfilter_info %s = %r, reader %r"
                      % (name, key, info[key], want))
            if "seed" in info:
                c(int(info["seed"]) & MASK64 == f.seed,
                  "%s: bloomfilter_info seed %r, reader %d"
                  % (name, info["seed"], f.seed))
    return filters


def check_probes(workdir, filters, rep):
    """Membership: every member found (and every value = calls equal to
    one: role 'equal'), every answer equal to SQL's @>."""
    stats = {"members": 0, "strangers": 0, "stranger_positives": 0}
    by_case = {}
    mismatches = []
    path = os.path.join(workdir, "probes.csv")
    with open(path, newline="", encoding="utf-8") as fh:
        for name, role, probe_type, value, sql_answer in csv.reader(fh):
            f = filters.get(name)
            if f is None:
                continue
            sql = sql_answer == "t"
            mine = f.contains_hash(*probe_hash(probe_type, value, f))
            case = by_case.setdefault(name, [0, 0, 0, 0])
            if role in ("member", "equal"):
                stats["members"] += 1
                case[0] += 1
                if role == "equal":
                    case[3] += 1
                if not mine or not sql:
                    mismatches.append("%s: %s %s %r: reader %s, SQL %s"
                                      % (name, role, probe_type, value, mine, sql))
            else:
                stats["strangers"] += 1
                case[1] += 1
                if sql:
                    stats["stranger_positives"] += 1
                    case[2] += 1
                if mine != sql:
                    mismatches.append("%s: stranger %s %r: reader %s, SQL %s"
                                      % (name, probe_type, value, mine, sql))
    for m in mismatches[:20]:
        rep.fail(m)
    if len(mismatches) > 20:
        rep.fail("... and %d more membership mismatches" % (len(mismatches) - 20))
    rep.check(set(by_case) == set(filters),
              "probes missing for %s" % sorted(set(filters) - set(by_case)))
    # a test that cannot fail is not a test: the strangers must include
    # false positives, so that "equal to SQL" is more than "both false"
    rep.check(stats["stranger_positives"] >= 1000,
              "only %d strangers answered true in SQL; the crowded cases should give thousands"
              % stats["stranger_positives"])
    for name, (mem, stra, pos, equal) in sorted(by_case.items()):
        rep.check(mem > 0 and stra > 0, "%s: %d members, %d strangers probed"
                  % (name, mem, stra))
        if name.split("/")[0] in SCHEME2_TYPES:
            rep.check(equal > 0, "%s: no values equal to members probed" % name)
            stats["equal"] = stats.get("equal", 0) + equal
    stats["cases"] = len(by_case)
    return stats


def check_vectors(storage_md, workdir, rep):
    """STORAGE.md's canonical-bytes tables against the extension, for each
    hash scheme a table is for, and the rows the reader composes (containers
    from their parts, scheme 2's forms) against the reader."""
    rows = storage_vectors(storage_md)
    table = {}
    for expr, canon_hex, _lo, _hi, schemes in rows:
        for s in schemes:
            table[(expr, s)] = canon_hex
    for expr in COMPOSED_VECTORS:
        for s in SCHEMES:
            rep.check((expr, s) in table,
                      "STORAGE.md's canonical-vectors tables have no row for %s under scheme %d"
                      % (expr, s))
    for expr in SCHEME2_VECTORS:
        rep.check((expr, reader.HASH_EQUALITY) in table,
                  "STORAGE.md's canonical-vectors tables have no row for %s under scheme 2" % expr)
    ints = integer_vectors(storage_md)
    int_exprs = {r[0] for r in ints}
    rep.check(int_exprs == set(INTEGER_VECTORS),
              "STORAGE.md's integer-vectors table has %s, the reader knows %s"
              % (sorted(int_exprs - set(INTEGER_VECTORS)), sorted(set(INTEGER_VECTORS) - int_exprs)))
    for expr in int_exprs:
        rep.check((expr, reader.HASH_EQUALITY) not in table,
                  "STORAGE.md gives the integer element %s scheme-2 bytes to hash" % expr)
    ncomposed = 0
    for (expr, s), canon_hex in sorted(table.items()):
        # an element of scheme 1's table only has its scheme-2 form in 10.8 or 10.9
        if s == reader.HASH_XXH3_128 and (expr, reader.HASH_EQUALITY) not in table:
            rep.check(expr in int_exprs,
                      "STORAGE.md vector %s: scheme 1 only, and no scheme-2 row" % expr)
        mine = composed(expr, s)
        if mine is None:
            # every scheme-2 row that differs from scheme 1 has a rule here
            rep.check(s == reader.HASH_XXH3_128 or (expr, reader.HASH_XXH3_128) in table,
                      "STORAGE.md vector %s (scheme 2 only): the reader has no rule for it" % expr)
            continue
        ncomposed += 1
        rep.check(canon_hex == mine.hex(),
                  "STORAGE.md vector %s (scheme %d): the table says %s, the reader composes %s"
                  % (expr, s, canon_hex, mine.hex()))
    got = {}
    for i, scheme, variant, hexdata in read_csv(os.path.join(workdir, "vectors.csv")):
        got[(int(i), int(scheme), variant)] = reader.Filter.from_hex(hexdata)
    nchecked = 0
    for i, (expr, canon_hex, lo_hex, hi_hex, schemes) in enumerate(rows):
        data = bytes.fromhex(canon_hex)
        lo, hi = reader.element_hash(data, 0)
        rep.check((lo, hi) == (int(lo_hex, 16), int(hi_hex, 16)),
                  "STORAGE.md vector %s: hash of %s is lo %016x hi %016x, the table says %s %s"
                  % (expr, canon_hex or "(empty)", lo, hi, lo_hex, hi_hex))
        for scheme in schemes:
            for variant, _bits, _k in VECTOR_FILTERS:
                f = got.get((i, scheme, variant))
                if not rep.check(f is not None, "vector %s: no %s filter of scheme %d exported"
                                 % (expr, variant, scheme)):
                    continue
                rep.check(f.hash_scheme == scheme,
                          "vector %s: the %s filter says hash scheme %d, not %d"
                          % (expr, variant, f.hash_scheme, scheme))
                h = reader.element_hash(data, f.seed)
                want = set(f.positions(*h))
                have = {i for i in range(f.bits) if f.bit(i)}
                nchecked += 1
                rep.check(have == want,
                          "STORAGE.md vector %s (%s, scheme %d): the extension set bits %s, "
                          "the bytes %s give %s"
                          % (expr, variant, scheme, sorted(have)[:8], canon_hex or "(empty)",
                             sorted(want)[:8]))
    # scheme 2's integers: the value, its bytes in a container and its hash by
    # section 5.3, and the bits the extension sets for it
    got = {}
    for i, variant, hexdata in read_csv(os.path.join(workdir, "int_vectors.csv")):
        got[(int(i), variant)] = reader.Filter.from_hex(hexdata)
    for i, (expr, v, canon_hex, lo_hex, hi_hex) in enumerate(ints):
        if expr in INTEGER_VECTORS:
            rep.check(INTEGER_VECTORS[expr]() == v,
                      "STORAGE.md integer vector %s: the table says %d, the reader %r"
                      % (expr, v, INTEGER_VECTORS[expr]()))
        rep.check(canon_hex == reader.canonical_int(v).hex(),
                  "STORAGE.md integer vector %s: bytes %s, the reader's %s"
                  % (expr, canon_hex, reader.canonical_int(v).hex()))
        lo, hi = reader.integer_hash(v, 0)
        rep.check((lo, hi) == (int(lo_hex, 16), int(hi_hex, 16)),
                  "STORAGE.md integer vector %s: the integer hash of %d is lo %016x hi %016x, "
                  "the table says %s %s" % (expr, v, lo, hi, lo_hex, hi_hex))
        # not XXH3 of its bytes: a reader that hashed them would miss the element
        rep.check((lo, hi) != reader.element_hash(reader.canonical_int(v), 0),
                  "STORAGE.md integer vector %s: hashes as its bytes" % expr)
        for variant, _bits, _k in VECTOR_FILTERS:
            f = got.get((i, variant))
            if not rep.check(f is not None, "integer vector %s: no %s filter exported"
                             % (expr, variant)):
                continue
            rep.check(f.hash_scheme == reader.HASH_EQUALITY,
                      "integer vector %s: the %s filter says hash scheme %d"
                      % (expr, variant, f.hash_scheme))
            want = set(f.positions(*reader.integer_hash(v, f.seed)))
            have = {b for b in range(f.bits) if f.bit(b)}
            nchecked += 1
            rep.check(have == want,
                      "STORAGE.md integer vector %s (%s): the extension set bits %s, the value %d "
                      "gives %s" % (expr, variant, sorted(have)[:8], v, sorted(want)[:8]))
    return len(rows) + len(ints), nchecked, ncomposed


# An element a worked example's query adds: an operand of || (text or an
# integer of any width) or an integer of an ARRAY[...] given to
# bloomfilter_add_all
_EXAMPLE_TEXT = re.compile(r"'((?:[^']|'')*)'::text")
_EXAMPLE_INT = re.compile(r"\(?(-?[0-9]+)\)?(?:::(?:smallint|integer|bigint))?(?![\w.])")


def example_elements(query):
    """The elements a worked example's query adds, in order, as ('text', s)
    or ('int', n); None when an operand is anything else"""
    out = []
    for m in re.finditer(r"\|\|\s*", query):
        rest = query[m.end():]
        t = _EXAMPLE_TEXT.match(rest)
        n = _EXAMPLE_INT.match(rest)
        if t:
            out.append(("text", t.group(1).replace("''", "'")))
        elif n:
            out.append(("int", int(n.group(1))))
        else:
            return None
    for m in re.finditer(r"bloomfilter_add_all\(.*,\s*ARRAY\[([^\]]*)\]\)", query, re.S):
        for item in m.group(1).split(","):
            n = _EXAMPLE_INT.fullmatch(item.strip())
            if not n:
                return None
            out.append(("int", int(n.group(1))))
    return out


def element_hash_by(kind, value, f):
    """(lo, hi) of an example's element for filter f, by f's hash scheme"""
    if kind == "int":
        return reader.int_hash(value, f.seed, f.hash_scheme)
    return reader.element_hash(reader.canonical_text(value), f.seed)


def check_examples(storage_md, workdir, rep):
    """The hex dumps of STORAGE.md's worked examples against the extension;
    each example built as a scheme-1 filter too: the same bytes but byte 6
    where its elements are text alone, other bits where it holds integers,
    and for the blocked and classic variants exactly the bits the reader
    derives from the elements by each build's scheme.  The text forms
    STORAGE.md gives are the base64 of one of the examples."""
    examples = storage_examples(storage_md)
    got = {}
    for i, h, h1 in read_csv(os.path.join(workdir, "examples.csv")):
        got[int(i)] = bytes.fromhex(h), bytes.fromhex(h1)
    nread = 0
    for i, (query, dump, complete) in enumerate(examples):
        data, data1 = got.get(i, (None, None))
        if not rep.check(data is not None, "example %d: no output" % (i + 1)):
            continue
        what = "STORAGE.md example %d (%s)" % (i + 1, query[:60])
        elements = example_elements(query)
        if not rep.check(elements is not None, "%s: the test cannot tell its elements" % what):
            continue
        rep.check(data[6] == reader.HASH_EQUALITY and data1[6] == reader.HASH_XXH3_128,
                  "%s: hash schemes %d and %d, not 2 and 1" % (what, data[6], data1[6]))
        if all(kind == "text" for kind, _ in elements):
            rep.check(len(data1) == len(data) and data1[:6] + data1[7:] == data[:6] + data[7:],
                      "%s: built as a scheme-1 filter, it differs in more than byte 6" % what)
        else:
            rep.check(data1[:6] + data1[7:] != data[:6] + data[7:],
                      "%s: built as a scheme-1 filter, its integers set the same bits" % what)
        if data[5] in reader.VARIANT_NAMES:
            for build in (data, data1):
                f = reader.Filter.from_bytes(build)
                want = set()
                for kind, value in elements:
                    want.update(f.positions(*element_hash_by(kind, value, f)))
                have = {b for b in range(f.bits) if f.bit(b)}
                nread += 1
                rep.check(have == want,
                          "%s, scheme %d: the extension set bits %s, the reader derives %s"
                          % (what, f.hash_scheme, sorted(have - want)[:8],
                             sorted(want - have)[:8]))
        wrong = [off for off, b in sorted(dump.items())
                 if off >= len(data) or data[off] != b]
        rep.check(not wrong, "%s: the dump differs from the extension at offsets %s"
                  % (what, ["0x%x" % o for o in wrong[:8]]))
        if complete:
            rep.check(len(dump) == len(data),
                      "STORAGE.md example %d: the dump shows %d bytes, the extension wrote %d"
                      % (i + 1, len(dump), len(data)))
        else:
            rep.check(not any(data[len(dump):]),
                      "STORAGE.md example %d: the elided bytes are not all zero" % (i + 1))
    text = open(storage_md, encoding="utf-8").read()
    forms = re.findall(r"`(QkxNRg[A-Za-z0-9+/]*={0,2})`", text)
    built = {d for d, _ in got.values()}
    for form in forms:
        rep.check(base64.b64decode(form) in built,
                  "STORAGE.md's text form %s... is no worked example's base64" % form[:24])
    rep.check(len(forms) >= 2, "STORAGE.md gives %d text forms, expected 2 or more" % len(forms))
    sparse = re.findall(r"`(~QkxNRg[A-Za-z0-9+/]*={0,2})`", text)
    for form in sparse:
        try:
            data = reader.decode_text(form)
        except reader.FormatError as e:
            data = None
            rep.fail("STORAGE.md's sparse text form %s... does not decode: %s" % (form[:24], e))
        rep.check(data is None or data in built,
                  "STORAGE.md's sparse text form %s... is no worked example's" % form[:24])
    rep.check(len(sparse) >= 1, "STORAGE.md gives no sparse text form")
    return len(examples), nread, len(forms) + len(sparse)


def check_texts(workdir, rep):
    """The text forms of filters of every variant, sparse and base64, decode
    to their bytes by STORAGE.md section 15 (the reader decodes the text of
    any variant, though it reads only two)."""
    n = nsparse = 0
    for name, textform, hexdata in read_csv(os.path.join(workdir, "texts.csv")):
        n += 1
        nsparse += textform.startswith("~")
        try:
            same = reader.decode_text(textform) == bytes.fromhex(hexdata)
        except reader.FormatError as e:
            rep.fail("%s: the text form does not decode: %s" % (name, e))
            continue
        rep.check(same, "%s: the text form decodes to other bytes than f::bytea" % name)
    rep.check(nsparse >= 5 and n - nsparse >= 5,
              "%d text forms, %d of them sparse: expected some of each" % (n, nsparse))
    return n, nsparse


def check_validation(workdir, rep):
    """The reader and the extension accept and reject the same bytes."""
    sql = {}
    for label, verdict in read_csv(os.path.join(workdir, "validation.csv")):
        sql[label] = verdict
    n = agree_reject = 0
    for label, hexdata in read_csv(os.path.join(workdir, "mutations.csv")):
        data = bytes.fromhex(hexdata)
        if len(data) > 5 and data[5] in reader.OTHER_VARIANTS:
            continue            # a variant this reader does not implement
        n += 1
        try:
            reader.Filter.from_bytes(data)
            mine = "ok"
        except reader.FormatError as e:
            mine = RULE_MESSAGES[e.rule]
        theirs = sql.get(label)
        if theirs != mine:
            rep.fail("validation of %s: reader %r, extension %r" % (label, mine, theirs))
        elif mine != "ok":
            agree_reject += 1
    rep.check(agree_reject >= 100, "only %d hostile values were rejected" % agree_reject)
    return n, agree_reject


def cmd_check(storage_md, workdir):
    rep = Report()
    filters = check_headers(workdir, rep)
    stats = check_probes(workdir, filters, rep)
    nvec, nvecf, ncomp = check_vectors(storage_md, workdir, rep)
    nex, nread, nforms = check_examples(storage_md, workdir, rep)
    nmut, nrej = check_validation(workdir, rep)
    ntext, nsparse = check_texts(workdir, rep)
    print("  headers:    %d filters parsed, fields checked against SQL (bloomfilter_info: %d)"
          % (len(filters), rep.info_checked))
    print("  membership: %d cases, %d members (all must be found; %d of them values equal to "
          "members, written otherwise), %d strangers (%d answered true by SQL), reader == SQL "
          "required for each"
          % (stats["cases"], stats["members"], stats.get("equal", 0), stats["strangers"],
             stats["stranger_positives"]))
    print("  vectors:    %d canonical-bytes and integer rows of STORAGE.md, %d filters of their "
          "schemes (%d rows composed by the reader)" % (nvec, nvecf, ncomp))
    print("  examples:   %d worked-example dumps of STORAGE.md, each built by both schemes (%d "
          "builds read bit for bit); %d text forms" % (nex, nread, nforms))
    print("  validation: %d crafted values, %d rejected by both with the same rule"
          % (nmut, nrej))
    print("  text forms: %d filters of every variant, %d of them sparse, decoded to their bytes"
          % (ntext, nsparse))
    for f in rep.failures:
        print("  MISMATCH " + f)
    return 1 if rep.failures else 0


def cmd_composed_rows(scheme):
    """Print the rows of the canonical-vectors tables that the reader
    composes by hash scheme 'scheme' (markdown)."""
    for expr in list(COMPOSED_VECTORS) + list(SCHEME2_VECTORS):
        data = composed(expr, scheme)
        if data is None:
            continue
        lo, hi = reader.element_hash(data, 0)
        print("| `%s` | `%s` | `%016x` | `%016x` |" % (expr, data.hex(), lo, hi))


def cmd_integer_rows():
    """Print the rows of the integer-vectors table: scheme 2's integer
    elements, hashed by section 5.3 (markdown)."""
    for expr, value in INTEGER_VECTORS.items():
        v = value()
        lo, hi = reader.integer_hash(v, 0)
        print("| `%s` | %d | `%s` | `%016x` | `%016x` |"
              % (expr, v, reader.canonical_int(v).hex(), lo, hi))


def main(argv):
    if len(argv) >= 3 and argv[1] == "composed-rows":
        return cmd_composed_rows(int(argv[2])) or 0
    if len(argv) >= 2 and argv[1] == "integer-rows":
        return cmd_integer_rows() or 0
    if len(argv) >= 4 and argv[1] == "vectors-sql":
        return cmd_vectors_sql(argv[2], argv[3]) or 0
    if len(argv) >= 4 and argv[1] == "examples-sql":
        return cmd_examples_sql(argv[2], argv[3]) or 0
    if len(argv) >= 3 and argv[1] == "mutations":
        return cmd_mutations(argv[2]) or 0
    if len(argv) >= 4 and argv[1] == "check":
        return cmd_check(argv[2], argv[3])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
