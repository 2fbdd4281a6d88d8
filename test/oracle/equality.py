#!/usr/bin/python3
"""Issue 25's property (run by test/cluster/element_equality.sh): a member is found under every
value that SQL calls equal to it, and only at the false-positive rate under values it does not.

1. Pairs.  For each shape (a type, or a pair of types SQL compares: int4 against numeric, cidr
   against inet, float4 against float8, ...) a seeded generator writes many pairs (a, b) of SQL
   expressions meant to be equal under SQL "=" with different binary forms: numeric scales and
   exponents (1.0, 1.00, 1e0), float -0 and NaNs of several bit patterns, interval units (1 day,
   24 hours; 1 mon, 30 days), jsonb numbers at every depth with keys in any order, char(n)
   padding, the cidr flag, and all of these inside arrays (1-D, 2-D, NULLs, lower bounds),
   composite values, anonymous records, ranges, multiranges and domains, and as TOASTed values.
   The pairs go into a table of their own; SQL decides which pairs are equal (a pair whose
   "a = b" is not true is left out and counted: the generator is not trusted), and a shape fails
   when fewer than 90 % of its pairs are kept, so that it cannot pass by testing nothing.  Then,
   in every variant, for every pair, from a filter holding a only:
       add/contains   bloomfilter_contains(bloomfilter_add(f, a), b)
       ||/@>          (f || a) @> b
       <@             b <@ (f || a)
       add_all        bloomfilter_add_all(f, ARRAY[a]) @> b
       contains_all   bloomfilter_contains_all(f || a, ARRAY[b])
       contains_any   bloomfilter_contains_any(f || a, ARRAY[b])
       remove         (counting, cuckoo) bloomfilter_remove(f || a, b) no longer holds a and
                      equals the empty filter
   (an ARRAY of array-typed elements is made through a domain over the array type, which
   hashes as its base type).  Then the aggregates, every variant's filter in one query (a forced
   parallel plan costs a worker start):
       agg, agg_node  one filter of all of a shape's a (expected_items the pair count, 1/1000)
                      under the aggregate scan and under the Aggregate node (agg_scan off)
       agg_par, agg_par_node          the same under a forced parallel plan
       agg_1arg, agg_2arg_par         bloomfilter_agg(a) and bloomfilter_agg(a, 0.001)
       agg_group, agg_group_par       one filter per pair (GROUP BY), serial and parallel
       prefetch, prefetch_par         the agg filters tested WHERE f @> b, where the
                                      prefetching scan takes the query (b a column of a kind
                                      it hashes itself; plain scans otherwise)
   Every b must be found.  A single false negative fails the run.  (The filters of all a can
   find a b whose binary twin is another pair's a; the per-pair paths cannot.)
2. Unequal values.  For each of several types, 2,000 members and 20,000 probes made from the
   members by the smallest changes that make them unequal (1.0 against 1.01, 1.5 against 15,
   k against k + 2^64 as numeric, 1 day against 1 day 1 microsecond, a span against the span
   plus 2^64 microseconds, 0.1::float4 against 0.1::float8, a jsonb number against the same
   digits as a string, 'ab' against 'ab ', a cidr against its neighbours); probes SQL calls
   equal to a member are dropped.  A filter of the members sized for 1 % must answer at most
   3 % of the probes: at 1 % the count of false positives among ~20,000 probes is about 200
   with a standard deviation of about 14, so 600 is some 28 deviations away and a correct
   filter never crosses it, while a canonical form that merged distinct values would make
   every probe of the merged kind a member, and crosses it as soon as it merges a fiftieth of
   the probes.
3. Nondeterministic collations (when the server has ICU): text, varchar and char(n) under a
   case-insensitive collation (columns, COLLATE in the expression, a domain, arrays, a
   composite type's column, a range type's collation), through the per-pair paths and the
   aggregate, serial and parallel, in every variant: each must find 'abc' in a filter of 'ABC'
   or raise 0A000 (feature not supported), never answer false or fail otherwise.

A lost connection or SQLSTATE XX000 anywhere fails the run.

Environment (all optional):
    EQ_SEED          seed of the run (default 1); each shape draws from "seed:shape"
    EQ_PAIRS         pairs generated per shape (default 60; the TOAST shapes make a quarter)
    EQ_ONLY          comma-separated shape names (as printed), or "collation", or "fpr" or
                     "fpr:<type>": run only those and print every failing pair
    EQ_MAX_EXAMPLES  failing pairs printed per shape (default 2)
Connects through the PG* variables.  Exit status 0 when every check holds, 1 otherwise.
"""
import decimal
import io
import ipaddress
import json
import math
import os
import random
import re
import struct
import sys
import time

import psycopg2

SEED = os.environ.get('EQ_SEED', '1')
NPAIRS = int(os.environ.get('EQ_PAIRS', '60'))
ONLY = {s.strip() for s in os.environ.get('EQ_ONLY', '').split(',') if s.strip()}
MAX_EXAMPLES = int(os.environ.get('EQ_MAX_EXAMPLES', '2'))
if ONLY:
    MAX_EXAMPLES = 10 ** 6

VARIANTS = ['blocked', 'classic', 'counting', 'scalable', 'cuckoo']
REMOVABLE = ('counting', 'cuckoo')
SCHEMA = 'eqprop'
KEEP_MIN = 0.9                 # share of generated pairs that SQL must call equal
FPR_MEMBERS, FPR_PROBES, FPR_TARGET, FPR_BOUND = 2000, 20000, 0.01, 0.03

D = decimal.Decimal
decimal.getcontext().prec = 300

PAR = ["parallel_setup_cost = 0", "parallel_tuple_cost = 0", "min_parallel_table_scan_size = 0",
       "max_parallel_workers_per_gather = 2", "parallel_leader_participation = on"]
FORCE_PARALLEL_GUC = 'force_parallel_mode'  # debug_parallel_query from PostgreSQL 16


class Crash(Exception):
    pass


class Failed(Exception):
    pass


def say(*a):
    print(*a, flush=True)


def q(s):
    """a SQL string literal"""
    return "'" + s.replace("'", "''") + "'"


def selected(name):
    return not ONLY or name in ONLY


# ---- values -----------------------------------------------------------------------------

INT64_EDGES = [2 ** 63 - 1, -2 ** 63, 2 ** 63, -2 ** 63 - 1, 2 ** 64, 2 ** 53 + 1, 10 ** 18,
               -10 ** 19, 2 ** 31, -2 ** 31 - 1, 32768]


def rand_decimal(r):
    k = r.random()
    if k < 0.08:
        return D(0)
    if k < 0.14:
        return D(r.choice(INT64_EDGES))
    if k < 0.3:
        return D(r.choice((1, 2, 5, 7, 10, 42, 100, 1000, 10000, 65536, 99999999))) * \
            r.choice((1, -1))
    nd = r.randint(1, 24)
    return D(r.randrange(10 ** (nd - 1), 10 ** nd)).scaleb(r.randint(-nd - 8, 10)) * \
        r.choice((1, -1))


def dec_exp(v):
    """the exponent of v's last significant digit"""
    return v.normalize().as_tuple().exponent if v != 0 else 0


def num_text(v, r, json_ok=False):
    """a random literal of the decimal v: trailing zeros, an exponent, a sign on zero, a '+'"""
    neg = v < 0 or (v == 0 and r.random() < 0.35)
    a = abs(v)
    scale = max(0, -dec_exp(a))
    z = r.choice((0, 0, 1, 2, 3, 6))
    if r.random() < 0.65:
        s = format(a, f'.{scale + z}f')
    else:
        e = r.randint(-6, 6)
        m = a.scaleb(-e)
        s = format(m, f'.{max(0, -dec_exp(m)) + z}f') + r.choice('eE') + \
            (str(e) if e < 0 or r.random() < 0.5 else '+' + str(e))
    if neg:
        return '-' + s
    if not json_ok and r.random() < 0.1:
        return '+' + s
    return s


def two(r, f):
    """two different results of f(r), if ten tries find them"""
    a = f(r)
    b = f(r)
    for _ in range(10):
        if b != a:
            break
        b = f(r)
    return a, b


def numeric_pair(r, v=None):
    if v is None:
        k = r.random()
        if k < 0.03:
            return "'NaN'::numeric", "'nan'::numeric"
        if k < 0.05:
            s = r.choice(('', '-'))
            return f"'{s}Infinity'::numeric", f"'{s}inf'::numeric"
        v = rand_decimal(r)
    a, b = two(r, lambda r: num_text(v, r))
    return f"{q(a)}::numeric", f"{q(b)}::numeric"


INT_BITS = {'int2': 15, 'int4': 31, 'int8': 63}


def rand_int(r, t):
    bits = INT_BITS[t]
    lo, hi = -2 ** bits, 2 ** bits - 1
    if r.random() < 0.2:
        return r.choice((0, 1, -1, lo, hi, lo + 1, hi - 1))
    return max(lo, min(hi, r.randint(-2 ** r.randint(0, bits), 2 ** r.randint(0, bits))))


def zero_forms(t):
    return [f"'0'::{t}", f"'-0'::{t}", f"'0.0'::{t}", f"'-0.0e3'::{t}", f"(-('0'::{t}))",
            f"('-0'::{t} + '0'::{t})", f"('-0'::{t} * '1'::{t})", f"'+0'::{t}"]


def nan_forms(t):
    f = [f"'NaN'::{t}", f"'nan'::{t}", f"(-('NaN'::{t}))", f"'-NaN'::{t}",
         f"('Infinity'::{t} - 'Infinity'::{t})", f"('0'::{t} * 'Infinity'::{t})",
         f"('NaN'::{t} + '1'::{t})", f"'nan(123)'::{t}", f"'-nan(7)'::{t}"]
    if t == 'float8':
        f += ["'NaN'::float4::float8", "(-('NaN'::float4))::float8", "'nan(99)'::float4::float8"]
    return f


def f32(x):
    """x rounded to float4, or None when it overflows"""
    try:
        return struct.unpack('<f', struct.pack('<f', x))[0]
    except OverflowError:
        return None


def rand_f32(r):
    """a finite float4 value (as a Python float, exact)"""
    while True:
        k = r.random()
        if k < 0.3:
            x = f32(float(num_text(rand_decimal(r), r)))
        elif k < 0.4:
            x = r.randrange(1, 2 ** 23) * 2.0 ** -149          # subnormal
        else:
            x = r.randrange(1, 2 ** 24) * 2.0 ** r.randint(-60, 60) * r.choice((1, -1))
            x = f32(x) if f32(x) == x else None
        if x is not None and math.isfinite(x):
            return x


def float_pair(r, t):
    k = r.random()
    if k < 0.4:
        return two(r, lambda r: r.choice(zero_forms(t)))
    if k < 0.85:
        return two(r, lambda r: r.choice(nan_forms(t)))
    x = rand_f32(r) if t == 'float4' else float(num_text(rand_decimal(r), r))
    if not math.isfinite(x):
        x = 1.5
    return f"'{x!r}'::{t}", f"'{x!r}'::{t}"


def float48_pair(r):
    """a float4 and a float8 of one value"""
    k = r.random()
    if k < 0.15:
        return r.choice(zero_forms('float4')), r.choice(zero_forms('float8'))
    if k < 0.3:
        return r.choice(nan_forms('float4')), r.choice(nan_forms('float8'))
    if k < 0.35:
        s = r.choice(('', '-'))
        return f"'{s}Infinity'::float4", f"'{s}inf'::float8"
    x = rand_f32(r)
    return f"'{x!r}'::float4", f"'{x!r}'::float8"


def interval_text(m, d, t):
    return f"{m} mons {d} days {t} microseconds"


def interval_pair(r):
    if r.random() < 0.4:
        k = r.choice((1, 1, 1, 2, 3, 7, 12, 100, -1, -2))
        n = abs(k)
        forms = [(f'{k} day', f'{24 * k} hours'), (f'{k} days', f'{1440 * k} minutes'),
                 (f'{k} days', f'{86400 * k} seconds'), (f'{k} mon', f'{30 * k} days'),
                 (f'{k} mons', f'{720 * k} hours'), (f'{k} year', f'{360 * k} days'),
                 (f'{k} mon -1 days', f'{30 * k - 1} days'), (f'P{n}M', f'P{30 * n}D'),
                 (f'P{n}D', f'PT{24 * n}H'), (f'{k} days 1 hour', f'{24 * k + 1} hours'),
                 (f'{k} weeks', f'{168 * k} hours'), (f'{k} hours', f'{3600 * k} seconds'),
                 (f'@ {n} mon ago', f'-{30 * n} days'), (f'{k} mon 1 day', f'{30 * k + 1} days')]
        a, b = r.choice(forms)
    else:
        m, d, t = r.randint(-40, 40), r.randint(-400, 400), r.randint(-10 ** 12, 10 ** 12)
        k, j = r.randint(-5, 5), r.randint(-50, 50)
        a = interval_text(m, d, t)
        b = interval_text(m - k, d + 30 * k - j, t + j * 86400 * 10 ** 6)
    if r.random() < 0.5:
        a, b = b, a
    return f"{q(a)}::interval", f"{q(b)}::interval"


# jsonb as a tree: ('num', Decimal), ('str', s), ('bool', b), ('null',), ('arr', [...]),
# ('obj', [(key, value), ...])
KEYS = ['a', 'b', 'c', 'id', 'n', 'é', 'x y', 'Z', 'k"q', '', 'aa']


def jtree(r, depth=0):
    k = r.random()
    if depth >= 3 or k < 0.4:
        s = r.random()
        if s < 0.75:
            return ('num', rand_decimal(r))
        if s < 0.85:
            return ('str', r.choice(['', 'x', '1.0', 'é']))
        if s < 0.93:
            return ('bool', r.random() < 0.5)
        return ('null',)
    if k < 0.7:
        return ('arr', [jtree(r, depth + 1) for _ in range(r.randint(0, 4))])
    return ('obj', [(key, jtree(r, depth + 1)) for key in r.sample(KEYS, r.randint(0, 4))])


def jnums(t, path=()):
    """paths to the number leaves of t"""
    if t[0] == 'num':
        return [path]
    if t[0] == 'arr':
        return [p for i, x in enumerate(t[1]) for p in jnums(x, path + (i,))]
    if t[0] == 'obj':
        return [p for i, (_, x) in enumerate(t[1]) for p in jnums(x, path + (i,))]
    return []


def jtree_num(r):
    for _ in range(50):
        t = jtree(r)
        if jnums(t):
            return t
    return ('num', rand_decimal(r))


def jtext(t, r):
    """a random rendering: number literals, key order, spaces, a duplicate key jsonb drops"""
    sp = lambda: r.choice(('', '', ' '))
    kind = t[0]
    if kind == 'num':
        return num_text(t[1], r, json_ok=True)
    if kind == 'str':
        return json.dumps(t[1], ensure_ascii=False)
    if kind == 'bool':
        return 'true' if t[1] else 'false'
    if kind == 'null':
        return 'null'
    if kind == 'arr':
        return '[' + ','.join(sp() + jtext(x, r) + sp() for x in t[1]) + ']'
    items = list(t[1])
    r.shuffle(items)
    parts = [json.dumps(k, ensure_ascii=False) + sp() + ':' + sp() + jtext(v, r) for k, v in items]
    if items and r.random() < 0.15:   # jsonb keeps the last of duplicate keys
        parts.insert(0, json.dumps(items[-1][0], ensure_ascii=False) + ': 0.5')
    return '{' + ','.join(parts) + '}'


def jsonb_pair(r):
    t = jtree_num(r)
    a, b = two(r, lambda r: jtext(t, r))
    return f"{q(a)}::jsonb", f"{q(b)}::jsonb"


def rand_net(r):
    """(text of a network with its host bits zero, prefix, family bits)"""
    if r.random() < 0.7:
        p = r.randint(0, 32)
        addr = r.getrandbits(32) & ~((1 << (32 - p)) - 1) & 0xffffffff
        return str(ipaddress.IPv4Address(addr)), p, 32
    p = r.randint(0, 128)
    addr = r.getrandbits(128) & ~((1 << (128 - p)) - 1) & (2 ** 128 - 1)
    return str(ipaddress.IPv6Address(addr)), p, 128


def net_pair(r, ta, tb):
    addr, p, bits = rand_net(r)
    ta_text = f"{addr}/{p}"
    tb_text = addr if p == bits and tb == 'inet' and r.random() < 0.5 else f"{addr}/{p}"
    return f"{q(ta_text)}::{ta}", f"{q(tb_text)}::{tb}"


def rand_str(r, alphabet='abcXYZ é-0', n=8):
    return ''.join(r.choice(alphabet) for _ in range(r.randint(0, n))).rstrip(' ')


def char_pair(r, ta, tb):
    s = rand_str(r)
    n = len(s)

    def side(t):
        if t == 'bpchar':
            if r.random() < 0.5:
                return f"{q(s)}::char({max(1, n) + r.randint(0, 3)})"
            return f"{q(s + ' ' * r.randint(0, 3))}::bpchar"
        if t == 'varchar':
            return f"{q(s)}::varchar"
        return f"{q(s)}::text"
    return side(ta), side(tb)


def citext_pair(r):
    s = rand_str(r, 'abcdefgXYZ -', 10) or 'x'
    return f"{q(s)}::citext", f"{q(s.swapcase())}::citext"


def array_pair(r, elem_pair, typ, elem_text=None):
    """an array of elem_pair's pairs: 1-D or 2-D, NULLs, lower bounds (where elem_text gives
    the elements' text forms for an array literal)"""
    if r.random() < 0.7:
        dims = [r.randint(0, 5)]
    else:
        dims = [r.randint(1, 3), r.randint(1, 3)]
    n = math.prod(dims)
    if n == 0:
        return f"'{{}}'::{typ}[]", f"'{{}}'::{typ}[]"
    nulls = [r.random() < 0.15 for _ in range(n)]
    if elem_text and r.random() < 0.3:
        lbs = [r.randint(-3, 3) for _ in dims]
        sides = []
        for _ in range(2):
            el = ['NULL' if nulls[i] else elem_text(r, i) for i in range(n)]
            if len(dims) == 2:
                body = '{' + ','.join('{' + ','.join(el[i * dims[1]:(i + 1) * dims[1]]) + '}'
                                      for i in range(dims[0])) + '}'
            else:
                body = '{' + ','.join(el) + '}'
            bounds = ''.join(f'[{lb}:{lb + d - 1}]' for lb, d in zip(lbs, dims))
            sides.append(f"{q(bounds + '=' + body)}::{typ}[]")
        return tuple(sides)
    pairs = [('NULL', 'NULL') if nulls[i] else elem_pair(r) for i in range(n)]
    out = []
    for side in (0, 1):
        el = [p[side] for p in pairs]
        if len(dims) == 2:
            body = ','.join('ARRAY[' + ','.join(el[i * dims[1]:(i + 1) * dims[1]]) + ']'
                            for i in range(dims[0]))
        else:
            body = ','.join(el)
        out.append(f"ARRAY[{body}]::{typ}[]")
    return tuple(out)


def numeric_array_pair(r):
    vals = {}

    def text(r, i):
        v = vals.setdefault(i, rand_decimal(r))
        return num_text(v, r)
    return array_pair(r, numeric_pair, 'numeric', text)


def comp_pair(r):
    """eqc (n numeric, i interval, f float8, a numeric[])"""
    parts = [numeric_pair(r), interval_pair(r), float_pair(r, 'float8'), numeric_array_pair(r)]
    parts = [('NULL', 'NULL') if r.random() < 0.1 else p for p in parts]
    return (f"ROW({', '.join(p[0] for p in parts)})::eqc",
            f"ROW({', '.join(p[1] for p in parts)})::eqc")


def record_pair(r):
    """stored as eqr (n numeric, i interval, f float8), tested as ROW(n, ROW(i, f))"""
    n, i, f = numeric_pair(r), interval_pair(r), float_pair(r, 'float8')
    return (f"ROW({n[0]}, {i[0]}, {f[0]})::eqr", f"ROW({n[1]}, {i[1]}, {f[1]})::eqr",
            f"ROW({n[0]}, ROW({i[0]}, {f[0]}))", f"ROW({n[1]}, ROW({i[1]}, {f[1]}))")


def record_int_numeric_pair(r):
    """stored as eqri (k int8, t text) and eqrn (k numeric, t text), tested as ROW(k, t): an
    integer against an integral numeric inside a record"""
    k = rand_int(r, 'int8')
    t = q(rand_str(r))
    n = f"{q(num_text(D(k), r))}::numeric"
    return (f"ROW('{k}'::int8, {t})::eqri", f"ROW({n}, {t})::eqrn",
            f"ROW('{k}'::int8, {t})", f"ROW({n}, {t})")


def numrange_pair(r):
    lo, hi = sorted((rand_decimal(r), rand_decimal(r)))
    if r.random() < 0.1:
        hi = lo
    bd = r.choice(('[)', '(]', '[]', '()'))
    no_lo, no_hi = r.random() < 0.1, r.random() < 0.1

    def side():
        a = 'NULL' if no_lo else f"{q(num_text(lo, r))}::numeric"
        b = 'NULL' if no_hi else f"{q(num_text(hi, r))}::numeric"
        return f"numrange({a}, {b}, '{bd}')"
    return two(r, lambda r: side())


def f8range_pair(r):
    """f8range (a range over float8): -0 and 0, NaNs, infinities as bounds"""
    k = r.random()
    lo = ('zero', None) if k < 0.6 else ('x', -r.randrange(1, 10 ** 6) / 64)
    k = r.random()
    hi = ('nan', None) if k < 0.4 else ('inf', None) if k < 0.5 else \
        ('x', r.randrange(1, 10 ** 6) / 64)
    bd = r.choice(('[)', '(]', '[]', '()'))

    def bound(b):
        if b[0] == 'zero':
            return r.choice(zero_forms('float8'))
        if b[0] == 'nan':
            return r.choice(nan_forms('float8'))
        if b[0] == 'inf':
            return "'Infinity'::float8"
        return f"'{b[1]!r}'::float8"
    return two(r, lambda r: f"f8range({bound(lo)}, {bound(hi)}, '{bd}')")


def nummultirange_pair(r):
    k = r.randint(0, 3)
    xs = sorted({rand_decimal(r) for _ in range(2 * k)})
    k = len(xs) // 2
    ranges = [[xs[2 * i], xs[2 * i + 1]] for i in range(k)]
    for i in range(1, k):
        if r.random() < 0.25:           # adjacent: the multirange merges them
            ranges[i][0] = ranges[i - 1][1]

    def side():
        return 'nummultirange(' + ', '.join(
            f"numrange({q(num_text(lo, r))}::numeric, {q(num_text(hi, r))}::numeric)"
            for lo, hi in ranges) + ')'
    return two(r, lambda r: side())


def big_jsonb_pair(r):
    """a few kB of jsonb: compressible (numbers under repeated keys) or not (random strings)"""
    vals = [rand_decimal(r) for _ in range(250)]
    junk = r.random() < 0.5
    strs = [''.join(r.choice('abcdefghijklmnopqrstuvwxyz0123456789') for _ in range(24))
            for _ in range(120)] if junk else []

    def side():
        parts = [f'"k{i}": {num_text(v, r, json_ok=True)}' for i, v in enumerate(vals)]
        parts += [f'"s{i}": "{s}"' for i, s in enumerate(strs)]
        r.shuffle(parts)
        return q('{' + ', '.join(parts) + '}') + '::jsonb'
    return side(), side()


def big_numeric_array_pair(r):
    if r.random() < 0.5:
        pool = [rand_decimal(r) for _ in range(4)]
        vals = [r.choice(pool) for _ in range(700)]
    else:
        vals = [rand_decimal(r) for _ in range(700)]
    nulls = {i for i in range(len(vals)) if r.random() < 0.02}

    def side():
        return q('{' + ','.join('NULL' if i in nulls else num_text(v, r)
                                for i, v in enumerate(vals)) + '}') + '::numeric[]'
    return side(), side()


# ---- shapes -----------------------------------------------------------------------------

class Shape:
    """pairs of types ta and tb: gen(r) gives (a, b) SQL expressions, or (stored a, stored b,
    a as tested, b as tested) when the tested value is made from the stored one (expr_a/b)"""

    def __init__(self, name, ta, tb, gen, wrap_a=None, wrap_b=None, expr_a='p.a', expr_b='p.b',
                 npairs=None, needs=None, toast=False):
        self.name, self.ta, self.tb, self.gen = name, ta, tb, gen
        self.wrap_a, self.wrap_b = wrap_a, wrap_b
        self.expr_a, self.expr_b = expr_a, expr_b
        self.npairs = npairs or NPAIRS
        self.needs, self.toast = needs, toast
        self.table = SCHEMA + '.s_' + re.sub(r'[^a-z0-9]+', '_', name)

    def arr(self, side):
        """ARRAY[...] of one element of this side (an array through its domain)"""
        e, w = (self.expr_a, self.wrap_a) if side == 'a' else (self.expr_b, self.wrap_b)
        return f"ARRAY[({e})::{w}]" if w else f"ARRAY[{e}]"


def int_pair(ta, tb):
    narrow = min((ta, tb), key=lambda t: INT_BITS[t])
    return lambda r: (lambda k: (f"'{k}'::{ta}", f"'{k}'::{tb}"))(rand_int(r, narrow))


def int_numeric(ti, first_int):
    def gen(r):
        k = rand_int(r, ti)
        i, n = f"'{k}'::{ti}", f"{q(num_text(D(k), r))}::numeric"
        return (i, n) if first_int else (n, i)
    return gen


def dom(pair_gen, wrap_a=None, wrap_b=None):
    def gen(r):
        a, b = pair_gen(r)
        return (f"({a})::{wrap_a}" if wrap_a else a), (f"({b})::{wrap_b}" if wrap_b else b)
    return gen


SHAPES = [
    Shape('int2~int4', 'int2', 'int4', int_pair('int2', 'int4')),
    Shape('int4~int8', 'int4', 'int8', int_pair('int4', 'int8')),
    Shape('int8~int2', 'int8', 'int2', int_pair('int8', 'int2')),
    Shape('int2~numeric', 'int2', 'numeric', int_numeric('int2', True)),
    Shape('int4~numeric', 'int4', 'numeric', int_numeric('int4', True)),
    Shape('int8~numeric', 'int8', 'numeric', int_numeric('int8', True)),
    Shape('numeric~int2', 'numeric', 'int2', int_numeric('int2', False)),
    Shape('numeric~int4', 'numeric', 'int4', int_numeric('int4', False)),
    Shape('numeric~int8', 'numeric', 'int8', int_numeric('int8', False)),
    Shape('numeric', 'numeric', 'numeric', numeric_pair),
    Shape('dnum~numeric', 'dnum', 'numeric', dom(numeric_pair, 'dnum')),
    Shape('float8', 'float8', 'float8', lambda r: float_pair(r, 'float8')),
    Shape('float4', 'float4', 'float4', lambda r: float_pair(r, 'float4')),
    Shape('float4~float8', 'float4', 'float8', float48_pair),
    Shape('float8~float4', 'float8', 'float4', lambda r: float48_pair(r)[::-1]),
    Shape('interval', 'interval', 'interval', interval_pair),
    Shape('jsonb', 'jsonb', 'jsonb', jsonb_pair),
    Shape('cidr~inet', 'cidr', 'inet', lambda r: net_pair(r, 'cidr', 'inet')),
    Shape('inet~cidr', 'inet', 'cidr', lambda r: net_pair(r, 'inet', 'cidr')),
    Shape('bpchar', 'bpchar', 'bpchar', lambda r: char_pair(r, 'bpchar', 'bpchar')),
    Shape('text~bpchar', 'text', 'bpchar', lambda r: char_pair(r, 'text', 'bpchar')),
    Shape('bpchar~text', 'bpchar', 'text', lambda r: char_pair(r, 'bpchar', 'text')),
    Shape('varchar~bpchar', 'varchar', 'bpchar', lambda r: char_pair(r, 'varchar', 'bpchar')),
    Shape('citext', 'citext', 'citext', citext_pair, needs='citext'),
    Shape('numeric[]', 'numeric[]', 'numeric[]', numeric_array_pair,
          wrap_a='dnumarr', wrap_b='dnumarr'),
    Shape('float8[]', 'float8[]', 'float8[]',
          lambda r: array_pair(r, lambda r: float_pair(r, 'float8'), 'float8'),
          wrap_a='df8arr', wrap_b='df8arr'),
    Shape('interval[]', 'interval[]', 'interval[]',
          lambda r: array_pair(r, interval_pair, 'interval'), wrap_a='divarr', wrap_b='divarr'),
    Shape('jsonb[]', 'jsonb[]', 'jsonb[]', lambda r: array_pair(r, jsonb_pair, 'jsonb'),
          wrap_a='djbarr', wrap_b='djbarr'),
    Shape('dnumarr~numeric[]', 'dnumarr', 'numeric[]', dom(numeric_array_pair, 'dnumarr'),
          wrap_b='dnumarr'),
    Shape('composite', 'eqc', 'eqc', comp_pair),
    Shape('record', 'eqr', 'eqr', record_pair,
          expr_a='ROW((p.a).n, ROW((p.a).i, (p.a).f))',
          expr_b='ROW((p.b).n, ROW((p.b).i, (p.b).f))'),
    Shape('record int8~numeric', 'eqri', 'eqrn', record_int_numeric_pair,
          expr_a='ROW((p.a).k, (p.a).t)', expr_b='ROW((p.b).k, (p.b).t)'),
    Shape('numrange', 'numrange', 'numrange', numrange_pair),
    Shape('f8range', 'f8range', 'f8range', f8range_pair),
    Shape('nummultirange', 'nummultirange', 'nummultirange', nummultirange_pair),
    Shape('toast jsonb', 'jsonb', 'jsonb', big_jsonb_pair, npairs=max(4, NPAIRS // 4), toast=True),
    Shape('toast numeric[]', 'numeric[]', 'numeric[]', big_numeric_array_pair,
          wrap_a='dnumarr', wrap_b='dnumarr', npairs=max(4, NPAIRS // 4), toast=True),
]

SETUP = f"""
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP SCHEMA IF EXISTS {SCHEMA} CASCADE;
CREATE SCHEMA {SCHEMA};
SET search_path = {SCHEMA}, public;
CREATE DOMAIN dnum AS numeric;
CREATE DOMAIN dnumarr AS numeric[];
CREATE DOMAIN df8arr AS float8[];
CREATE DOMAIN divarr AS interval[];
CREATE DOMAIN djbarr AS jsonb[];
CREATE TYPE eqc AS (n numeric, i interval, f float8, a numeric[]);
CREATE TYPE eqr AS (n numeric, i interval, f float8);
CREATE TYPE eqc2 AS (n numeric, i interval);
CREATE TYPE eqri AS (k int8, t text);
CREATE TYPE eqrn AS (k numeric, t text);
CREATE TYPE f8range AS RANGE (subtype = float8);
CREATE TABLE eq_empty AS
    SELECT v AS variant, bloomfilter_create(10, 0.01, v) AS f
    FROM unnest(ARRAY{VARIANTS!r}) v;
"""

PAIR_PATHS = [
    ('add/contains', "bloomfilter_contains(bloomfilter_add(e.f, {A}), {B})"),
    ('||/@>', "(e.f || {A}) @> {B}"),
    ('<@', "{B} <@ (e.f || {A})"),
    ('add_all', "bloomfilter_add_all(e.f, {ARR_A}) @> {B}"),
    ('contains_all', "bloomfilter_contains_all(e.f || {A}, {ARR_B})"),
    ('contains_any', "bloomfilter_contains_any(e.f || {A}, {ARR_B})"),
    ('remove', "NOT (bloomfilter_remove(e.f || {A}, {B}) @> {A}) "
               "AND bloomfilter_remove(e.f || {A}, {B}) = e.f"),
]
# Aggregates, each query building the filters of every variant at once (a forced parallel plan
# costs a worker start).  A filter of all of a shape's a (expected_items the pair count, 1/1000):
#   (path, parallel plan forced, bloomfilter.agg_scan, the scalable aggregate it adds)
WHOLE_AGG = [
    ('agg', False, 'on', ('agg_1arg', "bloomfilter_agg({A})")),
    ('agg_node', False, 'off', None),
    ('agg_par', True, 'on', None),
    ('agg_par_node', True, 'off', ('agg_2arg_par', "bloomfilter_agg({A}, 0.001)")),
]
SIZED_AGG = "bloomfilter_agg({A}, {N}, 0.001, '{V}')"
# then a filter per pair (GROUP BY), and the 'agg' filters tested by the prefetching scan
# (WHERE f @> b, planned where b is a column of a kind the scan hashes itself)
OTHER_AGG = [('agg_group', False), ('agg_group_par', True), ('prefetch', False),
             ('prefetch_par', True)]
ALL_PATHS = [p[0] for p in PAIR_PATHS] + [p[0] for p in WHOLE_AGG] + \
    [p[3][0] for p in WHOLE_AGG if p[3]] + [p[0] for p in OTHER_AGG]


def path_applies(path, variant):
    return path != 'remove' or variant in REMOVABLE


# ---- the runner -------------------------------------------------------------------------

def is_lost(conn, e):
    return conn.closed != 0 or isinstance(e, (psycopg2.OperationalError, psycopg2.InterfaceError)) \
        and e.pgcode is None


def first_line(e):
    return ((e.pgerror or str(e)).strip().splitlines() or [''])[0]


class Runner:
    def __init__(self):
        global FORCE_PARALLEL_GUC
        self.conn = psycopg2.connect('')
        self.conn.autocommit = True
        self.cur = self.conn.cursor()
        if self.conn.server_version >= 160000:
            FORCE_PARALLEL_GUC = 'debug_parallel_query'
        self.failures = []          # lines of the final summary
        self.internal = []          # XX000 seen anywhere
        self.failed_paths = {}      # path: shapes with a false negative on it
        self.plans_checked = 0      # shapes whose aggregate and prefetch plans were looked at
        self.coverage = {'agg scan': 0, 'agg node': 0, 'parallel agg scan': 0,
                         'parallel agg node': 0, 'prefetch scan': 0, 'parallel prefetch scan': 0}

    # -- SQL helpers --
    def execute(self, sql):
        try:
            self.cur.execute(sql)
        except psycopg2.Error as e:
            if is_lost(self.conn, e):
                raise Crash(f"the server connection was lost (a crash?): {e}\nin: {sql[:600]}")
            if e.pgcode == 'XX000':
                self.internal.append(f"{first_line(e)}\nin: {sql[:600]}")
            raise

    def rows(self, sql):
        self.execute(sql)
        return self.cur.fetchall()

    def try_rows(self, sql):
        """(rows, None) or (None, (SQLSTATE, message))"""
        try:
            return self.rows(sql), None
        except psycopg2.Error as e:
            return None, (e.pgcode, first_line(e))

    def in_settings(self, settings, sql):
        """sql in a transaction with SET LOCAL settings; (rows, None) or (None, error)"""
        self.execute("BEGIN")
        try:
            for s in settings:
                self.execute(f"SET LOCAL {s}")
            return self.try_rows(sql)
        finally:
            self.execute("ROLLBACK")

    def par_settings(self, parallel, agg_scan='on', prefetch='off'):
        s = [f"bloomfilter.agg_scan = {agg_scan}", f"bloomfilter.prefetch_scan = {prefetch}",
             f"search_path = {SCHEMA}, public"]
        if parallel:
            s += PAR + [f"{FORCE_PARALLEL_GUC} = on"]
        else:
            s.append("max_parallel_workers_per_gather = 0")
        return s

    # -- set-up --
    def setup(self):
        self.execute(SETUP)
        self.has_citext = bool(self.rows(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'citext'"))
        if self.has_citext:
            self.execute("CREATE EXTENSION IF NOT EXISTS citext SCHEMA public")
        self.has_icu = bool(self.rows(
            "SELECT 1 FROM pg_collation WHERE collprovider = 'i' LIMIT 1"))

    # -- 1. pairs --
    def load_shape(self, sh):
        """makes the shape's table of the pairs SQL calls equal; returns the counts of pairs
        generated, invalid, unequal, kept, and kept with different binary forms"""
        r = random.Random(f"{SEED}:{sh.name}")
        pairs = []
        for _ in range(sh.npairs):
            g = sh.gen(r)
            pairs.append(g if len(g) == 4 else (g[0], g[1], g[0], g[1]))
        t = sh.table
        pad = 200 if sh.toast else 400
        self.execute(f"CREATE TABLE {t} (id int, a {sh.ta}, b {sh.tb}, a_src text, b_src text, "
                     f"pad text DEFAULT repeat('x', {pad}))")
        vals = [f"({i}, {a}, {b}, {q(sa)}, {q(sb)})" for i, (a, b, sa, sb) in enumerate(pairs)]
        invalid = 0
        try:
            self.execute(f"INSERT INTO {t} (id, a, b, a_src, b_src) VALUES " + ', '.join(vals))
        except psycopg2.Error:
            for v in vals:      # the generator made an invalid value: find it, leave it out
                try:
                    self.execute(f"INSERT INTO {t} (id, a, b, a_src, b_src) VALUES {v}")
                except psycopg2.Error as e:
                    invalid += 1
                    if invalid <= 3:
                        say(f"  note: {sh.name}: an invalid pair left out: {first_line(e)}: "
                            f"{v[:200]}")
        A = sh.expr_a
        B = sh.expr_b
        self.execute(f"DELETE FROM {t} p WHERE ({A} = {B}) IS NOT TRUE")
        unequal = self.cur.rowcount
        kept, differ = self.rows(
            f"SELECT count(*), count(*) FILTER (WHERE record_send(ROW({A})) <> "
            f"record_send(ROW({B}))) FROM {t} p")[0]
        self.execute(f"ANALYZE {t}")
        if sh.toast:
            comp, toast_bytes = self.rows(
                f"SELECT (SELECT count(*) FROM {t} WHERE pg_column_compression(a) IS NOT NULL), "
                f"pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = '{t}'::regclass")[0]
            if comp == 0 or toast_bytes == 0:
                raise Failed(f"{sh.name}: the values are not TOASTed as meant ({comp} compressed, "
                             f"{toast_bytes} bytes out of line)")
            say(f"  {sh.name}: {comp} of {kept} values compressed, {toast_bytes} bytes in TOAST")
        return len(pairs), invalid, unequal, kept, differ

    def run_shape(self, sh):
        gen, invalid, unequal, kept, differ = self.load_shape(sh)
        kept_ids = {i for (i,) in self.rows(f"SELECT id FROM {sh.table}")}
        counts = {p: [0, 0] for p in ALL_PATHS}      # path: [checked, failed]
        examples = []                                  # (path, variant, id)
        errors = []
        t = sh.table
        for v in VARIANTS:
            for path, expr in PAIR_PATHS:
                if not path_applies(path, v):
                    continue
                e = expr.format(A=sh.expr_a, B=sh.expr_b, ARR_A=sh.arr('a'), ARR_B=sh.arr('b'))
                res, err = self.try_rows(
                    f"SELECT p.id FROM {t} p, {SCHEMA}.eq_empty e "
                    f"WHERE e.variant = '{v}' AND ({e}) IS NOT TRUE ORDER BY p.id")
                counts[path][0] += kept
                if err:
                    counts[path][1] += kept
                    errors.append((path, v, err))
                    continue
                counts[path][1] += len(res)
                examples += [(path, v, i) for (i,) in res]
        if kept:
            for path, v, res, err in self.agg_paths(sh, kept_ids):
                counts[path][0] += kept
                if err:
                    counts[path][1] += kept
                    errors.append((path, v, err))
                    continue
                counts[path][1] += len(res)
                examples += [(path, v, i) for i in res]
        nfail = sum(c[1] for c in counts.values())
        nchecks = sum(c[0] for c in counts.values())
        head = f"{sh.name}: {kept} pairs equal in SQL"
        if sh.ta == sh.tb:
            head += f" ({differ} of them in different binary forms)"
        if unequal or invalid:
            head += f"; left out: {unequal} unequal in SQL, {invalid} invalid"
        bad_keep = kept < KEEP_MIN * gen
        if nfail == 0 and not bad_keep:
            say(f"ok   {head}: {nchecks} checks")
            return
        if bad_keep:
            self.failures.append(f"{sh.name}: only {kept} of {gen} generated pairs are equal "
                                 f"in SQL")
            say(f"FAIL {head}: fewer than {KEEP_MIN:.0%} of {gen} pairs are equal (the generator)")
        if nfail:
            npaths = sum(1 for c in counts.values() if c[0])
            failed = [p for p, c in counts.items() if c[1]]
            say(f"FAIL {head}: {nfail} of {nchecks} checks missed b, on {len(failed)} of "
                f"{npaths} paths: {by_ratio(counts)}")
            self.failures.append(f"{sh.name}: {nfail}/{nchecks} checks missed b, on "
                                 f"{'every one' if len(failed) == npaths else len(failed)} of "
                                 f"{npaths} paths")
            for p in failed:
                self.failed_paths.setdefault(p, []).append(sh.name)
        for path, v, (code, msg) in errors[:MAX_EXAMPLES]:
            say(f"    {path} ({v}): ERROR {code}: {msg}")
        shown = set()
        for path, v, i in examples:
            if len(shown) >= MAX_EXAMPLES:
                break
            if i in shown:
                continue
            shown.add(i)
            sa, sb = self.rows(f"SELECT a_src, b_src FROM {t} WHERE id = {i}")[0]
            say(f"    pair {i} ({path}, {v}): a = {short(sa, 200)}\n        b = {short(sb, 200)}")
            if len(sa) + len(sb) < 300:
                say(f"        SELECT (bloomfilter_create(10, 0.01, '{v}') || {sa}) @> {sb};")
        if not ONLY:
            say(f"    replay: EQ_SEED={SEED} EQ_ONLY='{sh.name}' EQ_PAIRS={NPAIRS} "
                f"bash test/cluster/element_equality.sh")

    def agg_paths(self, sh, ids):
        """(path, variant, ids of the pairs whose b the path misses, None) or (path, variant,
        None, error) for every aggregate path"""
        t, A, B = sh.table, sh.expr_a, sh.expr_b
        out = []
        check = self.plans_checked < 6
        sized = [SIZED_AGG.format(A=A, N=max(len(ids), 10), V=v) for v in VARIANTS]
        agg_filters = None
        for path, parallel, scan, extra in WHOLE_AGG:
            names = [(path, v) for v in VARIANTS] + ([(extra[0], 'scalable')] if extra else [])
            calls = sized + ([extra[1].format(A=A)] if extra else [])
            settings = self.par_settings(parallel, scan)
            sql = "SELECT " + ", ".join(f"{c}::text" for c in calls) + f" FROM {t} p"
            if check:
                self.check_plan(settings, sql, parallel, 'agg')
            res, err = self.in_settings(settings, sql)
            if err is None:
                filters = res[0]
                if path == 'agg':
                    agg_filters = filters[:len(VARIANTS)]
                res, err = self.try_rows(f"SELECT p.id, " + ", ".join(
                    f"('{f}'::bloomfilter @> {B}) IS TRUE" for f in filters) + f" FROM {t} p")
            out += self.misses(names, res, err)
        for path, parallel in OTHER_AGG:
            names = [(path, v) for v in VARIANTS]
            if path.startswith('agg_group'):
                settings = self.par_settings(parallel, 'off')
                inner = ", ".join(f"{SIZED_AGG.format(A=A, N=10, V=v)} AS f{j}"
                                  for j, v in enumerate(VARIANTS))
                res, err = self.in_settings(settings, f"SELECT p.id, " + ", ".join(
                    f"(g.f{j} @> {B}) IS TRUE" for j in range(len(VARIANTS))) +
                    f" FROM (SELECT p.id, {inner} FROM {t} p GROUP BY p.id) g "
                    f"JOIN {t} p ON p.id = g.id")
                out += self.misses(names, res, err)
                continue
            if agg_filters is None:
                out += [(p, v, None, ('-', "no filter: the 'agg' path failed")) for p, v in names]
                continue
            settings = self.par_settings(parallel, prefetch='on')
            sql = " UNION ALL ".join(f"SELECT {j} AS v, p.id FROM {t} p "
                                     f"WHERE '{f}'::bloomfilter @> {B}"
                                     for j, f in enumerate(agg_filters))
            if check:
                self.check_plan(settings, sql, parallel, 'prefetch')
            res, err = self.in_settings(settings, sql)
            if err:
                out += [(p, v, None, err) for p, v in names]
                continue
            for j, (p, v) in enumerate(names):
                out.append((p, v, sorted(ids - {i for k, i in res if k == j}), None))
        self.plans_checked += check
        return out

    @staticmethod
    def misses(names, res, err):
        """from rows (id, found under names[0], found under names[1], ...)"""
        if err:
            return [(p, v, None, err) for p, v in names]
        return [(p, v, sorted(row[0] for row in res if row[j + 1] is not True), None)
                for j, (p, v) in enumerate(names)]

    def check_plan(self, settings, sql, parallel, how):
        """counts the plans the aggregate paths got, so that they cannot all be one plan"""
        res, err = self.in_settings(settings, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, "
                                    "SUMMARY OFF) " + sql)
        if err:
            return
        plan = '\n'.join(r[0] for r in res)
        launched = re.search(r'Workers Launched: [1-9]', plan) is not None
        if parallel and not launched:
            return
        if how == 'prefetch':
            used = 'Custom Scan (bloomfilter prefetch)' in plan
            what = 'prefetch scan' if used else 'no prefetch scan'
        else:
            used = 'Custom Scan (bloomfilter agg)' in plan
            what = 'agg scan' if used else 'agg node'
        what = ('parallel ' if parallel else '') + what
        self.coverage[what] = self.coverage.get(what, 0) + 1

    # -- 2. unequal values --
    def run_fpr(self, name, mtype, ptype, members, probes):
        """members and probes: text forms of values of mtype and ptype"""
        t = f"{SCHEMA}.f_{re.sub(r'[^a-z0-9]+', '_', name)}"
        self.execute(f"CREATE TABLE {t}_m0 (v {mtype}); CREATE TABLE {t}_p0 (v {ptype})")
        for table, vals in ((f"{t}_m0", members), (f"{t}_p0", probes)):
            buf = io.StringIO(''.join(copy_escape(x) + '\n' for x in vals))
            self.cur.copy_expert(f"COPY {table} FROM STDIN", buf)
        # members and probes distinct under SQL equality (a repeated probe would count its
        # answer many times), probes that SQL calls equal to a member left out
        self.execute(f"CREATE TABLE {t}_m AS SELECT DISTINCT v FROM {t}_m0")
        self.execute(f"CREATE TABLE {t}_p AS SELECT DISTINCT v FROM {t}_p0")
        self.execute(f"DELETE FROM {t}_p p WHERE p.v IN (SELECT m.v::{ptype} FROM {t}_m m)")
        nm, = self.rows(f"SELECT count(*) FROM {t}_m")[0]
        np_, = self.rows(f"SELECT count(*) FROM {t}_p")[0]
        line = []
        ok = True
        if np_ < 0.75 * len(probes) or nm < 0.95 * len(members):
            ok = False
            self.failures.append(f"fpr {name}: only {nm} distinct members and {np_} distinct "
                                 f"unequal probes (the generator)")
        for v in VARIANTS:
            f, = self.rows(f"SELECT bloomfilter_agg(v, {FPR_MEMBERS}, {FPR_TARGET}, '{v}')::text "
                           f"FROM {t}_m")[0]
            missed, = self.rows(f"SELECT count(*) FROM {t}_m "
                                f"WHERE NOT ('{f}'::bloomfilter @> v)")[0]
            found, = self.rows(f"SELECT count(*) FROM {t}_p WHERE '{f}'::bloomfilter @> v")[0]
            rate = found / max(np_, 1)
            line.append(f"{v} {rate:.4f}")
            if missed:
                ok = False
                self.failures.append(f"fpr {name} ({v}): {missed} of {nm} members not found")
            if rate > FPR_BOUND:
                ok = False
                self.failures.append(f"fpr {name} ({v}): {found} of {np_} unequal probes found "
                                     f"({rate:.2%} > {FPR_BOUND:.0%})")
                for (pv,) in self.rows(f"SELECT v::text FROM {t}_p WHERE '{f}'::bloomfilter @> v "
                                       f"LIMIT {min(MAX_EXAMPLES, 5)}"):
                    say(f"    found although no member equals it: {short(pv, 200)}")
        say(f"{'ok  ' if ok else 'FAIL'} fpr {name}: {nm} members, {np_} distinct unequal "
            f"probes; false-positive rate {', '.join(line)}")

    # -- 3. nondeterministic collations --
    def run_collation(self):
        c = SCHEMA
        self.execute(f"""
SET search_path = {c}, public;
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE DOMAIN citxt AS text COLLATE ci;
CREATE DOMAIN citxtarr AS text[] COLLATE ci;
CREATE TYPE cirow AS (t text COLLATE ci, n int);
CREATE TYPE cirange AS RANGE (subtype = text, collation = ci);
CREATE TABLE ci_text (id int, a text COLLATE ci, b text COLLATE ci);
INSERT INTO ci_text VALUES (1, 'ABC', 'abc'), (2, 'Ärger', 'ärger'), (3, 'x Y z', 'X y Z');
CREATE TABLE ci_varchar (id int, a varchar(10) COLLATE ci, b varchar(10) COLLATE ci);
INSERT INTO ci_varchar SELECT * FROM ci_text;
CREATE TABLE ci_bpchar (id int, a char(8) COLLATE ci, b char(8) COLLATE ci);
INSERT INTO ci_bpchar SELECT * FROM ci_text;
CREATE TABLE ci_plain (id int, a text, b text);
INSERT INTO ci_plain SELECT * FROM ci_text;
CREATE TABLE ci_domain (id int, a citxt, b citxt);
INSERT INTO ci_domain SELECT * FROM ci_text;
CREATE TABLE ci_row (id int, a cirow, b cirow);
INSERT INTO ci_row SELECT id, ROW(a, id)::cirow, ROW(b, id)::cirow FROM ci_text;
CREATE TABLE ci_range (id int, a cirange, b cirange);
INSERT INTO ci_range VALUES (1, cirange('ABC', 'abd'), cirange('abc', 'ABD')),
                            (2, cirange('a', 'B', '[]'), cirange('A', 'b', '[]'));
""")
        # (case, table, a, b, ARRAY of a, ARRAY of b)
        cases = [
            ('text column', 'ci_text', 'p.a', 'p.b', 'ARRAY[p.a]', 'ARRAY[p.b]'),
            ('varchar column', 'ci_varchar', 'p.a', 'p.b', 'ARRAY[p.a]', 'ARRAY[p.b]'),
            ('char(8) column', 'ci_bpchar', 'p.a', 'p.b', 'ARRAY[p.a]', 'ARRAY[p.b]'),
            ('COLLATE ci', 'ci_plain', '(p.a COLLATE ci)', '(p.b COLLATE ci)',
             'ARRAY[p.a COLLATE ci]', 'ARRAY[p.b COLLATE ci]'),
            ('domain', 'ci_domain', 'p.a', 'p.b', 'ARRAY[p.a]', 'ARRAY[p.b]'),
            ('array', 'ci_text', 'ARRAY[p.a, NULL]', 'ARRAY[p.b, NULL]',
             'ARRAY[ARRAY[p.a, NULL]::citxtarr]', 'ARRAY[ARRAY[p.b, NULL]::citxtarr]'),
            ('composite', 'ci_row', 'p.a', 'p.b', 'ARRAY[p.a]', 'ARRAY[p.b]'),
            ('range', 'ci_range', 'p.a', 'p.b', 'ARRAY[p.a]', 'ARRAY[p.b]'),
        ]
        for name, table, A, B, AA, AB in cases:
            t = f"{c}.{table}"
            self.execute(f"SET search_path = {c}, public")
            ids = [i for (i,) in self.rows(f"SELECT id FROM {t} p WHERE ({A} = {B}) IS TRUE")]
            if not ids:
                self.failures.append(f"collation {name}: no pair is equal under ci (the test)")
                say(f"FAIL collation {name}: no pair is equal under ci")
                continue
            outcomes = []
            for v in VARIANTS:
                for path, expr in PAIR_PATHS:
                    if not path_applies(path, v):
                        continue
                    e = expr.format(A=A, B=B, ARR_A=AA, ARR_B=AB)
                    res, err = self.try_rows(
                        f"SELECT p.id, ({e}) FROM {t} p, {c}.eq_empty e "
                        f"WHERE e.variant = '{v}' AND p.id IN ({', '.join(map(str, ids))})")
                    outcomes.append((path, v, self.outcome(res, err)))
                for path, parallel in (('agg', False), ('agg_par', True)):
                    agg = SIZED_AGG.format(A=A, N=10, V=v)
                    res, err = self.in_settings(self.par_settings(parallel),
                                                f"SELECT {agg}::text FROM {t} p")
                    if err is None:
                        res, err = self.try_rows(
                            f"SELECT p.id, '{res[0][0]}'::bloomfilter @> {B} FROM {t} p "
                            f"WHERE p.id IN ({', '.join(map(str, ids))})")
                    outcomes.append((path, v, self.outcome(res, err)))
            # found, or refused with 0A000 (feature not supported): anything else is a miss
            miss = [(p, v, o) for p, v, o in outcomes
                    if not (o == 'found' or o.startswith('refused 0A000'))]
            kinds = {}
            for _, _, o in outcomes:
                k = ' '.join(o.split(' ')[:2]) if o.startswith('refused') else o.split(' ')[0]
                kinds[k] = kinds.get(k, 0) + 1
            desc = ', '.join(f"{k} {n}" for k, n in sorted(kinds.items()))
            if miss:
                self.failures.append(f"collation {name}: a silent false on " + ', '.join(
                    sorted({p for p, _, _ in miss})))
                say(f"FAIL collation {name} ({len(ids)} pairs equal under ci): {desc}")
                for p, v, o in miss[:MAX_EXAMPLES]:
                    say(f"    {p} ({v}): {o}")
            else:
                say(f"ok   collation {name} ({len(ids)} pairs equal under ci): {desc}")

    def outcome(self, res, err):
        if err:
            code, msg = err
            if code == 'XX000':
                return f"XX000 internal error: {msg}"
            return f"refused {code} ({msg})"
        bad = [i for i, ok in res if ok is not True]
        return f"MISS ids {bad}" if bad else "found"


def by_ratio(counts):
    """'255/300 on add/contains, <@; 102/120 on remove': the paths that missed, grouped"""
    groups = {}
    for p, (checked, failed) in counts.items():
        if failed:
            groups.setdefault((failed, checked), []).append(p)
    return '; '.join(f"{f}/{c} on {', '.join(ps)}" for (f, c), ps in groups.items())


def short(s, n=300):
    return s if len(s) <= n else s[:n] + f'... ({len(s)} chars)'


def copy_escape(s):
    return s.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n').replace('\r', '\\r')


# ---- 2. members and unequal probes ------------------------------------------------------

def perturb_decimal(v, r):
    """a decimal near v and unequal to it: other digits at or above the last, a shifted
    weight (1.5 against 15: the same digits), the other sign, an integer more"""
    e = dec_exp(v)
    k = r.randrange(8)
    if k <= 2:
        return v + r.choice((1, -1)) * r.randint(1, 99) * D(1).scaleb(e - r.randint(0, 3))
    if k == 3:
        return v.scaleb(r.choice((1, -1, 2, -2, 3, -3))) if v else D(r.randint(1, 9)).scaleb(-30)
    if k == 4:
        return -v if v else D('1e-30')
    if k == 5:
        return v + r.randint(1, 9)
    return v + r.randint(1, 99) * D(1).scaleb(e + r.randint(1, 3))


def dkey(v):
    return v.normalize() if v else D(0)


def distinct(r, one, key=lambda x: x, n=FPR_MEMBERS):
    """n values of one(r) that differ under key"""
    seen, out = set(), []
    while len(out) < n:
        x = one(r)
        k = key(x)
        if k not in seen:
            seen.add(k)
            out.append(x)
    return out


def probes_of(r, members, one, key=lambda x: x):
    """FPR_PROBES probes, one(r, m) of each member m in turn, those of one member distinct
    under key as far as thirty tries find them"""
    per = FPR_PROBES // len(members)
    out = []
    for m in members:
        seen = set()
        for _ in range(30):
            x = one(r, m)
            k = key(x)
            if k not in seen:
                seen.add(k)
                out.append(x)
                if len(seen) == per:
                    break
    return out


def fpr_decimal(r):
    if r.random() < 0.05:
        return rand_decimal(r)
    nd = r.randint(1, 20)
    return D(r.randrange(10 ** (nd - 1), 10 ** nd)).scaleb(r.randint(-nd - 6, 8)) * \
        r.choice((1, -1))


def fpr_numeric(r):
    ms = distinct(r, fpr_decimal, dkey)
    ps = probes_of(r, ms, lambda r, v: perturb_decimal(v, r), dkey)
    return [num_text(v, r) for v in ms], [num_text(v, r) for v in ps]


def fpr_int_numeric(r):
    def one(r):
        k = r.random()
        return (r.randint(-10 ** 6, 10 ** 6) if k < 0.3 else r.randint(-2 ** 63, 2 ** 63 - 1)
                if k < 0.7 else r.choice((1, -1)) * 2 ** r.randint(0, 62) + r.randint(-3, 3))
    ms = distinct(r, one)

    def probe(r, k):
        # k + c 2^64 (what an int64 would wrap to k), out of the int64 range, fractions
        k = D(k)
        c = r.choice((1, 2, 3, -1, -2, -3))
        return r.choice((k + c * 2 ** 64, k * 2 ** 64 * c, k + c * 2 ** 63, k + c * 2 ** 32,
                         k.scaleb(abs(c)), k + D(r.randint(1, 9)).scaleb(-r.randint(1, 30)),
                         -k - c, k + c))
    return [str(k) for k in ms], [num_text(v, r) for v in probes_of(r, ms, probe, dkey)]


def rand_f64(r):
    while True:
        if r.random() < 0.5:
            x = struct.unpack('<d', r.getrandbits(64).to_bytes(8, 'little'))[0]
        else:
            x = float(num_text(fpr_decimal(r), r))
        if math.isfinite(x):
            return x


def fpr_float8(r):
    ms = distinct(r, rand_f64)

    def probe(r, x):
        k = r.randrange(5)
        if k <= 1:          # a neighbour a few ulps away
            for _ in range(r.randint(1, 8)):
                x = math.nextafter(x, math.inf if k else -math.inf)
            c = x
        elif k == 2:
            c = -x
        elif k == 3:
            c = x * 2.0 ** r.choice((1, -1, 2, -2, 3))
        else:
            c = r.choice((f32(x), x + 1.0))
        return c if c is not None and math.isfinite(c) else math.nextafter(x, 0.0)
    return [repr(x) for x in ms], [repr(x) for x in probes_of(r, ms, probe)]


def fpr_float48(r):
    def one(r):
        if r.random() < 0.5:        # the float4 nearest to a short decimal, such as 0.1
            s = num_text(D(r.randrange(1, 10 ** r.randint(1, 7))).scaleb(r.randint(-9, 3)), r)
            x = f32(float(s))
            if x is not None and math.isfinite(x) and x != 0:
                return x, s
        x = rand_f32(r)
        return x, repr(x)
    ms = distinct(r, one, key=lambda m: m[0])

    def probe(r, m):
        # the decimal as a float8 (0.1::float8 against 0.1::float4), float8 neighbours
        x, s = m
        k = r.randrange(4)
        if k == 0:
            return float(s)
        if k <= 2:
            for _ in range(r.randint(1, 50)):
                x = math.nextafter(x, math.inf if k == 1 else -math.inf)
            return x
        return x * (1 + r.randint(1, 100) * 2.0 ** -40)
    return [repr(x) for x, _ in ms], [repr(x) for x in probes_of(r, ms, probe)]


SPAN_2_64 = (7116799, 1065709551616)     # months and microseconds that make 2^64 microseconds


def span(x):
    return (x[0] * 30 + x[1]) * 86400 * 10 ** 6 + x[2]


def fpr_interval(r):
    ms = distinct(r, lambda r: (r.randint(-100, 100), r.randint(-1000, 1000),
                                r.randint(-10 ** 12, 10 ** 12)), key=span)

    def probe(r, x):
        # a microsecond or a day off, 1 mon against 31 or 29 days, the span plus 2^64
        # microseconds (what a 64-bit span would wrap to the member), the negated span
        m, d, t = x
        j = r.randint(1, 1000)
        c = r.choice((1, -1, 2, -2))
        return r.choice((
            (m, d, t + j), (m, d, t - j), (m, d + c, t), (m + c, d, t), (m + 1, d - 31, t),
            (m - 1, d + 29, t), (m, d + 1, t - 86400 * 10 ** 6 + j), (m, d, t + c * 2 ** 32),
            (m + c * SPAN_2_64[0], d, t + c * SPAN_2_64[1]), (-m, -d, -t - j)))
    return [interval_text(*x) for x in ms], \
        [interval_text(*x) for x in probes_of(r, ms, probe, span)]


def jset(t, path, fn):
    if not path:
        return fn(t)
    i = path[0]
    xs = list(t[1])
    if t[0] == 'arr':
        xs[i] = jset(xs[i], path[1:], fn)
    else:
        xs[i] = (xs[i][0], jset(xs[i][1], path[1:], fn))
    return (t[0], xs)


def jkey(t):
    """a hashable key of the jsonb value of t"""
    if t[0] == 'num':
        return ('num', dkey(t[1]))
    if t[0] == 'arr':
        return ('arr', tuple(jkey(x) for x in t[1]))
    if t[0] == 'obj':
        return ('obj', tuple(sorted((k, jkey(v)) for k, v in t[1])))
    return t


def jmutate(t, r):
    """t with one change: a number, a number as a string of its digits, wrapped, grown"""
    k = r.randrange(6)
    p = r.choice(jnums(t))
    if k <= 2:
        return jset(t, p, lambda x: ('num', perturb_decimal(x[1], r)))
    if k == 3:
        return jset(t, p, lambda x: ('str', num_text(x[1], r, json_ok=True)))
    if k == 4:
        return ('arr', [t] + [('num', D(r.randint(0, 9)))] * r.randint(0, 1))
    new = ('num', fpr_decimal(r))
    if t[0] == 'obj':
        return ('obj', t[1] + [('zz', new)])
    if t[0] == 'arr':
        return ('arr', t[1] + [new])
    return ('arr', [t, new])


def fpr_jsonb(r):
    ms = distinct(r, jtree_num, key=jkey)
    ps = probes_of(r, ms, lambda r, t: jmutate(t, r), jkey)
    return [jtext(t, r) for t in ms], [jtext(t, r) for t in ps]


def fpr_numeric_array(r):
    """arrays as (elements, lower bound or None, two-dimensional)"""
    ms = distinct(r, lambda r: (tuple(None if r.random() < 0.1 else fpr_decimal(r)
                                      for _ in range(r.randint(1, 5))), None, False),
                  key=lambda a: tuple(a[0]))

    def probe(r, m):
        a = list(m[0])
        k = r.randrange(6)
        j = r.randrange(len(a))
        if k <= 1:
            a[j] = perturb_decimal(a[j], r) if a[j] is not None else fpr_decimal(r)
        elif k == 2:
            a[j] = None if a[j] is not None else fpr_decimal(r)
        elif k == 3:
            a = a[:j] + a[j + 1:] if len(a) > 1 and r.random() < 0.5 else a + [fpr_decimal(r)]
        elif k == 4:
            return (tuple(a), r.choice((0, 2, -1, 5)), False)       # another lower bound
        elif len(a) % 2 == 0:
            return (tuple(a), None, True)                          # {1,2,3,4}: {{1,2},{3,4}}
        else:
            a = a + [None]
        return (tuple(a), None, False)

    def key(m):
        return (tuple(None if v is None else dkey(v) for v in m[0]), m[1], m[2])

    def text(m):
        el = ['NULL' if v is None else num_text(v, r) for v in m[0]]
        if m[2]:
            h = len(el) // 2
            return '{{' + ','.join(el[:h]) + '},{' + ','.join(el[h:]) + '}}'
        lb = '' if m[1] is None else f"[{m[1]}:{m[1] + len(el) - 1}]="
        return lb + '{' + ','.join(el) + '}'
    return [text(m) for m in ms], [text(m) for m in probes_of(r, ms, probe, key)]


def fpr_text(r):
    ms = distinct(r, lambda r: rand_str(r, 'abcdefgXYZ 0123é', 12) or 'e')

    def probe(r, s):
        # trailing and leading spaces, case, one character more or less, a decomposed é
        # (e and U+0301), a combining accent
        j = r.randint(0, len(s))
        return r.choice((s + ' ' * r.randint(1, 3), ' ' * r.randint(1, 3) + s, s.upper(),
                         s.swapcase(), s[:j] + s[j + 1:], s[:j] + r.choice('aZé ') + s[j:],
                         s.replace('é', 'e\u0301') + 'é', s + '\u0301'))
    return ms, probes_of(r, ms, probe)


def fpr_cidr_inet(r):
    ms = distinct(r, rand_net)

    def probe(r, m):
        # the network with a longer or shorter prefix, an address inside it as inet,
        # the IPv4-mapped IPv6 network
        addr, p, bits = m
        k = r.randrange(4)
        j = r.randint(1, 3)
        if k == 0 and p + j <= bits:
            return f"{addr}/{p + j}"
        if k == 1 and p - j >= 0:
            return f"{addr}/{p - j}"
        if k == 2 and bits == 32:
            return f"::ffff:{addr}/{96 + p}"
        n = (int(ipaddress.ip_address(addr)) + r.randint(1, 1000)) % 2 ** bits
        return f"{ipaddress.ip_address(n) if bits == 128 else ipaddress.IPv4Address(n)}/{p}"
    return [f"{a}/{p}" for a, p, _ in ms], probes_of(r, ms, probe)


def fpr_composite(r):
    """eqc2 (n numeric, i interval) as (n, (months, days, microseconds))"""
    ms = distinct(r, lambda r: (fpr_decimal(r), (r.randint(-50, 50), r.randint(-500, 500),
                                                 r.randint(-10 ** 11, 10 ** 11))),
                  key=lambda x: (dkey(x[0]), span(x[1])))

    def probe(r, x):
        n, (m, d, t) = x
        j = r.randint(1, 1000)
        return r.choice(((perturb_decimal(n, r), (m, d, t)), (n, (m, d, t + j)), (None, (m, d, t)),
                         (n, None), (n, (m, d + 1, t)), (n, (m + 1, d - 30, t + j)),
                         (perturb_decimal(n, r), (m, d, t + j))))

    def key(x):
        return (None if x[0] is None else dkey(x[0]), None if x[1] is None else span(x[1]))

    def text(x):
        n, i = x
        return '(' + ('' if n is None else num_text(n, r)) + ',' + \
            ('' if i is None else '"' + interval_text(*i) + '"') + ')'
    return [text(x) for x in ms], [text(x) for x in probes_of(r, ms, probe, key)]


def fpr_numrange(r):
    """numranges as (lower, upper or None, bounds)"""
    def one(r):
        lo, hi = sorted((fpr_decimal(r), fpr_decimal(r)))
        return (lo, hi if hi != lo else lo + 1, '[)')
    ms = distinct(r, one, key=lambda x: (dkey(x[0]), dkey(x[1])))

    def probe(r, m):
        lo, hi, _ = m
        k = r.randrange(6)
        if k < 2:
            return (lo, hi, r.choice(('[]', '(]', '()')))
        if k < 4:
            hi = perturb_decimal(hi, r)
        elif k < 5:
            lo = perturb_decimal(lo, r)
        else:
            return (lo, None, '[)')
        lo, hi = sorted((lo, hi))
        return (lo, hi, '[)')

    def key(x):
        return (dkey(x[0]), None if x[1] is None else dkey(x[1]), x[2])

    def text(x):
        lo, hi, b = x
        return f"{b[0]}{num_text(lo, r)},{'' if hi is None else num_text(hi, r)}{b[1]}"
    return [text(x) for x in ms], [text(x) for x in probes_of(r, ms, probe, key)]


# (name, member type, probe type, generator)
FPR_TYPES = [
    ('numeric', 'numeric', 'numeric', fpr_numeric),
    ('int8~numeric', 'int8', 'numeric', fpr_int_numeric),
    ('float8', 'float8', 'float8', fpr_float8),
    ('float4~float8', 'float4', 'float8', fpr_float48),
    ('interval', 'interval', 'interval', fpr_interval),
    ('jsonb', 'jsonb', 'jsonb', fpr_jsonb),
    ('numeric[]', 'numeric[]', 'numeric[]', fpr_numeric_array),
    ('text', 'text', 'text', fpr_text),
    ('cidr~inet', 'cidr', 'inet', fpr_cidr_inet),
    ('composite', 'eqc2', 'eqc2', fpr_composite),
    ('numrange', 'numrange', 'numrange', fpr_numrange),
]


def main():
    t0 = time.time()
    rn = Runner()
    try:
        rn.setup()
        say(f"element equality: seed {SEED}, {NPAIRS} pairs per shape, variants "
            f"{', '.join(VARIANTS)}" + (f"; only {', '.join(sorted(ONLY))}" if ONLY else ''))
        for sh in SHAPES:
            if not selected(sh.name):
                continue
            if sh.needs == 'citext' and not rn.has_citext:
                say(f"skip {sh.name}: citext is not available on this server")
                continue
            rn.run_shape(sh)
        t1 = time.time()
        if selected('collation'):
            if rn.has_icu:
                rn.run_collation()
            else:
                say("skip collation: the server has no ICU collations")
        t2 = time.time()
        for name, mt, pt, gen in FPR_TYPES:
            if ONLY and not ({'fpr', f'fpr:{name}'} & ONLY):
                continue
            ms, ps = gen(random.Random(f"{SEED}:fpr:{name}"))
            rn.run_fpr(name, mt, pt, ms, ps)
        t3 = time.time()
    except (Crash, Failed) as e:
        say(f"FAIL element equality (seed {SEED}): {e}")
        return 1
    ok = not rn.failures and not rn.internal
    if not ONLY:
        cov = rn.coverage
        say("plans of the aggregate and prefetch paths (shapes): " +
            ', '.join(f"{k} {n}" for k, n in cov.items()))
        for k, n in cov.items():
            if n == 0:
                ok = False
                rn.failures.append(f"no shape got a plan with {k} (the test would not test it)")
    say(f"time: pairs {t1 - t0:.1f} s, collation {t2 - t1:.1f} s, unequal values {t3 - t2:.1f} s")
    for m in rn.internal[:5]:
        say(f"internal error XX000: {m}")
    if rn.failures:
        say(f"{len(rn.failures)} failures:")
        for f in rn.failures:
            say(f"  {f}")
    fp = rn.failed_paths
    if fp:
        say("shapes with false negatives, by path: " +
            ', '.join(f"{p} {len(s)}" for p, s in fp.items()))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
