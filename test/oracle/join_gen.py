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
        self.fdw = features.get('fdw', False)
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
    """UPDATE ... FROM, DELETE ... USING, INSERT ... SELECT, MERGE, SELECT ... FOR UPDATE, with
    a join; compared by the rows returned and the digest of the table written (rolled back
    after each run)"""
    r = g.r
    form = g.pick([('update', 25), ('delete', 20), ('insert', 25), ('update_dim', 10),
                   ('merge', 12), ('forupdate', 8)])
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
    elif form == 'merge':
        # one target table: PostgreSQL 15's EXPLAIN (FORMAT JSON) of a MERGE into several
        # (a partitioned or inheritance parent) is not valid JSON
        if ft not in ('fact', 'ONLY fact_i'):
            ft = 'fact'
        act = g.pick([(f"UPDATE SET v = {f}.v + 1000", 2), ("DELETE", 1)])
        q.stmts = [f"MERGE INTO {ft} {f} USING {dt} {d} ON {w} WHEN MATCHED THEN {act}"]
        target = ft
    elif form == 'forupdate':
        q.stmts = [f"SELECT {f}.id, {d}.id FROM {ft} {f} JOIN {dt} {d} ON {w} "
                   f"FOR UPDATE OF {f}"]
        target = ft
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


# statistics that lie (join_schema.py's st_b): what a build side is filtered on, and what it
# keeps in fact; and the keys of st_p (probe) against st_b
STALE_PRED = [("{b}.flag = 1", 4), ("{b}.flag10 = 1", 3), ("{b}.hot = 1", 3),
              ("{b}.grp = 777", 2), ("({b}.k * 0) = 0", 2), ("lower({b}.tx) = lower({b}.vc)", 1),
              ("{b}.flag = 1 AND {b}.grp < 50", 2)]
STALE_KEYS = [("{p}.k = {b}.k", 5), ("{p}.k8 = {b}.k", 2), ("{p}.tx = {b}.tx", 2),
              ("{p}.tx = {b}.vc", 1)]


def stale_query(g, q):
    """a build side 10 to 1,000 times its estimate (st_b), against st_p: serial, or Parallel
    Hash (the configurations with parallel plans), where each participant meets keys the plan
    never expected; now and then a second, truthful dimension"""
    r = g.r
    q.settings = [s for s in q.settings if 'parallel_hash' not in s]
    if r.random() < 0.2:
        q.settings.append("enable_parallel_hash = off")
    p, b = g.alias('p'), g.alias('b')
    pred = g.pick(STALE_PRED).format(b=b)
    key = g.pick(STALE_KEYS).format(p=p, b=b)
    form = g.pick([('agg', 50), ('exists', 15), ('in', 10), ('star', 15), ('right', 10)])
    if form == 'exists':
        q.stmts = [f"SELECT count(*), sum({p}.v) FROM st_p {p} WHERE EXISTS (SELECT 1 FROM st_b "
                   f"{b} WHERE {key} AND {pred})"]
    elif form == 'in':
        q.stmts = [f"SELECT count(*), sum({p}.v) FROM st_p {p} WHERE {p}.k IN (SELECT {b}.k "
                   f"FROM st_b {b} WHERE {pred})"]
    elif form == 'star':
        d = g.alias('d')
        q.stmts = [f"SELECT count(*), sum({p}.v), count(DISTINCT {d}.id) FROM st_p {p} "
                   f"JOIN st_b {b} ON {key} JOIN dim_a {d} ON {d}.k4 = {p}.k % 5000 "
                   f"WHERE {pred} AND {g.dim_filter(d)}"]
    elif form == 'right':
        q.stmts = [f"SELECT count(*), count({p}.id), sum({p}.v) FROM st_p {p} RIGHT JOIN st_b "
                   f"{b} ON {key} WHERE {pred}"]
    else:
        q.stmts = [f"SELECT count(*), sum({p}.v), count(DISTINCT {b}.k) FROM st_p {p} "
                   f"JOIN st_b {b} ON {key} WHERE {pred}"]
    q.force_parallel = False


# volatile, leaky and failing expressions in the probe subtree: {a} is the alias they read
VOLATILE = [("nextval('cnt')", 3), ("vol({a}.id)", 3), ("CASE WHEN {a}.v % 2 = 0 THEN vol({a}.v) "
            "ELSE 0 END", 2), ("(SELECT vol(c.id) FROM dim_c c WHERE c.id = {a}.id % 60 + 1)", 2),
            ("boom({a}.id, {k})", 2)]


def sidefx_query(g, q):
    """side effects and errors at every level of the probe subtree of a filtered join: the
    target list of a join or a scan inside a subquery, a volatile qual on a subquery over a
    window function, a leaky function over a security_barrier view, a set-returning function,
    volatile or failing code on the other side of an intermediate join; compared by the calls
    counted (the sequence cnt) as well as by rows and SQLSTATEs"""
    r = g.r
    fact_cols = f"{COMMON}, w4, w8, wtx, z4, zu, zn"
    vol = lambda a: g.pick(VOLATILE).format(a=a, k=r.randrange(1, 6000))
    f, s, d = g.alias('f'), g.alias('s'), g.alias('d')
    ft = g.pick([('fact', 60), ('fact_p', 20), ('fact_i', 20)])
    form = g.pick([('join_tlist', 25), ('scan_tlist', 15), ('window', 15), ('sbview', 15),
                   ('srf', 10), ('other_side', 20)])
    where = [g.dim_filter(d)]
    if form == 'join_tlist':
        d2 = g.alias('d2')
        src = (f"(SELECT {f}.*, {d2}.id AS did, {vol(f)} AS c FROM {ft} {f} JOIN "
               f"{g.pick(DIMS)} {d2} ON {g.cond(g.key({'w', 'z'}), f, d2)} "
               f"WHERE {g.dim_filter(d2)})")
    elif form == 'scan_tlist':
        offset = ' OFFSET 0' if r.random() < 0.5 else ''
        src = f"(SELECT {f}.*, {vol(f)} AS c FROM {ft} {f}{offset})"
    elif form == 'window':
        src = (f"(SELECT {f}.*, row_number() OVER (PARTITION BY {f}.grp ORDER BY {f}.id) AS c "
               f"FROM {ft} {f})")
        where.append(g.pick([(f"volb({s}.id)", 3), (f"leaky({s}.id)", 1),
                             (f"leaky_s({s}.id)", 1),
                             (f"boom({s}.id, {r.randrange(1, 6000)}) > 0", 1)]))
    elif form == 'sbview':
        src = "sbv"
        where.append(g.pick([(f"leaky({s}.id)", 2), (f"leaky_s({s}.id)", 2),
                             (f"volb({s}.id)", 1)]))
    elif form == 'srf':
        src = g.pick([(f"(SELECT {fact_cols}, srf_cnt({f}.id) AS c FROM {ft} {f})", 3),
                      (f"(SELECT {fact_cols}, generate_series(1, vol({f}.id) % 3) AS c "
                       f"FROM {ft} {f})", 1)])
    else:
        # the fact joined to a dimension whose side computes something volatile or failing,
        # then to the filtered dimension d: a filter from d that empties the fact's rows would
        # let the intermediate join skip its other side
        d2 = g.alias('d2')
        other = g.pick([(f"(SELECT {d2}.*, {vol(d2)} AS c FROM {g.pick(DIMS)} {d2})", 3),
                        (f"(SELECT * FROM {g.pick(DIMS)} {d2} WHERE volb({d2}.id))", 2)])
        on2 = g.cond(g.key({'w', 'z'}), f, d2)
        if r.random() < 0.35:
            # flattened: the planner may put the volatile dimension's join below the filtered one
            vq = g.pick([(f"volb({d2}.id)", 3), (f"boom({d2}.id, {r.randrange(1, 2500)}) > 0", 1)])
            src = (f"(SELECT {f}.* FROM {ft} {f} JOIN {g.pick(DIMS)} {d2} ON {on2} "
                   f"WHERE {vq})")
        else:
            src = f"(SELECT {f}.* FROM {ft} {f} JOIN {other} {d2} ON {on2})"
            if r.random() < 0.5:
                src = src[:-1] + " OFFSET 0)"
    dt = g.pick(DIMS)
    key = g.cond(g.key({'x'}), s, d)
    if form == 'other_side':
        key = g.cond(g.pick([('int4', 3), ('text', 2), ('int4=int8', 1)]), s, d)
    if r.random() < (0.5 if form == 'other_side' else 0.3):
        # a build side of rows none of which matches (dim_a's keys above 4000 meet no fact's):
        # its filter empties the probe side, and a join below must still run its other side
        dt, where = 'dim_a', [f"{d}.k4 > 4001"]
    frm = f"{src} {s} JOIN {dt} {d} ON {key}"
    form_out = g.pick([('agg', 60), ('rows', 40)])
    if form_out == 'agg':
        q.stmts = [f"SELECT count(*), count(DISTINCT {s}.id), max({d}.id) FROM {frm} "
                   f"WHERE {' AND '.join(where)}"]
    else:
        q.stmts = [f"SELECT {s}.id, {d}.id FROM {frm} WHERE {' AND '.join(where)}"]
    q.serial_only = True     # nothing volatile runs in a parallel worker anyway


# join keys that postgres_fdw can ship a filter for (same type on both sides), and some it can
# not; ft is the foreign table's alias, d the local one's
FDW_KEYS = [("{f}.k4 = {d}.k4", 5), ("{f}.k8 = {d}.k8", 2), ("{f}.tx = {d}.tx", 3),
            ("{f}.vc = {d}.vc", 4), ("{f}.u = {d}.u", 2), ("{f}.k4 = {d}.k8", 1),
            ("{f}.w4 = {d}.k4", 1)]


def fdw_source(g):
    """(the probe side, its alias, the build side, its alias, the join condition): usually a
    foreign fact probed with a filter built from a local dimension"""
    f, d = g.alias('f'), g.alias('d')
    key = g.pick(FDW_KEYS)
    if g.r.random() < 0.2:
        key = key.replace("{f}.w4", "{f}.k4")
        return "ft_dim", f, g.pick(DIMS), d, key.format(f=f, d=d)
    if g.r.random() < 0.15:
        key = key.replace("{f}.w4", "{f}.k4")
        return "fact", f, "ft_dim", d, key.format(f=f, d=d)
    return "ft_fact", f, g.pick(DIMS), d, key.format(f=f, d=d)


def fdw_query(g, q):
    """a join with a postgres_fdw table (the loopback server with extensions 'bloomfilter'):
    inner, outer and semi joins, a generic plan, an UPDATE of a local table FROM it"""
    r = g.r
    pt, f, bt, d, on = fdw_source(g)
    dflt = g.dim_filter(d)
    form = g.pick([('join', 40), ('left', 10), ('exists', 10), ('prepared', 15),
                   ('update', 15), ('star', 10)])
    if form == 'join':
        q.stmts = [f"SELECT {f}.id, {d}.id, {f}.v FROM {pt} {f} JOIN {bt} {d} ON {on} "
                   f"WHERE {dflt}"]
    elif form == 'left':
        q.stmts = [f"SELECT count(*), count({d}.id), sum({f}.v) FROM {pt} {f} LEFT JOIN {bt} {d} "
                   f"ON {on} AND {dflt}"]
    elif form == 'exists':
        q.stmts = [f"SELECT count(*), sum({f}.v) FROM {pt} {f} WHERE EXISTS (SELECT 1 FROM {bt} "
                   f"{d} WHERE {on} AND {dflt})"]
    elif form == 'prepared':
        q.settings.append("plan_cache_mode = force_generic_plan")
        q.pre = ["DEALLOCATE ALL",
                 f"PREPARE q1(int) AS SELECT count(*), sum({f}.v), count(DISTINCT {d}.id) "
                 f"FROM {pt} {f} JOIN {bt} {d} ON {on} WHERE {d}.grp < $1"]
        q.stmts = ["EXECUTE q1(10)", "EXECUTE q1(50)", "EXECUTE q1(0)"]
        q.explain = q.stmts[0]
    elif form == 'update' and not bt.startswith('ft_'):
        q.stmts = [f"UPDATE {bt} {d} SET v = {d}.v + 1 FROM {pt} {f} WHERE {on} AND {dflt} "
                   f"RETURNING {d}.id, {d}.v, {f}.id"]
        row = "concat_ws(':', id, grp, v, k4, tx)"
        q.post = [f"SELECT md5(string_agg({row}, ',' ORDER BY {row})) FROM {bt}"]
    else:
        d2 = g.alias('d')
        q.stmts = [f"SELECT count(*), sum({f}.v), count(DISTINCT {d2}.id) FROM {pt} {f} "
                   f"JOIN {bt} {d} ON {on} JOIN {g.pick(DIMS)} {d2} ON {f}.id % 300 = {d2}.id "
                   f"WHERE {dflt} AND {g.dim_filter(d2)}"]


def routine_query(g, q):
    """the join run by PL/pgSQL with variables in its WHERE clause (a function returning the
    rows, a FOR loop, a DO block that writes its result, dynamic SQL with USING) or by an SQL
    function with parameters; generic plans now and then.  The join is local, with a foreign
    table, or over the tables whose statistics lie"""
    r = g.r
    src = g.pick([('local', 45), ('fdw', 35 if g.fdw else 0), ('stale', 20)])
    if src == 'fdw':
        pt, f, bt, d, on = fdw_source(g)
        sel = f"{f}.id, {d}.id, {f}.v"
        frm = f"{pt} {f} JOIN {bt} {d} ON {on}"
        lim_col, skip_col = f"{d}.grp", f"{f}.v"
    elif src == 'stale':
        f, d = g.alias('p'), g.alias('b')
        sel = f"{f}.id, {d}.k, {f}.v"
        frm = f"st_p {f} JOIN st_b {d} ON {g.pick(STALE_KEYS).format(p=f, b=d)}"
        frm += f" AND {g.pick(STALE_PRED).format(b=d)}"
        lim_col, skip_col = f"{d}.k % 100", f"{f}.v"
    else:
        ft, groups = g.fact()
        dt, _ = g.dim()
        f, d = g.alias('f'), g.alias('d')
        sel = f"{f}.id, {d}.id, {f}.v"
        frm = f"{ft} {f} JOIN {dt} {d} ON {g.cond(g.key(groups), f, d)}"
        lim_col, skip_col = f"{d}.grp", f"{f}.v"
    if r.random() < 0.5:
        q.settings.append("plan_cache_mode = force_generic_plan")
    body = f"FROM {frm} WHERE {lim_col} < v_lim AND {skip_col} <> v_skip"
    agg = (f"count(*), coalesce(sum({f}.v), 0), "
           f"count(DISTINCT {d}.{'k' if src == 'stale' else 'id'})")
    form = g.pick([('func', 30), ('loop', 15), ('do', 15), ('dynamic', 10), ('sql', 20),
                   ('sql_setof', 10)])
    calls = [(10, 5), (50, 7), (0, 0), (25, 3)]
    if form == 'func':
        q.pre = [f"CREATE FUNCTION pq(v_lim int, v_skip int) RETURNS SETOF text LANGUAGE plpgsql "
                 f"AS $f$BEGIN RETURN QUERY SELECT concat_ws(':', {sel}) {body}; END$f$"]
    elif form == 'loop':
        q.pre = [f"CREATE FUNCTION pq(v_lim int, v_skip int) RETURNS text LANGUAGE plpgsql AS "
                 f"$f$DECLARE rec record; n bigint := 0; s bigint := 0; BEGIN "
                 f"FOR rec IN SELECT {sel} {body} LOOP n := n + 1; s := s + rec.v; END LOOP; "
                 f"RETURN n || ':' || s; END$f$"]
    elif form == 'dynamic':
        dyn = body.replace('v_lim', '$1').replace('v_skip', '$2')
        q.pre = [f"CREATE FUNCTION pq(v_lim int, v_skip int) RETURNS SETOF text LANGUAGE plpgsql "
                 f"AS $f$BEGIN RETURN QUERY EXECUTE $q$SELECT concat_ws(':', {sel}) {dyn}$q$ "
                 f"USING v_lim, v_skip; END$f$"]
    elif form in ('sql', 'sql_setof'):
        sbody = body.replace('v_lim', '$1').replace('v_skip', '$2')
        if form == 'sql':
            q.pre = [f"CREATE FUNCTION pq(int, int) RETURNS text LANGUAGE sql AS "
                     f"$f$SELECT concat_ws(':', {agg}) {sbody}$f$"]
        else:
            q.pre = [f"CREATE FUNCTION pq(int, int) RETURNS SETOF text LANGUAGE sql "
                     f"{r.choice(['', 'STABLE '])}AS $f$SELECT concat_ws(':', {sel}) {sbody}$f$"]
    if form == 'do':
        blocks = []
        for lim, skip in calls[:3]:
            blocks.append(f"DO $d$DECLARE v_lim int := {lim}; v_skip int := {skip}; a bigint; "
                          f"b bigint; c bigint; BEGIN SELECT {agg} INTO a, b, c {body}; "
                          f"INSERT INTO sink VALUES (a, b, c::text); END$d$")
        q.stmts = blocks
        q.post = ["SELECT a, b, t FROM sink ORDER BY a, b, t"]
    else:
        q.stmts = [f"SELECT * FROM pq({lim}, {skip})" for lim, skip in calls]
    lit = body.replace('v_lim', str(calls[0][0])).replace('v_skip', str(calls[0][1]))
    q.explain = f"SELECT {sel} {lit}"
    q.serial_only = src == 'stale' and r.random() < 0.5


SHAPES = [('join', 30), ('star', 18), ('semi', 10), ('anti', 6), ('union', 5), ('lateral', 10),
          ('nestloop', 6), ('prepared', 7), ('dml', 8), ('guard', 3), ('stale', 8),
          ('sidefx', 8), ('routine', 8), ('fdw', 6)]


def make_query(seed, i, features):
    """query number i of the run with this seed; features: {'icu': the ci collation exists,
    'guc': the setting bloomfilter.join_filter exists, 'fdw': the loopback foreign tables exist,
    'shapes': the only shapes to make, or empty for all}"""
    r = random.Random(f"{seed}:{i}")
    g = Gen(r, features)
    q = Query()
    shapes = [(k, w) for k, w in SHAPES if (k != 'fdw' or g.fdw) and
              (not features.get('shapes') or k in features['shapes'])]
    q.shape = g.pick(shapes)
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
     'guard': guard_query, 'stale': stale_query, 'sidefx': sidefx_query,
     'routine': routine_query, 'fdw': fdw_query}[q.shape](g, q)
    q.serial_only = q.serial_only or g.fallible or q.shape == 'fdw'
    q.force_parallel = r.random() < 0.15 and q.shape != 'stale'
    q.analyze = r.random() < 0.15 or q.shape == 'guard'
    if q.explain is None:
        q.explain = q.stmts[0]
    return q
