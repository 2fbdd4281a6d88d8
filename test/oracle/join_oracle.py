#!/usr/bin/python3
"""A differential oracle for automatic Bloom join filters (run by test/cluster/join_oracle.sh).

Generates seeded random join queries (join_gen.py) over the tables of join_schema.py and runs
each one in several configurations of bloomfilter.join_filter:

    off               off, serial (the reference)
    always            always (every eligible hash join gets a filter), serial
    always-probe      always, serial, bloomfilter.prefetch_scan = off (probe nodes above the
                      sequential scans that 'always' replaces by join scans)
    on                on (filters where the estimates say they pay, with the run-time guard;
                      the planner may choose another plan for a filter: on_replanned counts the
                      queries whose plan, the extension's nodes aside, differs from off's)
    off-par           off, parallel plans forced (parallel_setup_cost = 0, ...)
    always-par        always, parallel
    always-par-noldr  always, parallel, parallel_leader_participation = off
    on-par            on, parallel

Every configuration must give the reference's rows (as a multiset), its SQLSTATE (or none), the
calls its volatile and leaky functions made (the sequence cnt afterwards) and, for a statement
that writes, the digest of the table written.  Queries with quals that raise an error on some
rows run in the serial configurations only (join_gen.py says why).

Besides join_gen.py's plain queries over truthful statistics, the generator makes queries over
tables whose statistics lie (build sides 10 to 1,000 times their estimates, serial and under
Parallel Hash), with side effects and errors in every level of the probe subtree, run from
PL/pgSQL with variables and from SQL functions, and over postgres_fdw foreign tables of a
loopback server (join_schema.py; the foreign ones when postgres_fdw is installed), while a role
that may create objects in public has defined @> operators of its own.  Then EvalPlanQual
cases (join_epq.py) run in the serial configurations with a second session that updates a row
the query waits for.

Plans are checked too: EXPLAIN (VERBOSE) must not fail where the reference's does not; with the
setting off no "bloomfilter join" node may appear; a build node may sit only below the Hash of
an inner, semi or right join (right anti on 16+, right semi on 18+).  The run fails when too few
of the queries with such a hash join got a build node in 'always' or 'always-par', so that it
cannot silently compare plain plans with plain plans.  For a sample of queries EXPLAIN (ANALYZE,
VERBOSE) in 'always', 'on' and 'always-par' must not fail where the query does not, and in a
serial plan a build node must return as many rows as its child, a probe node no more (the counts
printed say how many probes dropped rows, how many hash joins with a filter spilled to batches,
and how often the guard of 'on' paused a filter).  A lost connection (a crash) or an SQLSTATE
XX000 fails the run at once.

Environment: ORACLE_SEED (default 1), ORACLE_QUERIES (default 400), ORACLE_EPQ (EvalPlanQual
cases, default 12), ORACLE_REPLAY (a query number, or epq:N: run that one alone and print its
SQL, plans and results), ORACLE_SHAPES (comma-separated shapes of join_gen.SHAPES: make only
those), ORACLE_CONFIGS (comma-separated configurations to compare with 'off', default all),
ORACLE_MAX_REPORTS (mismatches printed in full, default 5).  Connects through the PG*
variables; the database must load the library in every session (session_preload_libraries, which
join_oracle.sh sets).  Exit status 0 when every comparison holds, 1 otherwise.
"""
import os
import re
import sys
import threading
import time

import psycopg2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import join_schema  # noqa: E402
import join_epq  # noqa: E402
from gen import Query  # noqa: E402
from join_gen import SHAPES as SHAPES_ALL, make_query  # noqa: E402
from oracle import (Crash, Failed, connect, diff, is_lost, norm_row,  # noqa: E402
                    row_key, run_while_blocked, say, short)

SEED = os.environ.get('ORACLE_SEED', '1')
NQ = int(os.environ.get('ORACLE_QUERIES', '400'))
NEPQ = int(os.environ.get('ORACLE_EPQ', '12'))
SHAPES = {s for s in os.environ.get('ORACLE_SHAPES', '').replace(' ', ',').split(',') if s}
REPLAY = os.environ.get('ORACLE_REPLAY', '')
MAX_REPORTS = int(os.environ.get('ORACLE_MAX_REPORTS', '5'))

PAR = ["parallel_setup_cost = 0", "parallel_tuple_cost = 0", "min_parallel_table_scan_size = 0",
       "min_parallel_index_scan_size = 0", "max_parallel_workers_per_gather = 2"]
# (name, bloomfilter.join_filter, parallel_leader_participation or None for a serial plan,
# bloomfilter.prefetch_scan or None for its default)
CONFIGS = [
    ('off', 'off', None, None),
    ('always', 'always', None, None),
    ('always-probe', 'always', None, 'off'),
    ('on', 'on', None, None),
    ('off-par', 'off', 'on', None),
    ('always-par', 'always', 'on', None),
    ('always-par-noldr', 'always', 'off', None),
    ('on-par', 'on', 'on', None),
]
# ORACLE_CONFIGS: only these configurations besides the reference 'off' (for a replay)
PICK = {c for c in os.environ.get('ORACLE_CONFIGS', '').replace(' ', ',').split(',') if c}
if PICK:
    CONFIGS = [c for c in CONFIGS if c[0] == 'off' or c[0] in PICK]
SERIAL = [c for c in CONFIGS if c[2] is None]
ANALYZED = ('always', 'always-probe', 'on', 'always-par')

BUILD = 'Custom Scan (bloomfilter join build)'
PROBE = 'Custom Scan (bloomfilter join probe)'
JOIN_SCAN = 'Custom Scan (bloomfilter join scan)'
# the fraction of the queries with an eligible hash join that must get a build node
NEED = {'always': 0.4, 'always-par': 0.2, 'always-dml': 0.4}


def plan_shape(plan):
    """the nodes of a text plan without the extension's (a join scan read as the sequential scan
    it replaces): what PostgreSQL chose"""
    shape = []
    for _, name in plan_nodes(plan or ''):
        if name.startswith(BUILD) or name.startswith(PROBE):
            continue
        name = name.replace(JOIN_SCAN, 'Seq Scan')
        shape.append(re.sub(r'  \(.*$', '', name))
    return shape


def hash_join_types(version):
    """the hash joins that may get a filter, and those that may not, as EXPLAIN names them"""
    may = {'Hash Join', 'Hash Semi Join', 'Hash Right Join'}
    if version >= 160000:
        may.add('Hash Right Anti Join')
    if version >= 180000:
        may.add('Hash Right Semi Join')
    return may, {'Hash Left Join', 'Hash Full Join', 'Hash Anti Join'}


def plan_nodes(plan):
    """(indentation, name) of each node of a text plan; the top node's indentation is -1"""
    nodes = []
    for n, line in enumerate(plan.splitlines()):
        m = re.match(r'^( *)->  (.*)$', line)
        if m:
            nodes.append((len(m.group(1)), m.group(2)))
        elif n == 0:
            nodes.append((-1, line))
    return [(ind, re.sub(r'^Parallel ', '', name)) for ind, name in nodes]


def ancestors(nodes, j):
    """names of node j's parent, grandparent, ..."""
    out, ind = [], nodes[j][0]
    for k in range(j - 1, -1, -1):
        if nodes[k][0] < ind:
            out.append(nodes[k][1])
            ind = nodes[k][0]
    return out


def analyzed_plan(node, seen):
    """what is wrong with a plan of EXPLAIN (ANALYZE, FORMAT JSON): a build node must return its
    child's rows, a probe node no more; adds to seen what the filters did ('dropped' rows, a
    build below a hash join that 'spilled' to batches, a guard that 'paused' a filter)"""
    errs = []
    kids = node.get('Plans', [])
    prov = node.get('Custom Plan Provider', '')
    if prov.startswith('bloomfilter join') and len(kids) == 1 and \
            kids[0].get('Actual Loops') == node.get('Actual Loops'):
        mine, child = node.get('Actual Rows'), kids[0].get('Actual Rows')
        if (prov == 'bloomfilter join build' and mine != child) or \
                (prov == 'bloomfilter join probe' and mine > child):
            errs.append(f"{prov} returned {mine} rows of its child's {child}")
    if prov in ('bloomfilter join probe', 'bloomfilter join scan') and \
            node.get('Rows Removed by Bloom Join Filter', 0) > 0:
        seen.add('dropped')
    if 'Bloom Join Filter Paused' in node:
        seen.add('paused')
    if node.get('Hash Batches', 1) > 1 and \
            any(k.get('Custom Plan Provider') == 'bloomfilter join build' for k in kids):
        seen.add('spilled')
    for k in kids:
        errs += analyzed_plan(k, seen)
    return errs


class Runner:
    def __init__(self):
        self.conn = connect()
        self.cur = self.conn.cursor()
        self.version = self.conn.server_version
        self.may, self.may_not = hash_join_types(self.version)
        self.force_guc = 'debug_parallel_query' if self.version >= 160000 else 'force_parallel_mode'
        self.features = {}
        self.executions = 0
        self.cov = {k: 0 for k in (
            'hash_join', 'build', 'probe', 'join_scan', 'build_rescanned', 'probe_in_append',
            'probe_node', 'par_hash_join', 'par_build', 'par_probe', 'par_join_scan',
            'noldr_build', 'on_build', 'on_replanned',
            'analyzed', 'analyzed_dropped', 'analyzed_spilled', 'on_paused', 'errors',
            'serial_only', 'stale_par_build', 'fdw_remote_filter', 'counted_calls',
            'epq_blocked', 'epq_build', 'dml_hash_join', 'dml_build')}
        self.build_under = {}
        self.shapes = {}
        self.secs = {}
        self.mismatches = []

    # ---- set-up ----
    def setup(self):
        c = self.cur
        c.execute("SHOW session_preload_libraries")
        if 'bloomfilter' not in c.fetchone()[0]:
            raise Failed("the database does not preload the library: ALTER DATABASE ... SET "
                         "session_preload_libraries = 'bloomfilter' (join_oracle.sh does)")
        c.execute("SELECT count(*) > 0 FROM pg_settings WHERE name = 'bloomfilter.join_filter'")
        guc = c.fetchone()[0]
        if not guc:
            say("note: the library defines no bloomfilter.join_filter: every configuration "
                "runs the same plans")
        c.execute("SELECT count(*) > 0 FROM pg_collation WHERE collprovider = 'i'")
        icu = c.fetchone()[0]
        if not icu:
            say("note: no ICU: the keys of a nondeterministic collation are left out")
        c.execute("SELECT count(*) > 0 FROM pg_available_extensions WHERE name = 'postgres_fdw'")
        fdw = c.fetchone()[0]
        if not fdw:
            say("note: no postgres_fdw: the queries over foreign tables are left out")
        unknown = SHAPES - {k for k, _ in SHAPES_ALL}
        if unknown:
            raise Failed(f"unknown ORACLE_SHAPES {sorted(unknown)}; known: "
                         f"{[k for k, _ in SHAPES_ALL]}")
        self.features = {'icu': icu, 'guc': guc, 'fdw': fdw, 'shapes': SHAPES}
        sqls = join_schema.setup_sql(icu)
        if fdw:
            c.execute("SELECT current_database(), current_user")
            db, user = c.fetchone()
            sqls += join_schema.fdw_setup_sql(db, os.environ.get('PGHOST') or 'localhost',
                                              os.environ.get('PGPORT') or '5432', user,
                                              os.environ.get('PGPASSWORD', ''))
        for sql in sqls:
            try:
                c.execute(sql)
            except psycopg2.Error as e:
                raise Failed(f"set-up: SQLSTATE {e.pgcode}: {short(str(e), 500)}\n"
                             f"in: {short(sql.strip(), 500)}")
        c.execute("SELECT id FROM epl WHERE grp < 5 ORDER BY id")
        self.epq_ids = [x for x, in c.fetchall()]
        for desc, sql in join_schema.storage_checks():
            c.execute(sql)
            if c.fetchone()[0] is not True:
                raise Failed(f"set-up: not true: {desc}")

    def settings_sql(self, cfg, q):
        name, mode, leader, prefetch = cfg
        # no JIT: the cost of a disabled join method would have every such query compiled
        s = ["statement_timeout = '60s'", "synchronize_seqscans = off", "jit = off",
             "enable_hashjoin = on"]
        if self.features['guc']:
            s.append(f"bloomfilter.join_filter = {mode}")
        if prefetch is not None:
            s.append(f"bloomfilter.prefetch_scan = {prefetch}")
        if leader is None:
            s.append("max_parallel_workers_per_gather = 0")
        else:
            s += PAR + [f"parallel_leader_participation = {leader}"]
            if q.force_parallel:
                s.append(f"{self.force_guc} = on")
        return "".join(f"SET LOCAL {x}; " for x in s + q.settings)

    def begin(self, cfg, q):
        self.cur.execute("BEGIN")
        self.cur.execute(self.settings_sql(cfg, q))

    # ---- one execution ----
    def run(self, q, cfg):
        """the observable outcome of query q in configuration cfg"""
        c = self.cur
        self.executions += 1
        out = {'err': None, 'msg': None, 'rows': [], 'side': None, 'plan': None,
               'explain_err': None}
        try:
            c.execute("SELECT setval('cnt', 1, false)")
            self.begin(cfg, q)
            try:
                for s in q.pre:
                    c.execute(s)
                c.execute("SAVEPOINT e")
                try:
                    c.execute("EXPLAIN (VERBOSE, COSTS OFF) " + q.explain)
                    out['plan'] = "\n".join(r[0] for r in c.fetchall())
                    c.execute("RELEASE e")
                except psycopg2.Error as e:
                    if is_lost(self.conn, e):
                        raise
                    out['explain_err'], out['explain_msg'] = e.pgcode, e.pgerror
                    c.execute("ROLLBACK TO e")
                for s in q.stmts:
                    c.execute(s)
                    out['rows'].append(None if c.description is None else
                                       sorted((norm_row(r, c.description) for r in c.fetchall()),
                                              key=row_key))
                side = []
                for s in q.post:
                    c.execute(s)
                    side.append(c.fetchall())
                out['side'] = side
            except psycopg2.Error as e:
                if is_lost(self.conn, e):
                    raise
                out['err'] = e.pgcode
                out['msg'] = (e.pgerror or str(e)).strip().splitlines()[0]
            c.execute("ROLLBACK")
            c.execute("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM cnt")
            out['calls'] = c.fetchone()[0]
            if q.analyze and cfg[0] in ANALYZED:
                out['analyze_err'] = self.analyze(q, cfg)
        except psycopg2.Error as e:
            if is_lost(self.conn, e):
                raise Crash(str(e))
            raise
        for what, code, msg in (('the query', out['err'], out['msg']),
                                ('EXPLAIN', out['explain_err'], out.get('explain_msg'))):
            if code == 'XX000':
                out['internal'] = f"{what}: internal error XX000: {msg}"
        if 'SQLSTATE XX000' in (out.get('analyze_err') or ''):
            out['internal'] = out['analyze_err']
        return out

    def analyze(self, q, cfg):
        """EXPLAIN ANALYZE of the query: None, or what went wrong (SQLSTATE, pass-through)"""
        c = self.cur
        self.cov['analyzed'] += cfg[0] == 'always'
        self.begin(cfg, q)
        try:
            for s in q.pre:
                c.execute(s)
            c.execute("EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON) " + q.explain)
            seen = set()
            errs = analyzed_plan(c.fetchone()[0][0]['Plan'], seen)
            if cfg[0] == 'always':
                self.cov['analyzed_dropped'] += 'dropped' in seen
                self.cov['analyzed_spilled'] += 'spilled' in seen
            self.cov['on_paused'] += cfg[0] == 'on' and 'paused' in seen
            if cfg[2] is not None:
                errs = []   # a parallel plan's rows are averages over its processes
            res = f"EXPLAIN ANALYZE: {'; '.join(errs)}" if errs else None
        except psycopg2.Error as e:
            if is_lost(self.conn, e):
                raise
            res = f"EXPLAIN ANALYZE: SQLSTATE {e.pgcode}: {(e.pgerror or '').strip()[:300]}"
        c.execute("ROLLBACK")
        return res

    # ---- checks ----
    def differ(self, ref, out):
        """a description of how out differs from ref, or None"""
        if ref['err'] != out['err']:
            return f"SQLSTATE {ref['err']} ({ref['msg']}) vs {out['err']} ({out['msg']})"
        if ref['explain_err'] is None and out['explain_err'] is not None:
            return f"EXPLAIN: SQLSTATE {out['explain_err']} ({out.get('explain_msg')})"
        if ref['side'] != out['side']:
            return f"rows written: {ref['side']} vs {out['side']}"
        if ref['calls'] != out['calls']:
            return (f"calls of the volatile functions (the sequence cnt): {ref['calls']} vs "
                    f"{out['calls']}")
        if out.get('analyze_err') and (out['err'] is None or 'SQLSTATE' not in out['analyze_err']):
            return out['analyze_err']
        for n, (a, b) in enumerate(zip(ref['rows'], out['rows'])):
            if a != b:
                return (f"statement {n + 1}: rows {len(a or [])} vs {len(b or [])}; "
                        f"only in reference: {short(diff(a, b))}; only here: {short(diff(b, a))}")
        return None

    def plan_checks(self, q, cfg, out):
        """None, or what is wrong with the plan; counts what the plan covers"""
        plan = out['plan']
        if plan is None:
            return None
        name, mode, leader, _ = cfg
        if mode == 'off':
            return "a join filter with the setting off" if 'bloomfilter join' in plan else None
        nodes = plan_nodes(plan)
        eligible = any(n in self.may for _, n in nodes)
        builds = [j for j, (_, n) in enumerate(nodes) if n.startswith(BUILD)]
        probes = [j for j, (_, n) in enumerate(nodes)
                  if n.startswith(PROBE) or n.startswith(JOIN_SCAN)]
        scans = [j for j in probes if nodes[j][1].startswith(JOIN_SCAN)]
        for j in builds:
            up = ancestors(nodes, j)
            join = up[1] if len(up) > 1 and up[0] == 'Hash' else f"{' < '.join(up[:2])} (no Hash?)"
            if name == 'always':
                self.build_under[join] = self.build_under.get(join, 0) + 1
            if join in self.may_not or join.endswith('(no Hash?)'):
                return f"a build node below {join}"
        if name == 'always':
            self.cov['hash_join'] += eligible
            self.cov['build'] += bool(builds)
            if q.shape == 'dml':
                self.cov['dml_hash_join'] += eligible
                self.cov['dml_build'] += bool(builds)
            self.cov['probe'] += bool(probes)
            self.cov['join_scan'] += bool(scans)
            if builds and re.search(r'SubPlan|Nested Loop', plan):
                self.cov['build_rescanned'] += 1
            if any(ancestors(nodes, j)[:1] == ['Append'] for j in probes):
                self.cov['probe_in_append'] += 1
        if name in ('always-par', 'on-par') and q.shape == 'stale' and builds and \
                'Parallel Hash' in plan:
            self.cov['stale_par_build'] += 1
        if name == 'always' and re.search(r'Remote SQL: .*IS NULL\)* OR .*@>', plan):
            self.cov['fdw_remote_filter'] += 1
        if name == 'always-par':
            self.cov['par_hash_join'] += eligible
            self.cov['par_build'] += bool(builds)
            self.cov['par_probe'] += bool(probes)
            self.cov['par_join_scan'] += bool(scans)
        elif name == 'always-probe':
            if scans:
                return "a join scan with bloomfilter.prefetch_scan off"
            self.cov['probe_node'] += bool(probes)
        elif name == 'always-par-noldr':
            self.cov['noldr_build'] += bool(builds)
        elif name == 'on':
            self.cov['on_build'] += bool(builds)
        return None

    # ---- EvalPlanQual ----
    def run_epq(self, case, cfg, b, mon):
        """A runs the case's statement in configuration cfg while B holds the row it needs"""
        c = self.cur
        self.executions += 1
        for s in join_epq.RESET:
            c.execute(s)
        bc = b.cursor()
        bc.execute("BEGIN")
        bc.execute(case.writer)
        c.execute("SELECT pg_backend_pid()")
        pid = c.fetchone()[0]
        c.execute("BEGIN")
        q = Query()
        q.settings = list(join_epq.SETTINGS)
        c.execute(self.settings_sql(cfg, q))
        for s in case.pre:
            c.execute(s)
        if cfg[0] == 'always' and 'epq_run' not in case.query:
            # (EXPLAIN takes no row lock: it does not wait for B)
            c.execute("EXPLAIN (COSTS OFF) " + case.query)
            self.cov['epq_build'] += any(BUILD in r[0] for r in c.fetchall())
        out, blocked = run_while_blocked(c, pid, case.query, bc, mon)
        e = out.pop('exc', None)
        if e is not None:
            if is_lost(self.conn, e):
                raise Crash(str(e))
            out['err'] = e.pgcode
            out['msg'] = (e.pgerror or str(e)).strip().splitlines()[0]
            c.execute("ROLLBACK")
        else:
            c.execute(case.digest)
            out['digest'] = c.fetchall()
            c.execute("ROLLBACK")
        out['blocked'] = blocked
        return out

    def check_epq(self, j, b, mon, verbose=False):
        case = join_epq.make_epq(SEED, j, self.features['fdw'], self.epq_ids)
        if verbose:
            say(case.text())
        ref = None
        for cfg in SERIAL:
            try:
                out = self.run_epq(case, cfg, b, mon)
            except Crash as e:
                raise Failed(f"EvalPlanQual case {j}: the server connection was lost in "
                             f"configuration {cfg[0]} (a crash?): {e}\n{case.text()}\n"
                             f"{replay_hint(f'epq:{j}')}")
            if verbose:
                say(f"---- {cfg[0]}: {out}")
            if out['err'] == 'XX000':
                raise Failed(f"EvalPlanQual case {j}, configuration {cfg[0]}: internal error "
                             f"XX000: {out.get('msg')}\n{case.text()}\n{replay_hint(f'epq:{j}')}")
            if ref is None:
                ref = out
                self.cov['epq_blocked'] += out['blocked']
            elif out != ref:
                brief = lambda o: (f"SQLSTATE {o['err']} ({o.get('msg')}), "
                                   f"{len(o['rows'] or [])} rows, blocked {o['blocked']}, "
                                   f"table afterwards {o.get('digest')}")
                d = f"{brief(ref)} vs {brief(out)}"
                if ref['rows'] != out['rows']:
                    d += (f"; only in reference: {short(diff(ref['rows'], out['rows']))}; "
                          f"only here: {short(diff(out['rows'], ref['rows']))}")
                self.mismatches.append((f"epq:{j}", cfg[0], d, case))
                break

    def check_query(self, i, verbose=False):
        q = make_query(SEED, i, self.features)
        self.shapes[q.shape] = self.shapes.get(q.shape, 0) + 1
        t0 = time.time()
        try:
            self.check_configs(i, q, verbose)
        finally:
            self.secs[q.shape] = self.secs.get(q.shape, 0) + time.time() - t0

    def check_configs(self, i, q, verbose):
        self.cov['serial_only'] += q.serial_only
        if verbose:
            say(q.text())
        ref = None
        for cfg in SERIAL if q.serial_only else CONFIGS:
            try:
                out = self.run(q, cfg)
            except Crash as e:
                raise Failed(f"query {i}: the server connection was lost in configuration "
                             f"{cfg[0]} (a crash?): {e}\n{q.text()}\n{replay_hint(i)}")
            if verbose:
                say(f"---- {cfg[0]}: SQLSTATE {out['err']} {out['msg'] or ''}\n"
                    f"rows {[None if r is None else len(r) for r in out['rows']]}: "
                    f"{short(out['rows'], 600)}\nwritten {short(out['side'])}")
                say(out['plan'] or f"(no plan: {out['explain_err']} {out.get('explain_msg')})")
                if out.get('analyze_err'):
                    say(out['analyze_err'])
            if 'internal' in out:
                raise Failed(f"query {i}, configuration {cfg[0]}: {out['internal']}\n"
                             f"{q.text()}\n{replay_hint(i)}")
            d = self.plan_checks(q, cfg, out)
            if cfg[0] == 'on' and ref is not None and out['plan'] and ref['plan']:
                self.cov['on_replanned'] += plan_shape(out['plan']) != plan_shape(ref['plan'])
            if ref is None:
                ref = out
                self.cov['errors'] += out['err'] is not None
                self.cov['counted_calls'] += out['calls'] > 0
            d = d or self.differ(ref, out)
            if d:
                self.mismatches.append((i, cfg[0], d, q))
                if verbose:
                    say(f"MISMATCH in {cfg[0]}: {d}")
                break


def replay_hint(i):
    return f"replay: ORACLE_SEED={SEED} ORACLE_REPLAY={i} bash test/cluster/join_oracle.sh"


def coverage_ok(rn):
    """the run is not a comparison of plain plans: enough queries got join filters"""
    ok = True
    for name, (have, of) in {'always': ('build', 'hash_join'),
                             'always-par': ('par_build', 'par_hash_join'),
                             'always-dml': ('dml_build', 'dml_hash_join')}.items():
        need = NEED[name] * rn.cov[of]
        if rn.cov[have] < need:
            say(f"too little coverage: {rn.cov[have]} queries with a build node in {name}, "
                f"fewer than {NEED[name]:.0%} of the {rn.cov[of]} with an eligible hash join")
            ok = False
    # the new dimensions were exercised: (count, minimum, what), when the run made such queries
    shapes = rn.shapes
    for have, need, what in (
            (rn.cov['stale_par_build'], 1 if shapes.get('stale', 0) >= 10 else 0,
             "queries over lying statistics with a build node below a Parallel Hash"),
            (rn.cov['fdw_remote_filter'], 1 if shapes.get('fdw', 0) >= 10 else 0,
             "foreign scans whose Remote SQL tests a filter"),
            (rn.cov['counted_calls'], 1 if shapes.get('sidefx', 0) >= 10 else 0,
             "queries whose volatile functions were called"),
            (rn.cov['on_replanned'], 1 if NQ >= 400 else 0,
             "queries whose plan the setting on changed (the planner's choice of a filter)"),
            (rn.cov['epq_blocked'], NEPQ // 2 if NEPQ >= 4 else 0,
             "EvalPlanQual cases that blocked on the writer's row"),
            (rn.cov['epq_build'], NEPQ // 4 if NEPQ >= 4 else 0,
             "EvalPlanQual cases whose statement got a join filter (always)")):
        if have < need:
            say(f"too little coverage: {have} {what}")
            ok = False
    return ok


def main():
    rn = Runner()
    t0 = time.time()
    try:
        rn.setup()
        if REPLAY:
            say(f"join oracle: replaying query {REPLAY} of seed {SEED}")
            if REPLAY.startswith('epq:'):
                rn.check_epq(int(REPLAY[4:]), connect(), connect(), verbose=True)
            else:
                rn.check_query(int(REPLAY), verbose=True)
            ok = not rn.mismatches
            say("PASS join oracle replay" if ok else "FAIL join oracle replay")
            return 0 if ok else 1
        say(f"join oracle: seed {SEED}, {NQ} queries, {NEPQ} EvalPlanQual cases, "
            f"PostgreSQL {rn.version}{'; shapes ' + ','.join(sorted(SHAPES)) if SHAPES else ''}")
        for i in range(NQ):
            rn.check_query(i)
            if (i + 1) % 200 == 0:
                say(f"  {i + 1} queries, {len(rn.mismatches)} mismatches, {time.time() - t0:.0f} s")
        b, mon = connect(), connect()
        for j in range(NEPQ):
            rn.check_epq(j, b, mon)
    except Failed as e:
        say(f"FAIL join oracle (seed {SEED}): {e}")
        for i, cfg, d, q in rn.mismatches[:MAX_REPORTS]:
            say(f"and before that, MISMATCH {i}, configuration {cfg} against off: {d}\n"
                f"{q.text()}\n{replay_hint(i)}\n")
        return 1
    say(f"join oracle: {NQ} queries and {NEPQ} EvalPlanQual cases, {rn.executions} executions "
        f"in {time.time() - t0:.0f} s")
    say("shapes (queries, seconds): " + ", ".join(f"{k} {v} {rn.secs[k]:.0f}"
                                                  for k, v in sorted(rn.shapes.items())))
    say("coverage: " + ", ".join(f"{k} {v}" for k, v in rn.cov.items()))
    say("build nodes in 'always' below: " +
        (", ".join(f"{k} {v}" for k, v in sorted(rn.build_under.items())) or "none"))
    for i, cfg, d, q in rn.mismatches[:MAX_REPORTS]:
        if str(i).startswith('epq:'):
            say(f"MISMATCH EvalPlanQual case {i[4:]}, configuration {cfg} against off: {d}\n"
                f"{q.text()}\n{replay_hint(i)}\n")
            continue
        settings = rn.settings_sql(next(c for c in CONFIGS if c[0] == cfg), q)
        say(f"MISMATCH query {i}, configuration {cfg} against off: {d}\n{q.text()}\n"
            f"-- configuration {cfg}: {settings}\n{replay_hint(i)}\n")
    ok = not rn.mismatches
    if rn.mismatches:
        say(f"{len(rn.mismatches)} mismatching queries: "
            f"{', '.join(str(m[0]) for m in rn.mismatches[:50])}")
    if NQ >= 100 and not coverage_ok(rn):
        ok = False
    say("PASS join oracle" if ok else "FAIL join oracle")
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
