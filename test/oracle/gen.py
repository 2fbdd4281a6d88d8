"""The oracle's query generator (test/oracle/oracle.py runs what it makes).

query(seed, i, ...) makes query number i of a run from a generator seeded with (seed, i)
alone, so one query can be replayed without the others.  A Query is a few statements run in
one transaction: 'pre' (PREPARE, not compared), 'stmts' (each one's rows compared), 'post'
(digests of the tables a statement wrote, compared), and 'explain', the statement whose plan
is checked for the custom scans.  The generator knows which of its queries may differ
legitimately between a serial and a parallel plan (rows picked by LIMIT without ORDER BY,
errors or side effects of rows a parallel plan reaches in another order, growing filters
built in parallel) and marks them serial_only, or for an aggregated growing filter gives the
query whose rows every built filter must contain ('members').

Each query is tagged with the classes of known bugs it can reach (see CLASSES): ORACLE_SKIP
leaves those classes out, for a branch that does not have the fix yet.
"""
import random
import re

from schema import GROWING, REL_COLS, ROLE, T_COLS, VARIANTS

CLASSES = {
    'toast': "text and bytea elements stored external in TOAST (issue 12, item 1)",
    'inherit': "the prefetching scan on an inheritance parent (issue 12, item 2)",
    'readahead': "quals or elements that can fail or have side effects, where reading "
                 "ahead can reach rows or calls the plain scan does not (issue 12, item 3)",
}


class Query:
    def __init__(self):
        self.pre = []
        self.explain = None
        self.stmts = []
        self.post = []
        self.settings = []
        self.role = None
        self.serial_only = False
        self.force_parallel = False
        self.members = None       # {column of the last statement's rows: SQL of its members}
        self.classes = set()
        self.shape = ''

    def text(self, names=None):
        """the statements; with names (filter text -> name), constant filters abbreviated"""
        if names:
            return re.sub(r"'([A-Za-z0-9+/=]{64,})'",
                          lambda m: f"'<{names.get(m.group(1), 'filter')}>'", self.text())
        lines = [f"-- shape {self.shape}; classes {sorted(self.classes) or '-'}; "
                 f"{'serial only' if self.serial_only else 'serial and parallel'}"]
        for s in self.settings:
            lines.append(f"SET {s};")
        if self.role:
            lines.append(f"SET ROLE {self.role};")
        for s in self.pre + self.stmts + self.post:
            lines.append(s + ';')
        return "\n".join(lines)


class Gen:
    def __init__(self, rng, texts, skip):
        self.r = rng
        self.texts = texts
        self.skip = skip
        self.fallible = False
        self.volatile = False
        self.null_filter = False
        self.early_stop = False
        self.growing_build = False
        self.varying = False
        self.rels = set()
        self.filter_srcs = set()

    # ---- small choices ----
    def pick(self, weighted):
        items = [(w, x) for x, w in weighted if w > 0]
        total = sum(w for w, _ in items)
        n = self.r.uniform(0, total)
        for w, x in items:
            n -= w
            if n <= 0:
                return x
        return items[-1][1]

    def rel(self, allowed=None):
        weights = [('t', 35), ('ip', 0 if 'inherit' in self.skip else 10), ('ONLY ip', 4),
                   ('pt', 12), ('rt', 7), ('mv', 5), ('tl', 8),
                   ('te', 0 if 'toast' in self.skip else 8), ('tm', 6), ('sbv', 3)]
        if allowed is not None:
            weights = [(x, w) for x, w in weights if x in allowed]
        r = self.pick(weights)
        self.rels.add(r)
        return r

    # ---- filters and elements ----
    def filter_src(self, rel, col):
        if rel in ('tl', 'te') and col in ('tx', 'by'):
            return rel
        if col in ('d', 'dt'):
            return 'tm'
        return 't'

    def filter_expr(self, rel, col, variant=None, allow_null=True):
        """an expression of a filter fixed for the scan, built over column col"""
        src = self.filter_src(rel, col)
        v = variant or self.r.choice(VARIANTS)
        fcol = col
        if src == 't' and self.r.random() < 0.05:
            fcol = self.r.choice(list(T_COLS))      # a filter of another element type
        name = f"{src}_{fcol}_{v}"
        self.filter_srcs.add(src)
        form = self.pick([('stored', 35), ('const', 25), ('initplan', 25),
                          ('null', 3 if allow_null else 0), ('addall', 7 if fcol == 'a' else 0)])
        if form == 'stored':
            return f"(SELECT f FROM filters WHERE name = '{name}')"
        if form == 'const':
            return f"'{self.texts[name]}'::bloomfilter"
        if form == 'null':
            self.null_filter = True
            return "NULL::bloomfilter"
        if form == 'addall':
            vals = ", ".join(str((g * 7919) % 4001) for g in range(3, 300, 9))
            return f"bloomfilter_add_all(bloomfilter_create(100, 0.01, '{v}'), ARRAY[{vals}])"
        # the filter built by a subquery (an InitPlan), as the stored one was
        if v in GROWING:
            self.growing_build = True
        mod = 3 if src == 't' else 2
        n = 1000 if src == 't' else 100
        return (f"(SELECT bloomfilter_agg(x.{fcol}, {n}, 0.01, '{v}') FROM {src} x "
                f"WHERE x.id % {mod} = 0)")

    def elem_expr(self, al, col, cuckoo=False):
        c = f"{al}.{col}"
        roll = self.r.random()
        if roll < 0.75:
            return c
        if col == 'a':
            if roll < 0.85:
                self.fallible = True
                return f"({c} + 100 / ({al}.id % 97 - 11) * 0)"
            # (a cuckoo filter of a column with heavy hitters is issue 12's item 5)
            return self.r.choice([f"({c} + 0)"] + ([] if cuckoo else [f"coalesce({c}, -1)"]))
        if col == 'tx':
            return self.r.choice([f"lower({c})", f"({c} || '')", f"substr({c}, 1, 32)"])
        if col == 'by':
            return f"({c} || '\\x'::bytea)"
        return c

    def bloom_qual(self, rel, al, col=None, variant=None):
        col = col or self.r.choice(REL_COLS[rel])
        f = self.filter_expr(rel, col, variant)
        e = self.elem_expr(al, col)
        form = self.pick([('contains', 60), ('contained', 30), ('func', 5), ('not', 5)])
        if form == 'contains':
            return f"{f} @> {e}"
        if form == 'contained':
            return f"{e} <@ {f}"
        if form == 'func':
            return f"bloomfilter_contains({f}, {e})"
        return f"NOT ({f} @> {e})"

    def extra_qual(self, rel, al):
        kind = self.pick([('plain', 60), ('fallible', 20), ('volatile', 20)])
        if kind == 'plain':
            return self.r.choice([
                f"{al}.k <> {self.r.randrange(10)}", f"{al}.k < {self.r.randrange(1, 10)}",
                f"{al}.id % 7 <> 3", f"{al}.a IS NOT NULL", f"{al}.tx LIKE '%a%'",
                f"{al}.id > {self.r.choice([10, 100, 1000])}",
                self.bloom_qual(rel, al) if self.r.random() < 0.5 else f"{al}.a % 5 <> 0"])
        if kind == 'fallible':
            self.fallible = True
            return self.r.choice([
                f"CASE WHEN {al}.id = {self.r.randrange(1, 60)} THEN 1 / ({al}.id - {al}.id) "
                f"ELSE 1 END = 1",
                f"10 / ({al}.id % 50 - 5) <> 0",
                f"CASE WHEN {al}.id = {self.r.randrange(1, 60)} THEN 'x' || {al}.id "
                f"ELSE '1' END::int = 1"])
        self.volatile = True
        return self.r.choice([
            "nextval('sq') > 0", "nextval('sq') % 3 <> 0", "random() < 0.7",
            f"logit({al}.id)", f"rnd_after({al}.id)"])

    def where(self, rel, al, bloom=True, nextra=None):
        quals = [self.bloom_qual(rel, al)] if bloom else []
        if nextra is None:
            nextra = self.pick([(0, 40), (1, 40), (2, 20)])
        quals += [self.extra_qual(rel, al) for _ in range(nextra)]
        self.r.shuffle(quals)
        return " AND ".join(quals) if quals else "true"

    def proj(self, rel, al):
        opts = [f"{al}.id", f"{al}.id, {al}.a", f"{al}.id, {al}.tx", f"{al}.*",
                f"{al}.id, {self.elem_expr(al, 'a')} <@ {self.filter_expr(rel, 'a', allow_null=False)}"]
        if rel == 't':
            opts.append(f"{al}.id, {al}.by, {al}.u, {al}.n, {al}.arr, {al}.bp")
        if rel not in ('sbv',):
            # system columns and the whole row (a child's converted to the parent's type)
            opts += [f"{al}.tableoid::regclass::text, {al}.ctid, {al}.id",
                     f"{al}::text", f"{al}.id, length({al}::text)"]
        if rel == 'tm':
            opts.append(f"{al}.id, {al}.d, {al}.dt")
        if rel in ('tl', 'te'):
            opts.append(f"{al}.id, {al}.kind, md5({al}.tx), md5({al}.by)")
        return self.r.choice(opts)

    # ---- aggregates ----
    def agg_call(self, rel, al, cols=None):
        """(sql, growing, element sql, FILTER condition or None)"""
        col = self.r.choice(cols or REL_COLS[rel])
        v = self.r.choice(VARIANTS)
        e = self.elem_expr(al, col, cuckoo=v == 'cuckoo')
        n = self.r.choice([50, 1000, 5000] if v == 'cuckoo' else [10, 100, 1000, 5000])
        p = self.r.choice(['0.01', '0.05'])
        form = self.pick([('full', 60), ('blocked', 15), ('one', 10), ('rate', 5),
                          ('varying', 5), ('filter', 5)])
        if form == 'full':
            return f"bloomfilter_agg({e}, {n}, {p}, '{v}')", v in GROWING, e, None
        if form == 'blocked':
            return f"bloomfilter_agg({e}, {n}, {p})", False, e, None
        if form == 'one':
            return f"bloomfilter_agg({e})", True, e, None
        if form == 'rate':
            return f"bloomfilter_agg({e}, {p})", True, e, None
        if form == 'varying':
            # each participant of a parallel plan sizes its filter by its first row: the
            # Agg's partial filters cannot be combined (22023), with the scan or without
            self.varying = True
            return (f"bloomfilter_agg({e}, ({al}.k + {n})::int8, {p}, '{v}')", v in GROWING, e,
                    None)
        cond = f"{al}.k <> 2"
        return f"bloomfilter_agg({e}, {n}, {p}, '{v}') FILTER (WHERE {cond})", v in GROWING, e, cond


def role_for(q, rels):
    if 'rt' in rels:
        q.role = ROLE


def make_query(seed, i, texts, skip):
    """query number i of the run with this seed, outside the skipped classes"""
    for attempt in range(1000):
        r = random.Random(f"{seed}:{i}:{attempt}")
        g = Gen(r, texts, skip)
        q = Query()
        build(g, q)
        classify(g, q)
        if not (q.classes & skip):
            return q
    raise RuntimeError(f"query {i}: every attempt falls in a skipped class")


def classify(g, q):
    if 'te' in g.rels or 'te' in g.filter_srcs:
        q.classes.add('toast')
    if 'ip' in g.rels:
        q.classes.add('inherit')
    if g.volatile or (g.fallible and g.early_stop) or \
            (g.null_filter and (g.fallible or g.volatile)):
        q.classes.add('readahead')
    # which rows reach a volatile qual, in which order, differs in a parallel plan (random())
    if g.volatile or (g.early_stop and g.fallible):
        q.serial_only = True
    if g.growing_build or g.varying:
        q.serial_only = True
    role_for(q, g.rels)
    if q.serial_only:
        q.members = None
    q.force_parallel = g.r.random() < 0.3


def build(g, q):
    shape = g.pick([('select', 14), ('limit', 10), ('exists', 5), ('cursor', 7), ('join_nl', 7),
                    ('lateral', 5), ('corr', 5), ('union', 5), ('dml', 10), ('forupdate', 4),
                    ('prepared', 6), ('agg', 16), ('agg_grouped', 3), ('agg_corr', 4)])
    q.shape = shape
    r = g.r
    if shape == 'select':
        rel = g.rel()
        sel = g.proj(rel, 'r') if r.random() < 0.7 else "count(*), count(r.a), min(r.id)"
        q.stmts = [f"SELECT {sel} FROM {rel} r WHERE {g.where(rel, 'r')}"]
    elif shape == 'limit':
        rel = g.rel()
        n = r.choice([1, 2, 3, 5, 10])
        ordered = r.random() < 0.4
        off = f" OFFSET {r.choice([1, 4])}" if r.random() < 0.2 else ""
        sql = f"SELECT {g.proj(rel, 'r')} FROM {rel} r WHERE {g.where(rel, 'r')}"
        if ordered:
            sql += " ORDER BY r.id"
        else:
            g.early_stop = True
            q.serial_only = True        # which rows: the scan's order
        q.stmts = [sql + f" LIMIT {n}{off}"]
    elif shape == 'exists':
        rel = g.rel()
        g.early_stop = True
        if r.random() < 0.5:
            q.stmts = [f"SELECT EXISTS (SELECT 1 FROM {rel} r WHERE {g.where(rel, 'r')})"]
        else:
            q.stmts = [f"SELECT s.id FROM small s WHERE EXISTS (SELECT 1 FROM {rel} r "
                       f"WHERE r.k = s.k AND {g.where(rel, 'r')}) ORDER BY 1"]
    elif shape == 'cursor':
        rel = g.rel()
        g.early_stop = True
        q.serial_only = True            # a cursor's plan is never parallel; rows in scan order
        sel = f"SELECT {g.proj(rel, 'r')} FROM {rel} r WHERE {g.where(rel, 'r')}"
        # a scrollable cursor may run a volatile function again for a row fetched again
        # (PostgreSQL's documentation of DECLARE), as often as its plan happens to
        scroll = r.random() < 0.3 and not g.volatile
        q.explain = sel
        q.pre = [f"DECLARE c1 {'SCROLL ' if scroll else ''}CURSOR FOR {sel}"]
        q.stmts = [f"FETCH {r.choice([1, 3, 5])} FROM c1"]
        if scroll:
            q.stmts += ["FETCH BACKWARD 2 FROM c1", "FETCH ABSOLUTE 1 FROM c1",
                        f"FETCH {r.choice([2, 4])} FROM c1"]
        elif r.random() < 0.5:
            q.stmts.append(f"FETCH {r.choice([2, 7])} FROM c1")
    elif shape == 'join_nl':
        rel = g.rel()
        q.settings = ["enable_hashjoin = off", "enable_mergejoin = off"]
        if r.random() < 0.5:
            q.settings.append("enable_material = off")
        w = g.where(rel, 'r')
        if r.random() < 0.5:
            q.stmts = [f"SELECT s.id, r.id, r.a FROM small s LEFT JOIN {rel} r "
                       f"ON r.k = s.k AND {w} ORDER BY 1, 2"]
        else:
            q.stmts = [f"SELECT s.id, r.id, r.tx FROM small s JOIN {rel} r ON r.k = s.k "
                       f"WHERE {w} ORDER BY 1, 2"]
    elif shape == 'lateral':
        rel = g.rel()
        n = r.choice([1, 2, 5])
        ordered = r.random() < 0.5
        if not ordered:
            g.early_stop = True
            q.serial_only = True
        q.stmts = [f"SELECT s.id, l.id, l.a FROM small s, LATERAL (SELECT r.id, r.a FROM {rel} r "
                   f"WHERE r.k = s.k AND {g.where(rel, 'r')}"
                   f"{' ORDER BY r.id' if ordered else ''} LIMIT {n}) l ORDER BY 1, 2"]
    elif shape == 'corr':
        rel = g.rel()
        w = g.where(rel, 'r')
        form = r.choice(['count', 'min', 'first', 'exists'])
        rows = f"FROM {rel} r WHERE r.k = s.k AND {w}"
        sub = {'count': f"(SELECT count(*) {rows})", 'min': f"(SELECT min(r.id) {rows})",
               'first': f"(SELECT r.id {rows} ORDER BY r.id LIMIT 1)",
               'exists': f"EXISTS (SELECT 1 {rows} OFFSET 0)"}[form]
        if form == 'exists':
            g.early_stop = True
        q.stmts = [f"SELECT s.id, {sub} FROM small s ORDER BY 1"]
    elif shape == 'union':
        r1, r2 = g.rel(), g.rel()
        sql = (f"SELECT r.id, r.a, r.tx FROM {r1} r WHERE {g.where(r1, 'r')} UNION ALL "
               f"SELECT r.id, r.a, r.tx FROM {r2} r WHERE {g.where(r2, 'r')}")
        if r.random() < 0.3:
            g.early_stop = True
            q.serial_only = True
            sql += f" LIMIT {r.choice([1, 3, 10])}"
        q.stmts = [sql]
    elif shape == 'dml':
        rel = g.rel(allowed={'t', 'ip', 'pt', 'rt', 'tl', 'te', 'tm'})
        w = g.where(rel, 'r')
        form = r.choice(['update', 'delete', 'insert', 'update_from', 'cte'])
        target = rel
        if form == 'update':
            sets = "k = r.k + 1" if rel == 'pt' and r.random() < 0.5 else "a = r.a + 1"
            q.stmts = [f"UPDATE {rel} r SET {sets} WHERE {w} RETURNING r.id, r.a, r.k"]
        elif form == 'delete':
            q.stmts = [f"DELETE FROM {rel} r WHERE {w} RETURNING r.id"]
        elif form == 'insert':
            lim = ""
            if r.random() < 0.3:
                g.early_stop = True
                lim = f" LIMIT {r.choice([1, 3])}"
            q.stmts = [f"INSERT INTO sink SELECT r.id, r.a FROM {rel} r WHERE {w}{lim}"]
            target = 'sink'
        elif form == 'update_from':
            q.stmts = [f"UPDATE sink x SET a = x.a + 1 FROM {rel} r WHERE r.id = x.id AND {w}"]
            q.pre = ["INSERT INTO sink SELECT g, g FROM generate_series(1, 3000, 7) g"]
            target = 'sink'
        else:
            q.stmts = [f"WITH d AS (DELETE FROM {rel} r WHERE {w} RETURNING r.id) "
                       f"SELECT count(*), sum(id) FROM d"]
        q.explain = q.stmts[0]
        q.post = [f"SELECT md5(string_agg(x::text, ',' ORDER BY x::text)) FROM {target} x"]
        if target != 'sink':
            q.post.append("SELECT md5(string_agg(x::text, ',' ORDER BY x::text)) FROM sink x")
    elif shape == 'forupdate':
        rel = g.rel(allowed={'t', 'ip', 'ONLY ip', 'pt', 'rt', 'tl', 'te'})
        lock = r.choice(['FOR UPDATE', 'FOR SHARE', 'FOR NO KEY UPDATE', 'FOR UPDATE SKIP LOCKED'])
        sql = f"SELECT r.id, r.a FROM {rel} r WHERE {g.where(rel, 'r')}"
        if r.random() < 0.3:
            g.early_stop = True
            q.serial_only = True
            sql += f" LIMIT {r.choice([1, 3])}"
        else:
            sql += " ORDER BY r.id"
        q.stmts = [f"{sql} {lock}"]
    elif shape == 'prepared':
        rel = g.rel(allowed={'t', 'ip', 'ONLY ip', 'pt', 'rt', 'mv', 'tl', 'te'})
        q.settings = ["plan_cache_mode = force_generic_plan"]
        if r.random() < 0.7:
            col = r.choice(REL_COLS[rel])
            src = g.filter_src(rel, col)
            g.filter_srcs.add(src)
            v1, v2 = r.choice(VARIANTS), r.choice(VARIANTS)
            e = g.elem_expr('r', col)
            extra = f" AND {g.extra_qual(rel, 'r')}" if r.random() < 0.4 else ""
            op = f"$1 @> {e}" if r.random() < 0.6 else f"{e} <@ $1"
            q.pre = ["DEALLOCATE ALL",
                     f"PREPARE q1(bloomfilter, int) AS SELECT {g.proj(rel, 'r')} FROM {rel} r "
                     f"WHERE {op} AND r.k <> $2{extra}"]
            ex1 = f"EXECUTE q1('{g.texts[f'{src}_{col}_{v1}']}', 3)"
            q.stmts = [ex1, f"EXECUTE q1('{g.texts[f'{src}_{col}_{v2}']}', 5)",
                       "EXECUTE q1(NULL, 1)"]
            q.explain = ex1
        else:
            call, growing, e, cond = g.agg_call(rel, 'r')
            if growing:
                q.serial_only = True
            q.pre = ["DEALLOCATE ALL",
                     f"PREPARE q1(int) AS SELECT {call} FROM {rel} r WHERE r.k <> $1"]
            q.stmts = ["EXECUTE q1(3)", "EXECUTE q1(7)"]
            q.explain = "EXECUTE q1(3)"
    elif shape == 'agg':
        build_agg(g, q)
    elif shape == 'agg_grouped':
        rel = g.rel()
        call, growing, e, cond = g.agg_call(rel, 'r')
        if growing:
            q.serial_only = True
        w = g.where(rel, 'r') if r.random() < 0.7 else "true"
        q.stmts = [f"SELECT r.k, {call} FROM {rel} r WHERE {w} GROUP BY r.k ORDER BY 1"]
    elif shape == 'agg_corr':
        rel = g.rel()
        call, growing, e, cond = g.agg_call(rel, 'r')
        if growing:
            q.serial_only = True
        w = g.where(rel, 'r', bloom=r.random() < 0.5)
        if r.random() < 0.5:
            q.stmts = [f"SELECT s.id, (SELECT {call} FROM {rel} r WHERE r.k = s.k AND {w}) "
                       f"FROM small s ORDER BY 1"]
        else:
            q.settings = ["enable_hashjoin = off", "enable_mergejoin = off"]
            q.stmts = [f"SELECT s.id, x.f FROM small s, LATERAL (SELECT {call} AS f FROM {rel} r "
                       f"WHERE r.k = s.k AND {w}) x ORDER BY 1"]
    if q.explain is None and len(q.stmts) == 1:
        q.explain = q.stmts[0]


def build_agg(g, q):
    r = g.r
    src = g.pick([('single', 75), ('join', 10), ('union', 15)])
    if src == 'single':
        rel = g.rel()
        frm = f"{rel} r"
        cols = None
        wh = g.pick([('bloom', 60), ('extra', 20), ('none', 20)])
        w = {'bloom': lambda: g.where(rel, 'r'),
             'extra': lambda: g.where(rel, 'r', bloom=False, nextra=1),
             'none': lambda: "true"}[wh]()
    elif src == 'join':
        rel = g.rel()
        frm = f"small s JOIN {rel} r ON r.k = s.k"
        cols = None
        w = g.where(rel, 'r') if r.random() < 0.5 else "true"
    else:
        r1, r2 = g.rel(), g.rel()
        rel = 'ONLY ip'       # only columns common to every relation
        frm = (f"(SELECT r.id, r.k, r.a, r.tx FROM {r1} r WHERE {g.where(r1, 'r')} UNION ALL "
               f"SELECT r.id, r.k, r.a, r.tx FROM {r2} r WHERE {g.where(r2, 'r')}) r")
        cols = ['a', 'tx']
        w = "true"
    calls = [g.agg_call(rel, 'r', cols) for _ in range(g.pick([(1, 75), (2, 25)]))]
    items = []
    members = {}
    wrapped = False
    for j, (call, growing, e, cond) in enumerate(calls):
        wrap = g.pick([('plain', 80), ('contains', 8), ('isnull', 4), ('bytea', 4), ('card', 4)])
        if wrap == 'plain':
            items.append(call)
            if growing:
                cw = f"({w}) AND ({cond})" if cond else w
                members[len(items) - 1] = f"SELECT {e} FROM {frm} WHERE {cw}"
        else:
            wrapped = wrapped or growing
            items.append({'contains': f"{call} @> 42", 'isnull': f"{call} IS NULL",
                          'bytea': f"md5(({call})::bytea)",
                          'card': f"round(bloomfilter_cardinality({call}))"}[wrap])
    if r.random() < 0.1:
        items.append("count(*)")
    if r.random() < 0.05:
        items.append("row_number() OVER ()")
    having = ""
    if r.random() < 0.15:
        having = " HAVING " + r.choice([f"{calls[0][0]} IS NOT NULL", f"{calls[0][0]} @> 42",
                                        "count(*) > 10"])
        wrapped = wrapped or calls[0][1]
    select = f"{', '.join(items)} FROM {frm} WHERE {w}"
    sql = f"SELECT {select}{having}"
    form = g.pick([('plain', 80), ('group_empty', 4), ('rollup', 3), ('distinct', 3),
                   ('subquery', 4), ('cte', 3), ('union', 3)])
    sql = {'plain': sql,
           'group_empty': f"SELECT {select} GROUP BY (){having}",
           'rollup': f"SELECT {select} GROUP BY ROLLUP (r.k){having}",
           'distinct': f"SELECT DISTINCT {select}{having}",
           'subquery': f"SELECT x.* FROM ({sql} OFFSET 0) x",
           'cte': f"WITH x AS MATERIALIZED ({sql}) SELECT * FROM x",
           'union': f"{sql} UNION ALL {sql}"}[form]
    wrapped = wrapped or form == 'rollup'
    q.stmts = [sql]
    if wrapped:
        q.serial_only = True
    elif members:
        q.members = members
