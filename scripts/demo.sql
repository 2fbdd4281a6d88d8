-- scripts/demo.sql
--
-- A short tour of bloomfilter, run by "make demo" in a throwaway cluster:
-- build a filter over three million URLs with an aggregate, look at its size, measure its
-- false-positive rate, and use it to dedupe a fresh batch of URLs.

\set ON_ERROR_STOP on
\timing on

\echo
\echo '== 1. Install the extension'
CREATE EXTENSION bloomfilter;

\echo
\echo '== 2. A crawl of 3,000,000 URLs, about 60 bytes each'
CREATE TABLE crawled (url text NOT NULL);
INSERT INTO crawled
SELECT format('https://example%s.com/page/%s', i % 5000, md5(i::text))
FROM generate_series(1, 3000000) AS i;
VACUUM ANALYZE crawled;
SELECT count(*) AS urls,
       round(avg(octet_length(url))) AS avg_url_bytes,
       pg_size_pretty(pg_table_size('crawled')) AS table_size
FROM crawled;

\echo
\echo '== 3. One filter over all of them, built by an aggregate (n = 3,000,000, p = 1 %)'
\echo '   (for scale: the same scan doing nothing but count(url))'
SELECT count(url) FROM crawled;
CREATE TABLE seen AS
SELECT bloomfilter_agg(url, 3000000, 0.01) AS f
FROM crawled;

\echo
\echo '== 4. Its size'
SELECT pg_size_pretty(octet_length(f::bytea)::bigint) AS filter_size,
       round(8.0 * octet_length(f::bytea) / 3000000, 2) AS bits_per_url,
       pg_size_pretty(pg_table_size('crawled')) AS table_size
FROM seen;
\x on
SELECT i.* FROM seen, bloomfilter_info(seen.f) AS i;
\x off

\echo
\echo '== 5. False-positive rate: probe 1,000,000 URLs that were never added'
SELECT count(*) AS probes,
       count(*) FILTER (WHERE s.f @> u.url) AS false_positives,
       round(count(*) FILTER (WHERE s.f @> u.url)::numeric / count(*), 5) AS measured_fpr,
       0.01 AS target_fpr
FROM seen AS s,
     (SELECT format('https://example%s.com/page/%s', i % 5000, md5(i::text)) AS url
      FROM generate_series(3000001, 4000000) AS i) AS u;

\echo
\echo '== 6. Dedupe a fresh batch of 100,000 URLs, half of which were crawled already'
CREATE TABLE batch AS
SELECT format('https://example%s.com/page/%s', i % 5000, md5(i::text)) AS url
FROM generate_series(2950001, 3050000) AS i;

\echo '   What the filter says, without touching the 3,000,000-row table:'
SELECT count(*) AS batch_urls,
       count(*) FILTER (WHERE NOT (s.f @> b.url)) AS filter_says_new
FROM batch AS b, seen AS s;

\echo '   Checked against the table: crawled_but_said_new must be 0 (a Bloom filter has no false'
\echo '   negatives); new_but_said_crawled are false positives, about 1 % of the 50,000 new URLs.'
SELECT count(*) FILTER (WHERE c.url IS NULL) AS actually_new,
       count(*) FILTER (WHERE c.url IS NOT NULL AND NOT (s.f @> b.url)) AS crawled_but_said_new,
       count(*) FILTER (WHERE c.url IS NULL AND s.f @> b.url) AS new_but_said_crawled
FROM batch AS b
     CROSS JOIN seen AS s
     LEFT JOIN crawled AS c ON c.url = b.url;
