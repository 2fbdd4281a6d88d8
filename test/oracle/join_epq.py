"""EvalPlanQual cases of the join oracle (test/oracle/join_oracle.py): a concurrent writer
commits while a join waits for its row.

Case j: session B updates (or deletes) a row of epl, or several, (join_schema.py: copies of fact's first
400 rows, key column k = fact's k4) and holds its lock; session A, with the configuration under
test, runs an UPDATE ... FROM, DELETE ... USING, MERGE or SELECT ... FOR UPDATE that hash-joins epl's
rows with grp < 5 (the build side) to a probe side, foreign (ft_fact, through the loopback
server: the filter's clause is in the remote query and in the scan's recheck quals) or local
(fact); A blocks on B's row; B commits; A rechecks the row's new version (EvalPlanQual, which
runs the foreign scan's recheck quals or the probe's scan again) and goes on.  Compared: A's
rows or SQLSTATE, whether A blocked, and epl afterwards.  Now and then A runs the statement
from PL/pgSQL with a variable in its WHERE clause.
"""
import random


class EpqCase:
    def __init__(self):
        self.writer = ''
        self.query = ''
        self.pre = []
        self.digest = ("SELECT md5(string_agg(concat_ws(':', id, grp, v, k), ',' "
                       "ORDER BY id)) FROM epl")

    def text(self):
        return (f"-- EvalPlanQual; session B: BEGIN; {self.writer};  (A runs, blocks on the row; "
                f"B commits)\n" + "".join(s + ";\n" for s in self.pre) + f"{self.query};\n"
                f"{self.digest};")


RESET = ["TRUNCATE epl", "INSERT INTO epl SELECT * FROM epl_src ORDER BY id", "ANALYZE epl"]
SETTINGS = ["enable_mergejoin = off", "enable_nestloop = off"]

# the key pairs (probe column, epl column), all of the same type on both sides; varchar (which
# meets join_schema.py's shadowing operator) now and then
KEYS = [("k4", "k")] * 3 + [("k8", "k8")] * 2 + [("tx", "tx")] * 2 + [("u", "u"), ("vc", "vc")]


def make_epq(seed, j, fdw, ids):
    """case j of the run with this seed; fdw: the foreign tables exist; ids: the epl rows with
    grp < 5 (the writer's candidates)"""
    r = random.Random(f"{seed}:join-epq:{j}")
    c = EpqCase()
    probe = 'ft_fact' if fdw and j % 3 != 2 else 'fact'
    pcol, ecol = r.choice(KEYS)
    x = r.choice(ids)
    xs = ", ".join(str(i) for i in r.sample(ids, min(len(ids), 6)))
    # mostly a change that keeps the row in the join, so that the recheck reaches the probe side;
    # now and then several rows, so that A rechecks one after another (a join filter built for
    # one recheck must not test the next one's rows)
    c.writer = r.choice([f"UPDATE epl SET v = v + 10 WHERE id = {x}"] * 3 + [
                         f"UPDATE epl SET v = v + 10 WHERE id IN ({xs})"] * 2 + [
                         f"UPDATE epl SET grp = 40 WHERE id = {x}",
                         f"DELETE FROM epl WHERE id = {x}",
                         f"UPDATE epl SET k = k + 1, k8 = k8 + 1, tx = tx || 'x', vc = vc || 'x', "
                         f"u = md5(u::text)::uuid WHERE id = {x}"])
    on = f"f.{pcol} = e.{ecol}"
    kind = ['update', 'forupdate', 'delete', 'plpgsql', 'merge'][j % 5]
    if kind == 'update':
        c.query = (f"UPDATE epl e SET v = e.v + 1 FROM {probe} f WHERE {on} AND e.grp < 5 "
                   f"RETURNING e.id, e.v, f.id")
    elif kind == 'delete':
        c.query = f"DELETE FROM epl e USING {probe} f WHERE {on} AND e.grp < 5 RETURNING e.id, f.id"
    elif kind == 'merge':
        c.query = (f"MERGE INTO epl e USING {probe} f ON {on} AND e.grp < 5 "
                   f"WHEN MATCHED THEN UPDATE SET v = e.v + 1")
    elif kind == 'forupdate':
        c.query = (f"SELECT e.id, e.v, f.id FROM epl e JOIN {probe} f ON {on} WHERE e.grp < 5 "
                   f"FOR UPDATE OF e")
    else:
        c.pre = [f"CREATE FUNCTION epq_run(v_grp int) RETURNS SETOF text LANGUAGE plpgsql AS "
                 f"$f$BEGIN RETURN QUERY UPDATE epl e SET v = e.v + 1 FROM {probe} f WHERE {on} "
                 f"AND e.grp < v_grp RETURNING concat_ws(':', e.id, e.v, f.id); END$f$"]
        c.query = "SELECT * FROM epq_run(5)"
    return c
