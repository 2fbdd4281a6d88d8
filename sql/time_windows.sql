--
-- time_windows: expiry by time, the most-asked feature of Redis's Bloom module,
-- as a table of filters.  One filter per day, built by bloomfilter_agg over that
-- day's events; a window of days is bloomfilter_union_agg over the window's
-- rows, byte for byte the filter of the window's events; a day expires when its
-- row is deleted; a window function slides a 7-day window over the days, and
-- every window holds exactly its days' keys (no false negatives, few strangers);
-- a late batch merges into its day with INSERT ... ON CONFLICT and |.
--
-- a schema of its own, so that the tables can have the names the README uses
CREATE SCHEMA time_windows;
SET search_path = time_windows, public;

-- 30 days of events, 2,200 a day over 2,000 distinct keys (200 repeats); each
-- day shares 500 keys with the day before, so a 7-day window holds 11,000
-- distinct keys
CREATE TABLE events (day date NOT NULL, key text NOT NULL);
INSERT INTO events
SELECT date '2024-03-01' + d, 'key-' || md5((d * 1500 + i % 2000)::text)
FROM generate_series(0, 29) AS d, generate_series(0, 2199) AS i;
ANALYZE events;

-- every daily filter is sized for a whole window (7 days x 2,000 keys, with
-- room to spare): filters combine only when they have the same size, and the
-- rate of a union is that of the window's keys in one filter
CREATE TABLE daily_filters (day date PRIMARY KEY, f bloomfilter NOT NULL);
INSERT INTO daily_filters
SELECT day, bloomfilter_agg(key, 20000, 0.01) FROM events GROUP BY day;

SELECT count(*) AS days, min(day), max(day),
	bool_and(bloomfilter_is_compatible(f, bloomfilter_create(20000, 0.01))) AS all_compatible
FROM daily_filters;

--
-- a 7-day window: the union of its days' filters is the filter of its events,
-- byte for byte, whether the window is chosen by WHERE or by FILTER
--
SELECT (SELECT bloomfilter_union_agg(f) FROM daily_filters
		WHERE day BETWEEN '2024-03-08' AND '2024-03-14')::bytea =
	(SELECT bloomfilter_agg(key, 20000, 0.01) FROM events
		WHERE day BETWEEN '2024-03-08' AND '2024-03-14')::bytea AS where_window,
	(SELECT bloomfilter_union_agg(f) FILTER (WHERE day BETWEEN '2024-03-08' AND '2024-03-14')
		FROM daily_filters)::bytea =
	(SELECT bloomfilter_agg(key, 20000, 0.01) FROM events
		WHERE day BETWEEN '2024-03-08' AND '2024-03-14')::bytea AS filter_window;

-- several windows at once: one row per week, each its own union
SELECT min(day) AS first_day, count(*) AS days,
	bloomfilter_union_agg(f)::bytea =
		(SELECT bloomfilter_agg(e.key, 20000, 0.01) FROM events AS e
		 WHERE e.day BETWEEN min(d.day) AND max(d.day))::bytea AS same_as_events,
	(bloomfilter_info(bloomfilter_union_agg(f))).items_added
FROM daily_filters AS d
GROUP BY (day - date '2024-03-01') / 7
ORDER BY 1;

-- the week's filter answers for the week: every key of its days is in it, and
-- the keys that only the following week has are mostly absent (11,000 keys in
-- a filter sized for 20,000: about 0.1 % of strangers are found)
WITH w AS (
	SELECT bloomfilter_union_agg(f) AS f FROM daily_filters
	WHERE day BETWEEN '2024-03-08' AND '2024-03-14'
),
inside AS (SELECT DISTINCT key FROM events WHERE day BETWEEN '2024-03-08' AND '2024-03-14'),
outside AS (
	SELECT DISTINCT key FROM events WHERE day BETWEEN '2024-03-15' AND '2024-03-21'
	EXCEPT SELECT key FROM inside
)
SELECT (SELECT count(*) FROM inside) AS members,
	(SELECT count(*) FROM inside, w WHERE NOT f @> key) AS false_negatives,
	(SELECT count(*) FROM outside) AS strangers,
	(SELECT count(*) FROM outside, w WHERE f @> key)::float8 /
		(SELECT count(*) FROM outside) <= 0.005 AS strangers_mostly_absent;

--
-- a sliding window: bloomfilter_union_agg as a window function over the last
-- seven days (fewer at the start); every window equals the filter of its
-- days' events, holds all their keys, and mostly not the keys of other days
--
CREATE TABLE sliding AS
SELECT day, count(*) OVER w AS days, bloomfilter_union_agg(f) OVER w AS f
FROM daily_filters
WINDOW w AS (ORDER BY day ROWS BETWEEN 6 PRECEDING AND CURRENT ROW);

SELECT count(*) AS windows,
	count(*) FILTER (WHERE days = 7) AS full_windows,
	bool_and(f::bytea =
		(SELECT bloomfilter_agg(e.key, 20000, 0.01) FROM events AS e
		 WHERE e.day BETWEEN s.day - 6 AND s.day)::bytea) AS each_equals_its_events
FROM sliding AS s;

-- per window: its keys all found; keys seen only on other days rarely found
SELECT bool_and(m.false_negatives = 0) AS no_false_negatives,
	min(o.strangers) AS min_strangers,
	bool_and(o.found::float8 / o.strangers <= 0.005) AS strangers_mostly_absent,
	sum(o.found)::float8 / sum(o.strangers) <= 0.002 AS overall_rate_ok
FROM sliding AS s,
	LATERAL (SELECT count(*) FILTER (WHERE NOT s.f @> e.key) AS false_negatives
			 FROM events AS e
			 WHERE e.day BETWEEN s.day - 6 AND s.day) AS m,
	LATERAL (SELECT count(*) AS strangers, count(*) FILTER (WHERE s.f @> x.key) AS found
			 FROM (SELECT key FROM events AS e
				   WHERE e.day NOT BETWEEN s.day - 6 AND s.day
				   EXCEPT
				   SELECT key FROM events AS e
				   WHERE e.day BETWEEN s.day - 6 AND s.day) AS x) AS o;

-- one key seen on 10 March only (day 9 has ids 13,500..15,499, of which
-- 14,000..14,999 are on no other day): the windows that include that day,
-- and only those, report it
SELECT day, days, f @> ('key-' || md5('14600')) AS seen_in_window
FROM sliding
WHERE day BETWEEN '2024-03-08' AND '2024-03-18'
ORDER BY day;

--
-- a late batch of events for a day that has a filter already: merge its filter
-- into the day's with INSERT ... ON CONFLICT; the result is the filter of all
-- the day's events
--
INSERT INTO events
SELECT date '2024-03-30', 'late-' || i FROM generate_series(1, 300) AS i;

INSERT INTO daily_filters
SELECT day, bloomfilter_agg(key, 20000, 0.01) FROM events
WHERE key LIKE 'late-%' GROUP BY day
ON CONFLICT (day) DO UPDATE SET f = daily_filters.f | excluded.f;

SELECT f::bytea = (SELECT bloomfilter_agg(key, 20000, 0.01) FROM events
				   WHERE day = '2024-03-30')::bytea AS merged_day_equals_events,
	(bloomfilter_info(f)).items_added
FROM daily_filters WHERE day = '2024-03-30';

--
-- expiry: keep the last 7 days; deleting the older rows expires their keys
--
DELETE FROM daily_filters
WHERE day < (SELECT max(day) FROM daily_filters) - 6;

SELECT count(*) AS days_kept, min(day), max(day) FROM daily_filters;

WITH kept AS (SELECT bloomfilter_union_agg(f) AS f FROM daily_filters),
expired AS (
	SELECT DISTINCT key FROM events WHERE day < '2024-03-24'
	EXCEPT SELECT key FROM events WHERE day >= '2024-03-24'
)
SELECT kept.f::bytea = (SELECT bloomfilter_agg(key, 20000, 0.01) FROM events
						WHERE day >= '2024-03-24')::bytea AS kept_equals_last_7_days,
	(SELECT count(*) FROM events WHERE day >= '2024-03-24' AND NOT kept.f @> key) AS false_negatives,
	(SELECT count(*) FROM expired) AS expired_keys,
	(SELECT count(*) FROM expired WHERE kept.f @> key)::float8 /
		(SELECT count(*) FROM expired) <= 0.005 AS expired_mostly_absent
FROM kept;

-- the question an application asks: was this key seen in the last 7 days?
SELECT k.label, w.f @> k.key AS seen_in_last_7_days
FROM (SELECT bloomfilter_union_agg(f) AS f FROM daily_filters
	  WHERE day > date '2024-03-30' - 7) AS w,
	(VALUES ('yesterday only', 'key-' || md5((28 * 1500 + 1000)::text)),
			('a late event', 'late-7'),
			('20 days ago only, expired', 'key-' || md5((9 * 1500 + 1100)::text)),
			('never seen', 'key-' || md5('-1'))) AS k(label, key)
ORDER BY k.label;

RESET search_path;
