#!/usr/bin/python3
"""A differential oracle for the extension's custom scans (run by test/cluster/oracle.sh).

Generates seeded random queries (gen.py) over tables of every shape the scans meet (schema.py)
and runs each one in several configurations:

    off            bloomfilter.prefetch_scan and .agg_scan off, serial      (the reference)
    on             both on, serial
    off-par        off, parallel plans forced (parallel_setup_cost = 0, ...)
    on-par         on, parallel plans forced
    on-par-noldr   on, parallel, parallel_leader_participation = off

Every configuration must give the reference's rows (as a multiset), its SQLSTATE (or none),
its sequence values afterwards (nextval in quals, a volatile function's own sequence) and,
when it succeeds, the rows written (a log table a volatile function writes, the digest of a
table a statement modified).  Filters in results are compared byte for byte, except a
scalable or cuckoo filter aggregated under a parallel plan, which may legitimately differ:
that one must contain every element of its input (the generator gives the query of them).
A run with the scans off that goes past statement_timeout (60 s: a slow nested loop, under forced
parallel plans or on a busy machine) has no known answer: it is not compared, nor are the runs
with the scans on of the same plan shape (serial or parallel; counted as reference_timeouts). A
run with the scans on that goes past it where the same shape with them off did not runs once more
(counted as retried_timeouts), and a second timeout is a difference.
Queries whose result may differ between serial and parallel plans anyway (rows chosen by a
LIMIT without ORDER BY, errors reached in another order) run in the serial pair only.
Then EvalPlanQual cases (epq.py) run in the serial pair with a second session.

Every query's plan is checked too: in the 'on' configurations EXPLAIN (VERBOSE) must not fail
where the reference's does not, in the 'off' ones no custom scan may appear, and the counts of
queries that used each scan are printed; the run fails if a scan was used by too few (so it
cannot silently compare plain plans with plain plans).  A lost connection (a crash) or an
SQLSTATE XX000 anywhere fails the run at once.

Environment: ORACLE_SEED (default 1), ORACLE_QUERIES (default 1200), ORACLE_EPQ (EvalPlanQual
cases, default 20), ORACLE_REPLAY (a query number, or epq:N: run that one alone and print
everything), ORACLE_SKIP (comma-separated classes of gen.CLASSES to leave out),
ORACLE_MAX_REPORTS (mismatches printed in full, default 5).  Connects through the PG*
variables.  Exit status 0 when every comparison holds, 1 otherwise.
"""
import ast
import os
import re
import sys
import threading
import time

import psycopg2
import psycopg2.extensions

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schema  # noqa: E402
from gen import CLASSES, make_query  # noqa: E402
from epq import RESET, make_epq  # noqa: E402

SEED = os.environ.get('ORACLE_SEED', '1')
NQ = int(os.environ.get('ORACLE_QUERIES', '1200'))
NEPQ = int(os.environ.get('ORACLE_EPQ', '20'))
REPLAY = os.environ.get('ORACLE_REPLAY', '')
SKIP = {s for s in os.environ.get('ORACLE_SKIP', '').replace(' ', ',').split(',') if s}
MAX_REPORTS = int(os.environ.get('ORACLE_MAX_REPORTS', '5'))

PAR = ["parallel_setup_cost = 0", "parallel_tuple_cost = 0", "min_parallel_table_scan_size = 0",
       "min_parallel_index_scan_size = 0", "max_parallel_workers_per_gather = 2"]
CONFIGS = [
    ('off', False, None),
    ('on', True, None),
    ('off-par', False, 'on'),
    ('on-par', True, 'on'),
    ('on-par-noldr', True, 'off'),
]
SERIAL = CONFIGS[:2]

PREFETCH = 'Custom Scan (bloomfilter prefetch)'
AGG = 'Custom Scan (bloomfilter agg)'


def run_while_blocked(c, pid, query, bc, mon):
    """Runs query on cursor c (backend pid) in a thread while the writer's transaction (cursor
    bc) holds a lock it needs; once the query waits on a lock (or after 30 s) commits the writer.
    Returns ({'err': None, 'rows': sorted reprs} or {..., 'exc': the psycopg2 error}, whether the
    query was seen blocked).  The EvalPlanQual cases of both oracles run this way."""
    out = {'err': None, 'rows': None}

    def a_side():
        try:
            c.execute(query)
            # (a MERGE returns no rows)
            out['rows'] = sorted(map(repr, c.fetchall())) if c.description else []
        except psycopg2.Error as e:
            out['exc'] = e
    th = threading.Thread(target=a_side)
    th.start()
    mc = mon.cursor()
    blocked = False
    deadline = time.time() + 30
    while th.is_alive() and time.time() < deadline:
        mc.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", (pid,))
        row = mc.fetchone()
        if row and row[0] == 'Lock':
            blocked = True
            break
        time.sleep(0.005)
    bc.execute("COMMIT")
    th.join(60)
    if th.is_alive():
        raise Failed("EvalPlanQual: the query did not finish after the writer committed")
    return out, blocked


class Crash(Exception):
    pass


class Failed(Exception):
    pass


def say(*a):
    print(*a, flush=True)


# bytea as its text form (hex), not a memoryview
BYTEA_TEXT = psycopg2.extensions.new_type((17,), 'BYTEA_TEXT', lambda v, c: v)
psycopg2.extensions.register_type(BYTEA_TEXT)
psycopg2.extensions.register_type(psycopg2.extensions.new_array_type((1001,), 'BYTEA_TEXT[]',
                                                                     BYTEA_TEXT))


def connect():
    c = psycopg2.connect('')
    c.autocommit = True
    return c


def is_lost(conn, e):
    return conn.closed != 0 or isinstance(e, (psycopg2.OperationalError, psycopg2.InterfaceError)) \
        and e.pgcode is None


def norm_row(row, desc):
    return tuple(None if v is None else repr(v) for v in row)


def row_key(row):
    return [(v is None, v or '') for v in row]


# PostgreSQL 16 renamed force_parallel_mode to debug_parallel_query
FORCE_PARALLEL_GUC = 'force_parallel_mode'


def settings_sql(cfg, q_settings, force_parallel, role):
    name, on, leader = cfg
    s = [f"bloomfilter.prefetch_scan = {'on' if on else 'off'}",
         f"bloomfilter.agg_scan = {'on' if on else 'off'}",
         "statement_timeout = '60s'", "synchronize_seqscans = off"]
    if leader is None:
        s.append("max_parallel_workers_per_gather = 0")
    else:
        s += PAR + [f"parallel_leader_participation = {leader}"]
        if force_parallel:
            s.append(f"{FORCE_PARALLEL_GUC} = on")
    s += q_settings
    sql = "".join(f"SET LOCAL {x}; " for x in s)
    if role:
        sql += f"SET LOCAL ROLE {role}; "
    return sql + "SELECT setseed(0.25)"


class Runner:
    def __init__(self):
        global FORCE_PARALLEL_GUC
        self.conn = connect()
        self.cur = self.conn.cursor()
        if self.conn.server_version >= 160000:
            FORCE_PARALLEL_GUC = 'debug_parallel_query'
        self.bf_oid = None
        self.texts = {}
        self.executions = 0
        self.cov = {k: 0 for k in ('prefetch', 'prefetch_parallel', 'agg', 'agg_parallel',
                                   'prefetch_inherit_child', 'prefetch_partition',
                                   'prefetch_rescanned', 'errors', 'serial_only', 'members',
                                   'epq_blocked')}
        self.shapes = {}
        self.mismatches = []

    # ---- set-up ----
    def setup(self):
        c = self.cur
        for sql in schema.setup_sql(SKIP):
            try:
                c.execute(sql)
            except psycopg2.Error as e:
                what = 'the server connection was lost (a crash?)' if is_lost(self.conn, e) \
                    else f'SQLSTATE {e.pgcode}'
                raise Failed(f"set-up: {what}: {short(str(e), 500)}\nin: {short(sql.strip(), 500)}")
        c.execute("SELECT 'bloomfilter'::regtype::oid")
        self.bf_oid = c.fetchone()[0]
        c.execute("SELECT name, f::text FROM filters")
        self.texts = dict(c.fetchall())
        c.execute("SELECT reltoastrelid::regclass::text FROM pg_class WHERE relname = 'te'")
        te_toast = c.fetchone()[0]
        for desc, sql in schema.storage_checks(SKIP):
            c.execute(sql.replace('{te}', str(te_toast)))
            if c.fetchone()[0] is not True:
                raise Failed(f"set-up: not true: {desc}")

    # ---- one execution ----
    def run(self, q, cfg):
        """the observable outcome of query q in configuration cfg"""
        c = self.cur
        self.executions += 1
        out = {'err': None, 'msg': None, 'rows': [], 'side': None, 'plan': None,
               'explain_err': None, 'filters': []}
        try:
            c.execute("SELECT setval('sq', 1, false), setval('sq_log', 1, false)")
            c.execute("BEGIN")
            c.execute(settings_sql(cfg, q.settings, q.force_parallel, q.role))
            try:
                for s in q.pre:
                    c.execute(s)
                if q.explain:
                    c.execute("SAVEPOINT e")
                    try:
                        c.execute("EXPLAIN (VERBOSE, COSTS OFF) " + q.explain)
                        out['plan'] = "\n".join(r[0] for r in c.fetchall())
                        c.execute("RELEASE e")
                    except psycopg2.Error as e:
                        if is_lost(self.conn, e):
                            raise
                        out['explain_err'] = e.pgcode
                        out['explain_msg'] = e.pgerror
                        c.execute("ROLLBACK TO e")
                for s in q.stmts:
                    c.execute(s)
                    if c.description is None:
                        out['rows'].append(None)
                        continue
                    fcols = [j for j, d in enumerate(c.description) if d.type_code == self.bf_oid]
                    rows = c.fetchall()
                    out['rows'].append(sorted((norm_row(r, c.description) for r in rows), key=row_key))
                    out['filters'] = fcols
                side = []
                for s in q.post:
                    c.execute(s)
                    side.append(c.fetchall())
                c.execute("SELECT string_agg(v, ',' ORDER BY v) FROM oracle_log")
                side.append(c.fetchall())
                out['side'] = side
            except psycopg2.Error as e:
                if is_lost(self.conn, e):
                    raise
                out['err'] = e.pgcode
                out['msg'] = (e.pgerror or '').strip().splitlines()[0] if e.pgerror else str(e)
            c.execute("ROLLBACK")
            c.execute("SELECT last_value, is_called FROM sq")
            sq = c.fetchone()
            c.execute("SELECT last_value, is_called FROM sq_log")
            out['seq'] = (sq, c.fetchone())
        except psycopg2.Error as e:
            if is_lost(self.conn, e):
                raise Crash(str(e))
            raise
        if 'XX000' in (out['err'], out['explain_err']):
            out['internal'] = (f"internal error XX000: "
                               f"{out['msg'] if out['err'] == 'XX000' else out.get('explain_msg')}")
        return out

    def members_ok(self, q, sql, value):
        """every element of the input is found in a filter built of it"""
        c = self.cur
        c.execute("BEGIN")
        c.execute(settings_sql(SERIAL[0], q.settings, False, q.role))
        sql = sql.replace('%', '%%')
        c.execute(f"SELECT count(*) FROM ({sql}) m(e) WHERE e IS NOT NULL AND "
                  f"NOT (%s::bloomfilter @> e)", (value,))
        n = c.fetchone()[0]
        c.execute("ROLLBACK")
        return n == 0

    # ---- comparison ----
    def differ(self, q, ref, out, cfg):
        """a description of how out differs from ref, or None"""
        if ref['err'] != out['err']:
            return f"SQLSTATE {ref['err']} ({ref['msg']}) vs {out['err']} ({out['msg']})"
        if ref['explain_err'] != out['explain_err']:
            return (f"EXPLAIN: SQLSTATE {ref['explain_err']} vs {out['explain_err']} "
                    f"({out.get('explain_msg') or ref.get('explain_msg')})")
        if ref['seq'] != out['seq']:
            return f"sequences afterwards (sq, sq_log): {ref['seq']} vs {out['seq']}"
        if ref['side'] != out['side']:
            return f"rows written: {ref['side']} vs {out['side']}"
        if ref['rows'] == out['rows']:
            return None
        # a growing filter aggregated by a parallel plan: compare what it holds
        if cfg[2] is not None and q.members and len(ref['rows']) == len(out['rows']):
            mask = lambda rows: [tuple('<filter>' if j in q.members and v is not None else v
                                       for j, v in enumerate(row)) for row in rows]
            if mask(ref['rows'][-1]) == mask(out['rows'][-1]) and \
                    ref['rows'][:-1] == out['rows'][:-1]:
                for row in out['rows'][-1]:
                    for j, sql in q.members.items():
                        if row[j] is not None and not self.members_ok(q, sql, ast.literal_eval(row[j])):
                            return f"column {j + 1}: a filter misses members of its input"
                self.cov['members'] += 1
                return None
        for n, (a, b) in enumerate(zip(ref['rows'], out['rows'])):
            if a != b:
                return (f"statement {n + 1}: rows {len(a or [])} vs {len(b or [])}; "
                        f"only in reference: {short(diff(a, b))}; only here: {short(diff(b, a))}")
        return "rows differ"

    def plan_checks(self, q, cfg, out):
        plan = out['plan']
        if plan is None:
            return
        name, on, leader = cfg
        if not on:
            if 'bloomfilter prefetch' in plan or 'bloomfilter agg' in plan:
                raise Failed(f"a custom scan in configuration {name}:\n{q.text()}\n{plan}")
            return
        if leader is None:
            if PREFETCH in plan:
                self.cov['prefetch'] += 1
                if re.search(r'bloomfilter prefetch\) on (public\.)?ic', plan):
                    self.cov['prefetch_inherit_child'] += 1
                if re.search(r'bloomfilter prefetch\) on (public\.)?pt', plan):
                    self.cov['prefetch_partition'] += 1
                if 'Nested Loop' in plan or 'SubPlan' in plan:
                    self.cov['prefetch_rescanned'] += 1
            if AGG in plan:
                self.cov['agg'] += 1
        elif name == 'on-par':
            if 'Parallel ' + PREFETCH in plan:
                self.cov['prefetch_parallel'] += 1
            if 'Parallel ' + AGG in plan:
                self.cov['agg_parallel'] += 1

    def check_query(self, i, verbose=False):
        q = make_query(SEED, i, self.texts, SKIP)
        self.shapes[q.shape] = self.shapes.get(q.shape, 0) + 1
        if q.serial_only:
            self.cov['serial_only'] += 1
        configs = SERIAL if q.serial_only else CONFIGS
        if verbose:
            say(q.text())
        ref = None
        plain_timeouts = set()  # serial / parallel: the scans-off run ran past statement_timeout
        for cfg in configs:
            parallel = cfg[2] is not None
            if cfg[1] and parallel in plain_timeouts:
                # the same plan shape with the scans off ran past statement_timeout (a slow
                # nested loop under forced parallel plans): nothing to compare this one with
                continue
            try:
                out = self.run(q, cfg)
            except Crash as e:
                raise Failed(f"query {i}: the server connection was lost in configuration "
                             f"{cfg[0]} (a crash?): {e}\n{q.text()}\n{replay_hint(i)}")
            if verbose:
                say(f"---- {cfg[0]}: SQLSTATE {out['err']} {out['msg'] or ''}\n"
                    f"rows {[None if r is None else len(r) for r in out['rows']]}: "
                    f"{short(out['rows'], 600)}\nsequences {out['seq']} side {short(out['side'])}")
                say(out['plan'] or f"(no plan: {out['explain_err']} {out.get('explain_msg')})")
            self.plan_checks(q, cfg, out)
            if 'internal' in out:
                self.mismatches.append((i, cfg[0], out['internal'], q))
                if verbose:
                    say(f"MISMATCH in {cfg[0]}: {out['internal']}")
                break
            if out['err'] == '57014' and not cfg[1]:
                # a scans-off run past statement_timeout: its answer is unknown, so nothing is
                # compared with it (the serial reference: nothing at all)
                self.cov['reference_timeouts'] = self.cov.get('reference_timeouts', 0) + 1
                if ref is None:
                    break
                plain_timeouts.add(parallel)
                continue
            if ref is None:
                ref = out
                if out['err']:
                    self.cov['errors'] += 1
                continue
            if out['err'] == '57014':
                # past statement_timeout with the scans on where the same shape with them off
                # was not: a load spike, or the scans made the query far slower; once more,
                # and a second timeout is a difference
                self.cov['retried_timeouts'] = self.cov.get('retried_timeouts', 0) + 1
                out = self.run(q, cfg)
            d = self.differ(q, ref, out, cfg)
            if d:
                self.mismatches.append((i, cfg[0], d, q))
                if verbose:
                    say(f"MISMATCH in {cfg[0]}: {d}")
                break

    # ---- EvalPlanQual ----
    def run_epq(self, case, cfg, b, mon):
        c = self.cur
        self.executions += 1
        for s in RESET:
            c.execute(s)
        bc = b.cursor()
        bc.execute("BEGIN")
        bc.execute(case.writer)
        c.execute("SELECT pg_backend_pid()")
        pid = c.fetchone()[0]
        c.execute("BEGIN")
        c.execute(settings_sql(cfg, [], False, None))
        out, blocked = run_while_blocked(c, pid, case.query, bc, mon)
        e = out.pop('exc', None)
        if e is not None:
            if is_lost(self.conn, e):
                raise Crash(str(e))
            out['err'] = e.pgcode
            out['msg'] = e.pgerror
        else:
            c.execute(case.digest)
            out['digest'] = c.fetchall()
        c.execute("ROLLBACK")
        out['blocked'] = blocked
        return out

    def check_epq(self, j, b, mon, verbose=False):
        case = make_epq(SEED, j, self.texts, SKIP)
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
            if ref is None:
                ref = out
                self.cov['epq_blocked'] += out['blocked']
            elif out != ref or out['err'] == 'XX000':
                self.mismatches.append((f"epq:{j}", cfg[0], f"{ref} vs {out}", case))


def replay_hint(i):
    return (f"replay: ORACLE_SEED={SEED} ORACLE_REPLAY={i}"
            f"{' ORACLE_SKIP=' + ','.join(sorted(SKIP)) if SKIP else ''} bash test/cluster/oracle.sh")


def diff(a, b):
    rest = list(b or [])
    only = []
    for x in a or []:
        if x in rest:
            rest.remove(x)
        else:
            only.append(x)
    return only


def short(x, n=300):
    s = repr(x)
    return s if len(s) <= n else s[:n] + f'... ({len(s)} chars)'


def main():
    unknown = SKIP - set(CLASSES)
    if unknown:
        say(f"oracle: unknown ORACLE_SKIP classes {sorted(unknown)}; known: {sorted(CLASSES)}")
        return 2
    rn = Runner()
    t0 = time.time()
    try:
        rn.setup()
        b = connect()
        mon = connect()
        if REPLAY:
            say(f"oracle: replaying {REPLAY} of seed {SEED}"
                f"{'; skipping ' + ','.join(sorted(SKIP)) if SKIP else ''}")
            if REPLAY.startswith('epq:'):
                rn.check_epq(int(REPLAY[4:]), b, mon, verbose=True)
            else:
                rn.check_query(int(REPLAY), verbose=True)
            ok = not rn.mismatches
            say("PASS oracle replay" if ok else "FAIL oracle replay")
            return 0 if ok else 1
        say(f"oracle: seed {SEED}, {NQ} queries, {NEPQ} EvalPlanQual cases"
            f"{'; skipping ' + ', '.join(sorted(SKIP)) if SKIP else ''}")
        for i in range(NQ):
            rn.check_query(i)
            if (i + 1) % 500 == 0:
                say(f"  {i + 1} queries, {len(rn.mismatches)} mismatches, {time.time() - t0:.0f} s")
        for j in range(NEPQ):
            rn.check_epq(j, b, mon)
    except Failed as e:
        say(f"FAIL oracle (seed {SEED}): {e}")
        return 1
    secs = time.time() - t0
    say(f"oracle: {NQ} queries and {NEPQ} EvalPlanQual cases, {rn.executions} executions "
        f"in {secs:.0f} s")
    say("shapes: " + ", ".join(f"{k} {v}" for k, v in sorted(rn.shapes.items())))
    say("coverage: " + ", ".join(f"{k} {v}" for k, v in rn.cov.items()))
    ok = True
    names = {v: k for k, v in rn.texts.items()}
    for i, cfg, d, q in rn.mismatches[:MAX_REPORTS]:
        say(f"MISMATCH query {i}, configuration {cfg} against off: {d}\n{q.text(names)}\n"
            f"{replay_hint(i)}\n")
    if rn.mismatches:
        ok = False
        byclass = {}
        for i, cfg, d, q in rn.mismatches:
            for k in sorted(q.classes) or ['-']:
                byclass[k] = byclass.get(k, 0) + 1
        say(f"{len(rn.mismatches)} mismatching queries; by class: {byclass}")
    # the scans must have been used (scaled to the run's size)
    need = {'prefetch': 0.25, 'agg': 0.08, 'prefetch_parallel': 0.08, 'agg_parallel': 0.03}
    if NQ >= 200:
        for k, frac in need.items():
            if rn.cov[k] < frac * NQ:
                say(f"too little coverage: {k} {rn.cov[k]} < {frac * NQ:.0f}")
                ok = False
        if NEPQ >= 10 and rn.cov['epq_blocked'] < NEPQ // 2:
            say(f"too little coverage: EvalPlanQual cases that blocked {rn.cov['epq_blocked']}")
            ok = False
    say("PASS oracle" if ok else "FAIL oracle")
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
