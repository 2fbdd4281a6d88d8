"""The join oracle's query generator (test/oracle/join_oracle.py runs what it makes).

make_query(seed, i, features) makes query number i of a run from a generator seeded with
(seed, i) alone, so that one query can be replayed without the others.  A query is a gen.Query:
'pre' (PREPARE, not compared), 'stmts' (each one's rows compared as a multiset), 'post' (digests
of the tables a statement wrote) and 'explain', the statement whose plan is checked (and, when
'analyze' is set, run under EXPLAIN ANALYZE); 'settings' (SET LOCAL) hold the per-query planner
knobs: merge and nested-loop joins off most of the time so that hash joins are chosen, a small
work_mem so that they spill to batches, no parallel hash.

Quals that raise an error on some rows are placed only where a join filter cannot change whether
a row reaches them: a scan's own quals (tested before the filter) and the select list, in a
query of one hash join (no other join methods, no LIMIT).  With two, a filter that empties the
build side of a join below the one it serves lets that join skip its probe side, and with it
a qual's error (doc/join-filters-design.md accepts that).  Such queries run in the serial
configurations only: which rows a parallel plan reaches, and whether a join reads a side at
all, may differ from the serial plan's.
"""
import random

from gen import Query
from join_schema import COMMON

FACTS = [('fact', 40), ('fact_p', 25), ('fact_i', 20), ('ONLY fact_i', 5)]
DIMS = [('dim_a', 45), ('dim_b', 35), ('dim_c', 20)]

# join keys: name -> (group, weight, [(left expression, right expression)]), {l} and {r} the
# aliases.  Group x joins any two tables (their x columns); w and z join a fact's second and
# third key (left) to a table's x columns (right).
KEYS = {
    'int4': ('x', 8, [('{l}.k4', '{r}.k4')]),
    'int4=int8': ('x', 6, [('{l}.k4', '{r}.k8')]),
    'int8=int4': ('x', 3, [('{l}.k8', '{r}.k4')]),
    'int2=int8': ('x', 4, [('{l}.k2', '{r}.k8')]),
    'int2=int4': ('x', 2, [('{l}.k2', '{r}.k4')]),
    'numeric': ('x', 5, [('{l}.n', '{r}.n')]),
    'float8': ('x', 5, [('{l}.fl', '{r}.fl')]),
    'text': ('x', 6, [('{l}.tx', '{r}.tx')]),
    'text=varchar': ('x', 4, [('{l}.tx', '{r}.vc')]),
    'varchar': ('x', 2, [('{l}.vc', '{r}.vc')]),
    'ci': ('x', 5, [('{l}.ci', '{r}.ci')]),
    'uuid': ('x', 4, [('{l}.u', '{r}.u')]),
    'toast': ('x', 3, [('{l}.big', '{r}.big')]),
    'multi': ('x', 5, [('{l}.m1', '{r}.m1'), ('{l}.m2', '{r}.m2')]),
    'multi-cross': ('x', 3, [('{l}.k8', '{r}.k4'), ('{l}.tx', '{r}.vc')]),
    'expr+0': ('x', 3, [('{l}.k4 + 0', '{r}.k4')]),
    'expr-lower': ('x', 3, [('lower({l}.tx)', '{r}.tx')]),
    'expr-coalesce': ('x', 2, [('coalesce({l}.k4, -1)', 'coalesce({r}.k4, -1)')]),
    'expr-numeric': ('x', 2, [('{l}.n * 2', '{r}.n * 2')]),
    'w-int4': ('w', 4, [('{l}.w4', '{r}.k4')]),
    'w-int8': ('w', 3, [('{l}.w8', '{r}.k4')]),
    'w-text': ('w', 3, [('{l}.wtx', '{r}.tx')]),
    'z-int4': ('z', 3, [('{l}.z4', '{r}.k4')]),
    'z-uuid': ('z', 3, [('{l}.zu', '{r}.u')]),
    'z-numeric': ('z', 2, [('{l}.zn', '{r}.n')]),
}
FACT_GROUPS = {'x', 'w', 'z'}

# columns to show of a source besides its id; never grouped by ci, n or fl (equal values of
# different spellings: which one a group shows would depend on the order of its rows)
SHOW = ['grp', 'v', 'k4', 'k8', 'n', 'fl', 'tx', 'vc', 'ci', 'u', 'm1', 'm2',
        'md5({a}.big)', 'length({a}.big)']


class Gen:
    def __init__(self, rng, features):
        self.r = rng
        self.icu = features['icu']
        self.guc = features['guc']
        self.fallible_ok = False   # quals that may raise an error are allowed
        self.fallible = False      # and one was placed
        self.ctes = []
        self.n = 0
        self.ids_unique = True     # (id of each source) identifies an output row
        self.spill = False         # work_mem is small: keep more of the dimensions

    def pick(self, weighted):
        items = [(x, w) for x, w in weighted if w > 0]
        n = self.r.uniform(0, sum(w for _, w in items))
        for x, w in items:
            n -= w
            if n <= 0:
                return x
        return items[-1][0]

    def alias(self, prefix):
        self.n += 1
        return f"{prefix}{self.n}"

    # ---- sources: (FROM item without its alias, key groups) ----
    def fact(self):
        return self.pick(FACTS), FACT_GROUPS

    def dim(self):
        return self.pick(DIMS), {'x'}

    def source(self, fact_like):
        """a fact or a dimension, now and then behind a UNION ALL, a subquery or a CTE"""
        kind = self.pick([('table', 80), ('union', 7), ('subquery', 7), ('cte', 6)])
        if kind == 'table':
            return self.fact() if fact_like else self.dim()
        self.ids_unique = False
        self.fallible_ok = False   # another join inside
        t1, _ = self.fact() if fact_like else self.dim()
        if kind == 'union':
            t2 = t1
            while t2.replace('ONLY ', '') == t1.replace('ONLY ', ''):
                t2, _ = self.fact() if fact_like else self.dim()
            a1, a2 = self.alias('u'), self.alias('u')
            return (f"(SELECT {COMMON} FROM {t1} {a1} WHERE {self.scan_quals(a1)} "
                    f"UNION ALL SELECT {COMMON} FROM {t2} {a2})"), {'x'}
        # a join inside: the outer rows of t1 that match a filtered dimension
        a, d = self.alias('s'), self.alias('sd')
        dt, _ = self.dim()
        key = self.key({'x'})
        cols = ", ".join(f"{a}.{c.strip()}" for c in COMMON.split(","))
        body = (f"SELECT {cols}, {d}.id AS did FROM {t1} {a} JOIN {dt} {d} ON "
                f"{self.cond(key, a, d)} WHERE {self.dim_filter(d)}")
        if kind == 'subquery':
            return f"({body}{' OFFSET 0' if self.r.random() < 0.5 else ''})", {'x'}
        name = self.alias('c')
        mat = self.pick([('', 2), ('MATERIALIZED ', 1), ('NOT MATERIALIZED ', 1)])
        self.ctes.append(f"{name} AS {mat}({body})")
        return name, {'x'}

    def with_clause(self):
        return f"WITH {', '.join(self.ctes)} " if self.ctes else ""

    # ---- keys and quals ----
    def key(self, groups):
        keys = [(k, w) for k, (grp, w, _) in KEYS.items()
                if grp in groups and (self.icu or k != 'ci')]
        return self.pick(keys)

    def cond(self, key, l, r):
        return " AND ".join(f"{a.format(l=l, r=r)} = {b.format(l=l, r=r)}"
                            for a, b in KEYS[key][2])

    def dim_filter(self, a):
        """keeps 1 to 50 % of a dimension (none of dim_c's 60 rows for grp < 1), now and then
        none (an empty build side); with a small work_mem often all of it, so that a hash join
        spills"""
        p = self.r.choice([1, 2, 5, 10, 25, 50])
        m = self.r.choice([2, 5, 10, 20])
        f = self.pick([(f"{a}.grp < {p}", 50), (f"{a}.grp % {m} = 1", 20),
                       (f"{a}.grp BETWEEN 30 AND {30 + p}", 10), (f"{a}.tx LIKE 'k1%'", 10),
                       ("true", 10), (f"{a}.grp < 0", 4)])
        if self.spill and self.r.random() < 0.5:
            f = f"{a}.grp < 100"
        return " AND ".join([f] + self.extra_quals(a))

    def scan_quals(self, a):
        """a fact's own quals (often none)"""
        q = self.pick([("true", 50), (f"{a}.v % 3 <> 0", 20), (f"{a}.grp < 70", 15),
                       (f"{a}.id % 5 <> 2", 15)])
        return " AND ".join([q] + self.extra_quals(a))

    def extra_quals(self, a):
        q = []
        if self.r.random() < 0.06:
            q.append("random() < 2")
        if self.fallible_ok and self.r.random() < 0.08:
            self.fallible = True
            k = self.r.randrange(1, 1000) if self.r.random() < 0.5 else self.r.randrange(1, 25000)
            q.append(f"1 / ({a}.id - {k}) >= -1")
        return q

    # ---- select lists ----
    def show(self, aliases):
        cols = []
        for a in aliases:
            cols.append(f"{a}.id")
            for c in self.r.sample(SHOW, self.r.choice([0, 1, 2])):
                cols.append(c.format(a=a) if '{' in c else f"{a}.{c}")
        if self.fallible_ok and self.r.random() < 0.05:
            self.fallible = True
            cols.append(f"100 / ({aliases[0]}.v - {self.r.randrange(1500)})")
        return ", ".join(cols)

    def aggregates(self, f, d):
        """(select list, GROUP BY or '') over a join of f (a fact) and d"""
        items = ["count(*)"] + self.r.sample(
            [f"count({d}.id)", f"sum({f}.v)", f"min({f}.id)", f"max({d}.id)",
             f"array_agg({f}.id ORDER BY {f}.id)", f"count(DISTINCT {d}.id)",
             f"min({f}.tx)", f"sum({d}.v)"], 2)
        group = self.pick([("", 50), (f"{d}.grp", 25), (f"{f}.grp % 7", 15),
                           (f"{d}.grp, {f}.m1", 10)])
        if group:
            return f"{group}, " + ", ".join(items), f" GROUP BY {group}"
        return ", ".join(items), ""

    def output(self, aliases, frm, where, limit_ok=True):
        """a SELECT over frm: rows, aggregates or an ordered LIMIT"""
        limit_ok = limit_ok and self.ids_unique
        form = self.pick([('rows', 55), ('agg', 30), ('limit', 15 if limit_ok else 0)])
        if form == 'agg':
            sel, group = self.aggregates(aliases[0], aliases[-1])
            having = " HAVING count(*) > 1" if group and self.r.random() < 0.2 else ""
            return f"{self.with_clause()}SELECT {sel} FROM {frm} WHERE {where}{group}{having}"
        order = ""
        if form == 'limit':
            # every source's id: a total order, so the rows a LIMIT keeps are the same
            order = (f" ORDER BY {', '.join(f'{a}.id' for a in aliases)} "
                     f"LIMIT {self.r.choice([1, 5, 20, 100])}"
                     f"{' OFFSET 3' if self.r.random() < 0.3 else ''}")
        return f"{self.with_clause()}SELECT {self.show(aliases)} FROM {frm} WHERE {where}{order}"


def join_query(g, q):
    """two sources, any join type"""
    r = g.r
    lt, groups = g.source(True) if r.random() < 0.8 else g.source(False)
    rt, _ = g.source(False) if r.random() < 0.85 else g.source(True)
    l, rr = g.alias('f'), g.alias('d')
    key = g.key(groups)
    cond = g.cond(key, l, rr)
    jt = g.pick([('JOIN', 40), ('LEFT JOIN', 15), ('RIGHT JOIN', 20), ('FULL JOIN', 10),
                 (',', 15)])
    lq, rq = g.scan_quals(l), g.dim_filter(rr)
    if jt == ',':
        frm = f"{lt} {l}, {rt} {rr}"
        where = f"{cond} AND {lq} AND {rq}"
    elif jt == 'FULL JOIN':
        # quals of a full join's sides inside them: its ON takes hashable clauses only
        frm = (f"(SELECT * FROM {lt} {l} WHERE {lq}) {l} FULL JOIN "
               f"(SELECT * FROM {rt} {rr} WHERE {rq}) {rr} ON {cond}")
        where = "true"
    else:
        on = cond
        where = [lq]
        if jt != 'JOIN' and r.random() < 0.6:
            on += f" AND {rq}"     # the nullable (or preserved) side's filter stays in ON
        else:
            where.append(rq)
        if r.random() < 0.3:
            mirror = {'LEFT JOIN': 'RIGHT JOIN', 'RIGHT JOIN': 'LEFT JOIN'}.get(jt, jt)
            frm = f"{rt} {rr} {mirror} {lt} {l} ON {on}"
        else:
            frm = f"{lt} {l} {jt} {rt} {rr} ON {on}"
        where = " AND ".join(where)
    q.stmts = [g.output([l, rr], frm, where, limit_ok=not g.fallible_ok)]


def star_query(g, q):
    """a fact and two or three filtered dimensions, each joined to the fact or to another
    dimension (a snowflake); inner joins mostly"""
    r = g.r
    ft, _ = g.fact()
    f = g.alias('f')
    frm = f"{ft} {f}"
    where = [g.scan_quals(f)]
    aliases = [f]
    groups = ['x', 'w', 'z']
    r.shuffle(groups)
    for j in range(r.choice([2, 2, 3])):
        dt, _ = g.dim()
        d = g.alias('d')
        if j > 0 and r.random() < 0.25:
            on = g.cond(g.key({'x'}), aliases[-1], d)      # to the previous dimension
        else:
            on = g.cond(g.key({groups[j]}), f, d)
        jt = g.pick([('JOIN', 75), ('LEFT JOIN', 15), ('RIGHT JOIN', 10)])
        if jt == 'JOIN':
            where.append(g.dim_filter(d))
        else:
            on += f" AND {g.dim_filter(d)}"
        frm += f" {jt} {dt} {d} ON {on}"
        aliases.append(d)
    q.stmts = [g.output(aliases, frm, " AND ".join(where))]


def semi_query(g, q, anti):
    """[NOT] EXISTS or [NOT] IN, from the fact's side or the dimension's"""
    r = g.r
    outer_fact = r.random() < 0.75
    (ot, groups), (it, _) = (g.fact(), g.dim()) if outer_fact else (g.dim(), g.fact())
    o, i = g.alias('o'), g.alias('i')
    pairs = KEYS[g.key(groups)][2]
    inner_q = g.scan_quals(i) if not outer_fact else g.dim_filter(i)
    outer_q = g.scan_quals(o) if outer_fact else g.dim_filter(o)
    form = g.pick([('exists', 60), ('in', 40)])
    if form == 'exists':
        cond = " AND ".join(f"{a.format(l=o, r=i)} = {b.format(l=o, r=i)}" for a, b in pairs)
        sub = f"{'NOT ' if anti else ''}EXISTS (SELECT 1 FROM {it} {i} WHERE {cond} AND {inner_q})"
    else:
        lhs = ", ".join(a.format(l=o, r=i) for a, _ in pairs)
        rhs = ", ".join(b.format(l=o, r=i) for _, b in pairs)
        lhs = f"({lhs})" if len(pairs) > 1 else lhs
        sub = f"{lhs} {'NOT IN' if anti else 'IN'} (SELECT {rhs} FROM {it} {i} WHERE {inner_q})"
    where = f"{sub} AND {outer_q}"
    if r.random() < 0.3:
        sel, group = g.aggregates(o, o)
        q.stmts = [f"SELECT {sel} FROM {ot} {o} WHERE {where}{group}"]
    else:
        q.stmts = [f"SELECT {g.show([o])} FROM {ot} {o} WHERE {where}"]


def union_query(g, q):
    """UNION ALL of two joins"""
    parts = []
    for _ in range(2):
        ft, groups = g.fact()
        dt, _ = g.dim()
        f, d = g.alias('f'), g.alias('d')
        parts.append(f"SELECT {f}.id, {d}.id AS did, {f}.v FROM {ft} {f} JOIN {dt} {d} ON "
                     f"{g.cond(g.key(groups), f, d)} WHERE {g.scan_quals(f)} AND {g.dim_filter(d)}")
    sql = " UNION ALL ".join(parts)
    if g.r.random() < 0.4:
        sql = f"SELECT count(*), sum(v), count(DISTINCT did) FROM ({sql}) x"
    q.stmts = [sql]


def lateral_query(g, q):
    """a hash join rescanned for each row of small: in a LATERAL subquery, or a correlated
    subquery; the parameter is on the probe side, or now and then on the build side"""
    r = g.r
    ft, groups = g.fact()
    dt, _ = g.dim()
    f, d = g.alias('f'), g.alias('d')
    on = g.cond(g.key(groups), f, d)
    param = (f"{f}.grp = s.k" if r.random() < 0.75 else f"{d}.grp < s.k + 3")
    body = f"FROM {ft} {f} JOIN {dt} {d} ON {on} WHERE {param} AND {g.dim_filter(d)}"
    form = g.pick([('lateral', 35), ('lateral_limit', 15), ('scalar', 25), ('exists', 25)])
    if form == 'lateral':
        q.stmts = [f"SELECT s.id, l.* FROM small s, LATERAL (SELECT count(*) AS n, "
                   f"sum({f}.v) AS sv, min({d}.id) AS md {body}) l"]
    elif form == 'lateral_limit':
        q.stmts = [f"SELECT s.id, l.* FROM small s LEFT JOIN LATERAL (SELECT {f}.id AS fid, "
                   f"{d}.id AS did {body} ORDER BY {f}.id, {d}.id LIMIT 3) l ON true"]
    elif form == 'scalar':
        q.stmts = [f"SELECT s.id, (SELECT count(*) {body}) FROM small s"]
    else:
        # OFFSET 0: a subplan run for each row, not a semi-join
        q.stmts = [f"SELECT s.id FROM small s WHERE {'NOT ' if r.random() < 0.3 else ''}"
                   f"EXISTS (SELECT 1 {body}{' OFFSET 0' if r.random() < 0.5 else ''})"]


def nestloop_query(g, q):
    """nested loops allowed: a hash join on a nested loop's inner side, or above one"""
    r = g.r
    q.settings = [s for s in q.settings if 'nestloop' not in s]
    if r.random() < 0.3:
        q.settings.append("enable_material = off")
    ft, groups = g.fact()
    dt, _ = g.dim()
    f, d = g.alias('f'), g.alias('d')
    on = g.cond(g.key(groups), f, d)
    q.stmts = [f"SELECT s.id, {g.show([f, d])} FROM small s JOIN {ft} {f} ON {f}.grp = s.k "
               f"JOIN {dt} {d} ON {on} WHERE {g.dim_filter(d)}"]


def prepared_query(g, q):
    """a generic plan run with several parameter values; then once more with the filters
    turned off (a cached plan obeys the setting at once)"""
    ft, groups = g.fact()
    dt, _ = g.dim()
    f, d = g.alias('f'), g.alias('d')
    on = g.cond(g.key(groups), f, d)
    jt = g.pick([('JOIN', 70), ('RIGHT JOIN', 15), ('LEFT JOIN', 15)])
    q.settings.append("plan_cache_mode = force_generic_plan")
    if g.r.random() < 0.5:
        sel = f"count(*), sum({f}.v), count({d}.id)"
    else:
        sel = g.show([f, d])
    q.pre = ["DEALLOCATE ALL",
             f"PREPARE q1(int, int) AS SELECT {sel} FROM {ft} {f} {jt} {dt} {d} ON {on} "
             f"AND {d}.grp < $1 WHERE {f}.v <> $2"]
    q.stmts = ["EXECUTE q1(10, 5)", "EXECUTE q1(50, 7)", "EXECUTE q1(1, 0)", "EXECUTE q1(25, 3)"]
    if g.guc:
        q.stmts[3:3] = ["SET LOCAL bloomfilter.join_filter = off"]
    q.explain = q.stmts[0]


def dml_query(g, q):
    """UPDATE ... FROM, DELETE ... USING, INSERT ... SELECT, with a join; compared by the
    digest of the table written (rolled back after each run)"""
    r = g.r
    form = g.pick([('update', 30), ('delete', 25), ('insert', 30), ('update_dim', 15)])
    ft, groups = g.fact()
    dt, _ = g.dim()
    f, d = g.alias('f'), g.alias('d')
    on = g.cond(g.key(groups), f, d)
    w = f"{on} AND {g.dim_filter(d)} AND {g.scan_quals(f)}"
    if form == 'update':
        q.stmts = [f"UPDATE {ft} {f} SET v = {f}.v + 1000 FROM {dt} {d} WHERE {w} "
                   f"RETURNING {f}.id, {f}.v"]
        target = ft
    elif form == 'delete':
        q.stmts = [f"DELETE FROM {ft} {f} USING {dt} {d} WHERE {w} RETURNING {f}.id"]
        target = ft
    elif form == 'insert':
        q.stmts = [f"INSERT INTO sink SELECT {f}.id, {d}.id, {f}.tx FROM {ft} {f} "
                   f"JOIN {dt} {d} ON {w}"]
        target = 'sink'
    else:
        q.stmts = [f"UPDATE {dt} {d} SET grp = {d}.grp + 100 WHERE EXISTS (SELECT 1 FROM {ft} {f} "
                   f"WHERE {w})"]
        target = dt
    target = target.replace('ONLY ', '')
    cols = "a, b, t" if target == 'sink' else "id, grp, v, k4, tx"
    row = f"concat_ws(':', {cols})"
    q.post = [f"SELECT md5(string_agg({row}, ',' ORDER BY {row})) FROM {target}"]
    if r.random() < 0.5:
        q.post.append(f"SELECT count(*) FROM {target}")


def guard_query(g, q):
    """fact_big's rows all have a partner in dim_a's rows with grp < 25, and the planner
    expects one in four to: with bloomfilter.join_filter = on, the guard stops testing"""
    b, d = g.alias('b'), g.alias('d')
    key = g.pick([('{b}.k4 = {d}.k4', 3), ('{b}.k8 = {d}.k4', 1), ('{b}.tx = {d}.vc', 1)])
    frm = f"fact_big {b} JOIN dim_a {d} ON {key.format(b=b, d=d)}"
    where = f"{d}.grp < 25"
    if g.r.random() < 0.4:      # and a second filter, which removes rows
        d2, dt = g.alias('d'), g.pick(DIMS)
        frm += f" JOIN {dt} {d2} ON {b}.k4 = {d2}.k8"
        where += f" AND {g.dim_filter(d2)}"
    q.stmts = [f"SELECT count(*), sum({b}.v), count(DISTINCT {d}.id) FROM {frm} WHERE {where}"]


SHAPES = [('join', 30), ('star', 18), ('semi', 10), ('anti', 6), ('union', 5), ('lateral', 10),
          ('nestloop', 6), ('prepared', 7), ('dml', 8), ('guard', 3)]


def make_query(seed, i, features):
    """query number i of the run with this seed; features: {'icu': the ci collation exists,
    'guc': the setting bloomfilter.join_filter exists}"""
    r = random.Random(f"{seed}:{i}")
    g = Gen(r, features)
    q = Query()
    q.shape = g.pick(SHAPES)
    pure_hash = r.random() < 0.8
    if pure_hash:
        q.settings += ["enable_mergejoin = off", "enable_nestloop = off"]
    g.spill = r.random() < 0.3
    if g.spill:
        q.settings += ["work_mem = '64kB'", "hash_mem_multiplier = 1"]
    if r.random() < 0.4:
        q.settings.append("enable_parallel_hash = off")
    g.fallible_ok = pure_hash and q.shape in ('join', 'semi', 'anti', 'union', 'dml')
    {'join': join_query, 'star': star_query, 'union': union_query, 'lateral': lateral_query,
     'semi': lambda g, q: semi_query(g, q, False), 'anti': lambda g, q: semi_query(g, q, True),
     'nestloop': nestloop_query, 'prepared': prepared_query, 'dml': dml_query,
     'guard': guard_query}[q.shape](g, q)
    q.serial_only = g.fallible
    q.force_parallel = r.random() < 0.15
    q.analyze = r.random() < 0.15 or q.shape == 'guard'
    if q.explain is None:
        q.explain = q.stmts[0]
    return q
