"""EvalPlanQual cases of the oracle: a concurrent writer commits while the query waits.

Case j: session B updates (or deletes) a row of ep (or of the inheritance tree epp/epc) and
holds its lock; session A, with the configuration under test, runs an UPDATE, DELETE or
SELECT ... FOR UPDATE whose filter test passes the row's old version, and blocks on the row;
B commits; A rechecks the new version (EvalPlanQual, through the scan's recheck method) and
goes on.  Compared: A's rows, whether A blocked, and the table afterwards.
"""
import random
import re

A_OF = lambda g: None if g % 17 == 1 else (g * 7919) % 4001


class EpqCase:
    def __init__(self):
        self.target = 'ep'
        self.writer = ''
        self.query = ''
        self.digest = ''
        self.classes = set()

    def text(self, names=None):
        if names:
            return re.sub(r"'([A-Za-z0-9+/=]{64,})'",
                          lambda m: f"'<{names.get(m.group(1), 'filter')}>'", self.text())
        return (f"-- EvalPlanQual; classes {sorted(self.classes) or '-'}\n"
                f"-- session B: BEGIN; {self.writer};  (A runs, blocks on the row; B commits)\n"
                f"{self.query};\n{self.digest};")


RESET = ["TRUNCATE ep, epp",
         "INSERT INTO ep SELECT * FROM ep_src ORDER BY id",
         "INSERT INTO epp SELECT * FROM ep_src WHERE id <= 45 ORDER BY id",
         "INSERT INTO epc SELECT * FROM ep_src WHERE id > 45 ORDER BY id"]


def make_epq(seed, j, texts, skip):
    for attempt in range(100):
        r = random.Random(f"{seed}:epq:{j}:{attempt}")
        c = EpqCase()
        c.target = 'epp' if r.random() < 0.3 else 'ep'
        if c.target == 'epp':
            c.classes.add('inherit')
        if not (c.classes & skip):
            break
    v = r.choice(['blocked', 'classic', 'counting', 'scalable', 'cuckoo'])
    f = r.choice([f"(SELECT f FROM filters WHERE name = 't_a_{v}')",
                  f"'{texts[f't_a_{v}']}'::bloomfilter"])
    kind = r.choice(['update', 'delete', 'forupdate', 'forupdate_limit', 'join'])
    # the row B changes: a member (id % 3 = 0, a not NULL); for the join, k in small's 1..6
    ids = [g for g in range(3, 91, 3) if A_OF(g) is not None and
           (kind != 'join' or 1 <= g % 10 <= 6)]
    x = r.choice(ids)
    action = r.choice(['unmember', 'keep', 'delete', 'requal'])
    t = c.target
    c.writer = {'unmember': f"UPDATE {t} SET a = {A_OF(x + 1) or 2} WHERE id = {x}",
                'keep': f"UPDATE {t} SET b = b + 10 WHERE id = {x}",
                'delete': f"DELETE FROM {t} WHERE id = {x}",
                'requal': f"UPDATE {t} SET k = 9 WHERE id = {x}"}[action]
    w = f"{f} @> r.a AND r.k <> 9" if r.random() < 0.7 else f"r.k <> 9 AND r.a <@ {f}"
    # the statement over t r WHERE w, by kind
    c.query = {'update': f"UPDATE {t} r SET b = r.b + 1 WHERE {w} RETURNING r.id, r.a, r.b",
               'delete': f"DELETE FROM {t} r WHERE {w} RETURNING r.id, r.a, r.b",
               'forupdate': f"SELECT r.id, r.a, r.b, r.k FROM {t} r WHERE {w} ORDER BY r.id FOR UPDATE",
               'forupdate_limit': f"SELECT r.id, r.a, r.b, r.k FROM {t} r WHERE {w} LIMIT 40 FOR UPDATE",
               'join': (f"UPDATE {t} r SET b = r.b + s.id FROM small s WHERE s.k = r.k AND {w} "
                        f"RETURNING r.id, r.b, s.id")}[kind]
    c.digest = f"SELECT md5(string_agg(x::text, ',' ORDER BY x::text)) FROM {t} x"
    return c
