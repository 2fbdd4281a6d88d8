-- scripts/bench_tpch_schema.sql
--
-- The TPC-H-shaped part of "make bench" (BENCH_ONLY=tpch, scripts/bench_server.sh): the eight
-- tables of TPC-H and a generator for them, written in SQL for this project.  It is not dbgen
-- and does not reproduce dbgen's data: it gives the tables TPC-H's cardinalities per scale
-- factor and the distributions its 22 queries depend on, from the public specification:
--
--   region 5, nation 25 (TPC-H's nations in its five regions), supplier 10,000 x SF,
--   customer 150,000 x SF, part 200,000 x SF, partsupp 4 per part, orders 1,500,000 x SF,
--   lineitem 1 to 7 per order (about 6,000,000 x SF)
--   - order keys sparse: the first 8 of every 32; orders only of customers whose key is not
--     a multiple of 3 (a third of the customers have none)
--   - order dates uniform over 1992-01-01 .. 1998-08-02; ship dates 1 to 121 days after the
--     order, commit dates 30 to 90, receipt 1 to 30 after shipping; line status 'O' when
--     shipped after 1995-06-17 and return flag 'N' when received after it, else 'R' or 'A';
--     order status 'F', 'O' or 'P' from its lines; the total price from its lines
--   - each line's supplier one of the part's four in partsupp; its price the quantity times
--     the part's retail price, which follows TPC-H's formula of the part key
--   - part names five of TPC-H's 92 colours; manufacturers, brands, types, sizes and
--     containers; market segments, order priorities, clerks, ship instructions and modes;
--     phone numbers whose country code is the nation key + 10
--   - comments taken at random offsets from a text of generated words (as dbgen takes them
--     from its text pool), so that about 1 % of the orders' say 'special ... requests'; 5
--     suppliers per SF (at least one) say 'Customer ... Complaints' and as many 'Customer ...
--     Recommends'
--
-- Every value is a function of the row's number and a seed (bench.rnd, scripts/bench_setup.sql,
-- which must be loaded first): the same tables on every run.  Load with
--     SELECT bench.tpch_create_tables();
--     CALL bench.tpch_load_orders(sf);   -- orders and lineitem    } in two sessions at
--     CALL bench.tpch_load_parts(sf);    -- the other six tables   } once, if you like
--     SELECT bench.tpch_add_keys('orders');  } primary keys and indexes, in two
--     SELECT bench.tpch_add_keys('parts');   } sessions if you like
--     SELECT bench.tpch_add_keys('foreign'); -- the foreign keys
--     VACUUM (FREEZE, ANALYZE);

-- Unlogged, so that the load writes no WAL; keys and indexes come after the load
CREATE FUNCTION bench.tpch_create_tables()
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	CREATE UNLOGGED TABLE region (
		r_regionkey integer NOT NULL,
		r_name char(25) NOT NULL,
		r_comment varchar(152));
	CREATE UNLOGGED TABLE nation (
		n_nationkey integer NOT NULL,
		n_name char(25) NOT NULL,
		n_regionkey integer NOT NULL,
		n_comment varchar(152));
	CREATE UNLOGGED TABLE part (
		p_partkey integer NOT NULL,
		p_name varchar(55) NOT NULL,
		p_mfgr char(25) NOT NULL,
		p_brand char(10) NOT NULL,
		p_type varchar(25) NOT NULL,
		p_size integer NOT NULL,
		p_container char(10) NOT NULL,
		p_retailprice numeric(15, 2) NOT NULL,
		p_comment varchar(23) NOT NULL);
	CREATE UNLOGGED TABLE supplier (
		s_suppkey integer NOT NULL,
		s_name char(25) NOT NULL,
		s_address varchar(40) NOT NULL,
		s_nationkey integer NOT NULL,
		s_phone char(15) NOT NULL,
		s_acctbal numeric(15, 2) NOT NULL,
		s_comment varchar(101) NOT NULL);
	CREATE UNLOGGED TABLE partsupp (
		ps_partkey integer NOT NULL,
		ps_suppkey integer NOT NULL,
		ps_availqty integer NOT NULL,
		ps_supplycost numeric(15, 2) NOT NULL,
		ps_comment varchar(199) NOT NULL);
	CREATE UNLOGGED TABLE customer (
		c_custkey integer NOT NULL,
		c_name varchar(25) NOT NULL,
		c_address varchar(40) NOT NULL,
		c_nationkey integer NOT NULL,
		c_phone char(15) NOT NULL,
		c_acctbal numeric(15, 2) NOT NULL,
		c_mktsegment char(10) NOT NULL,
		c_comment varchar(117) NOT NULL);
	CREATE UNLOGGED TABLE orders (
		o_orderkey integer NOT NULL,
		o_custkey integer NOT NULL,
		o_orderstatus char(1) NOT NULL,
		o_totalprice numeric(15, 2) NOT NULL,
		o_orderdate date NOT NULL,
		o_orderpriority char(15) NOT NULL,
		o_clerk char(15) NOT NULL,
		o_shippriority integer NOT NULL,
		o_comment varchar(79) NOT NULL);
	CREATE UNLOGGED TABLE lineitem (
		l_orderkey integer NOT NULL,
		l_partkey integer NOT NULL,
		l_suppkey integer NOT NULL,
		l_linenumber integer NOT NULL,
		l_quantity numeric(15, 2) NOT NULL,
		l_extendedprice numeric(15, 2) NOT NULL,
		l_discount numeric(15, 2) NOT NULL,
		l_tax numeric(15, 2) NOT NULL,
		l_returnflag char(1) NOT NULL,
		l_linestatus char(1) NOT NULL,
		l_shipdate date NOT NULL,
		l_commitdate date NOT NULL,
		l_receiptdate date NOT NULL,
		l_shipinstruct char(25) NOT NULL,
		l_shipmode char(10) NOT NULL,
		l_comment varchar(44) NOT NULL);
END
$$;

-- Row counts at scale factor sf: TPC-H's, at least one row each
CREATE FUNCTION bench.tpch_rows(sf numeric, what text)
RETURNS bigint
LANGUAGE sql IMMUTABLE
RETURN greatest(1, round(sf * CASE what
	WHEN 'supplier' THEN 10000
	WHEN 'customer' THEN 150000
	WHEN 'part' THEN 200000
	WHEN 'orders' THEN 1500000 END))::bigint;

-- The text that comments are cut from: 30,000 words, each drawn from the vocabulary below
-- ('special', 'requests' and 'deposits' twice as often as the others: about 1 % of the
-- orders' comments say 'special ... requests').  As bytea, whose substring
-- takes no scan from the start (a text's does, in a UTF-8 database).
CREATE FUNCTION bench.tpch_text_pool()
RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT convert_to(string_agg(w[1 + bench.rnd(i, 900) % array_length(w, 1)], ' ' ORDER BY i), 'UTF8')
	FROM (SELECT ARRAY[
		'furiously', 'quickly', 'carefully', 'blithely', 'slyly', 'fluffily', 'quietly',
		'ironic', 'final', 'pending', 'regular', 'express', 'special', 'special', 'bold', 'even',
		'silent', 'unusual', 'busy', 'idle', 'thin', 'close', 'daring', 'careful',
		'accounts', 'deposits', 'deposits', 'packages', 'requests', 'requests',
		'instructions', 'theodolites', 'foxes', 'ideas', 'platelets', 'dependencies',
		'excuses', 'asymptotes', 'courts', 'dolphins', 'frets', 'patterns', 'warhorses',
		'sleep', 'wake', 'haggle', 'nag', 'use', 'boost', 'affix', 'detect', 'integrate',
		'cajole', 'doze', 'run', 'print', 'among', 'above', 'against', 'along', 'across',
		'after', 'about', 'beside', 'the', 'according to', 'around', 'until'
	]) AS v(w), generate_series(1, 30000) AS i
$$;

-- A comment of minlen to maxlen characters from the pool; r1 and r2 pick the offset and
-- the length.  Inlined into the statements that call it, where the pool is a constant.
-- (The pool is ASCII letters and spaces, which encode(..., 'escape') leaves as they are.)
CREATE FUNCTION bench.tpch_comment(r1 bigint, r2 bigint, minlen int, maxlen int)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN encode(substring(bench.tpch_text_pool() FROM 1 + (r1 % (length(bench.tpch_text_pool()) - maxlen))::int
	FOR minlen + (r2 % (maxlen - minlen + 1))::int), 'escape');

-- A phone number of nation n: country code n + 10, then three random groups
CREATE FUNCTION bench.tpch_phone(n int, r bigint)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN format('%s-%s-%s-%s', n + 10, 100 + r % 900, 100 + (r / 900) % 900, 1000 + (r / 810000) % 9000);

-- An address of 10 to 40 characters
CREATE FUNCTION bench.tpch_address(r bigint)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN left(md5(r::text) || md5((r / 7)::text), 10 + (r % 31)::int);

-- An account balance: -999.99 .. 9999.99
CREATE FUNCTION bench.tpch_acctbal(r bigint)
RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (r % 1099999 - 99999) / 100.0;

-- TPC-H's retail price of part k
CREATE FUNCTION bench.tpch_retailprice(k bigint)
RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (90000 + (k / 10) % 20001 + 100 * (k % 1000)) / 100.0;

-- Supplier number i (0 .. 3) of part k among s suppliers (TPC-H's spreading rule)
CREATE FUNCTION bench.tpch_partsupp(k bigint, i bigint, s bigint)
RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ((k + i * (s / 4 + (k - 1) / s)) % s + 1)::int;

-- The key of order number i (1, 2, ...): the first 8 of every 32
CREATE FUNCTION bench.tpch_orderkey(i bigint)
RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ((i - 1) / 8 * 32 + (i - 1) % 8 + 1)::int;

-- The date of order number i: 1992-01-01 .. 1998-08-02 (TPC-H's end date less 151 days)
CREATE FUNCTION bench.tpch_orderdate(i bigint)
RETURNS date
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN date '1992-01-01' + (bench.rnd(i, 101) % 2406)::int;

-- Orders and their lines.  The lines first: an order's status and total price come from them.
CREATE PROCEDURE bench.tpch_load_orders(sf numeric)
LANGUAGE plpgsql AS $$
DECLARE
	n_orders bigint := bench.tpch_rows(sf, 'orders');
	n_customers bigint := bench.tpch_rows(sf, 'customer');
	n_parts bigint := bench.tpch_rows(sf, 'part');
	n_suppliers bigint := bench.tpch_rows(sf, 'supplier');
BEGIN
	INSERT INTO lineitem
	SELECT o.okey, l.partkey,
		bench.tpch_partsupp(l.partkey, bench.rnd(l.r, 111) % 4, n_suppliers),
		l.j, l.quantity, l.quantity * bench.tpch_retailprice(l.partkey),
		(bench.rnd(l.r, 112) % 11) / 100.0, (bench.rnd(l.r, 113) % 9) / 100.0,
		CASE WHEN d.receipt > date '1995-06-17' THEN 'N'
		     WHEN bench.rnd(l.r, 114) % 2 = 0 THEN 'R' ELSE 'A' END,
		CASE WHEN d.ship > date '1995-06-17' THEN 'O' ELSE 'F' END,
		d.ship, o.odate + 30 + (bench.rnd(l.r, 115) % 61)::int, d.receipt,
		(ARRAY['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])[1 + bench.rnd(l.r, 116) % 4],
		(ARRAY['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'])[1 + bench.rnd(l.r, 117) % 7],
		bench.tpch_comment(bench.rnd(l.r, 118), bench.rnd(l.r, 119), 10, 43)
	FROM (SELECT i, bench.tpch_orderkey(i) AS okey, bench.tpch_orderdate(i) AS odate
	      FROM generate_series(1, n_orders) AS i) AS o,
		LATERAL (SELECT j, o.i * 8 + j AS r, (1 + bench.rnd(o.i * 8 + j, 110) % n_parts)::int AS partkey,
		                1 + bench.rnd(o.i * 8 + j, 120) % 50 AS quantity
		         FROM generate_series(1, 1 + (bench.rnd(o.i, 102) % 7)::int) AS j) AS l,
		LATERAL (SELECT o.odate + 1 + (bench.rnd(l.r, 121) % 121)::int AS ship) AS s,
		LATERAL (SELECT s.ship AS ship, s.ship + 1 + (bench.rnd(l.r, 122) % 30)::int AS receipt) AS d;

	INSERT INTO orders
	SELECT o.okey, 3 * (c.k / 2) + c.k % 2 + 1,
		CASE WHEN l.f = l.n THEN 'F' WHEN l.f = 0 THEN 'O' ELSE 'P' END,
		l.total, bench.tpch_orderdate(o.i),
		(ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'])[1 + bench.rnd(o.i, 103) % 5],
		'Clerk#' || lpad((1 + bench.rnd(o.i, 104) % greatest(1, round(sf * 1000))::bigint)::text, 9, '0'),
		0,
		bench.tpch_comment(bench.rnd(o.i, 105), bench.rnd(o.i, 106), 19, 78)
	FROM (SELECT i, bench.tpch_orderkey(i) AS okey FROM generate_series(1, n_orders) AS i) AS o
		CROSS JOIN LATERAL (SELECT bench.rnd(o.i, 107) % (n_customers - n_customers / 3) AS k) AS c
		JOIN (SELECT l_orderkey, count(*) AS n, count(*) FILTER (WHERE l_linestatus = 'F') AS f,
		             sum(round(l_extendedprice * (1 + l_tax) * (1 - l_discount), 2)) AS total
		      FROM lineitem GROUP BY l_orderkey) AS l ON l.l_orderkey = o.okey
	ORDER BY o.okey;
END
$$;

-- region, nation, supplier, customer, part and partsupp
CREATE PROCEDURE bench.tpch_load_parts(sf numeric)
LANGUAGE plpgsql AS $$
DECLARE
	n_customers bigint := bench.tpch_rows(sf, 'customer');
	n_parts bigint := bench.tpch_rows(sf, 'part');
	n_suppliers bigint := bench.tpch_rows(sf, 'supplier');
	-- one supplier in every step complains, and one recommends: 5 of each per SF, at least 1
	step bigint := greatest(3, n_suppliers / greatest(1, round(5 * sf)));
BEGIN
	INSERT INTO region
	SELECT k, name, bench.tpch_comment(bench.rnd(k, 201), bench.rnd(k, 202), 31, 115)
	FROM unnest(ARRAY['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST']) WITH ORDINALITY AS r(name, n),
		LATERAL (SELECT (r.n - 1)::int AS k) AS key;

	-- TPC-H's 25 nations, each in its region
	INSERT INTO nation
	SELECT k, name, region, bench.tpch_comment(bench.rnd(k, 203), bench.rnd(k, 204), 31, 114)
	FROM (VALUES
		(0, 'ALGERIA', 0), (1, 'ARGENTINA', 1), (2, 'BRAZIL', 1), (3, 'CANADA', 1),
		(4, 'EGYPT', 4), (5, 'ETHIOPIA', 0), (6, 'FRANCE', 3), (7, 'GERMANY', 3),
		(8, 'INDIA', 2), (9, 'INDONESIA', 2), (10, 'IRAN', 4), (11, 'IRAQ', 4),
		(12, 'JAPAN', 2), (13, 'JORDAN', 4), (14, 'KENYA', 0), (15, 'MOROCCO', 0),
		(16, 'MOZAMBIQUE', 0), (17, 'PERU', 1), (18, 'CHINA', 2), (19, 'ROMANIA', 3),
		(20, 'SAUDI ARABIA', 4), (21, 'VIETNAM', 2), (22, 'RUSSIA', 3),
		(23, 'UNITED KINGDOM', 3), (24, 'UNITED STATES', 1)) AS n(k, name, region);

	INSERT INTO supplier
	SELECT i, 'Supplier#' || lpad(i::text, 9, '0'), bench.tpch_address(bench.rnd(i, 210)),
		nk, bench.tpch_phone(nk, bench.rnd(i, 212)), bench.tpch_acctbal(bench.rnd(i, 213)),
		CASE i % step
			WHEN step / 3 THEN bench.tpch_comment(bench.rnd(i, 215), 0, 20, 20) || ' Customer '
				|| bench.tpch_comment(bench.rnd(i, 216), bench.rnd(i, 217), 5, 30) || ' Complaints'
			WHEN 2 * step / 3 THEN bench.tpch_comment(bench.rnd(i, 215), 0, 20, 20) || ' Customer '
				|| bench.tpch_comment(bench.rnd(i, 216), bench.rnd(i, 217), 5, 30) || ' Recommends'
			ELSE bench.tpch_comment(bench.rnd(i, 215), bench.rnd(i, 216), 25, 100) END
	FROM generate_series(1, n_suppliers) AS i,
		LATERAL (SELECT (bench.rnd(i, 211) % 25)::int AS nk) AS n;

	INSERT INTO customer
	SELECT i, 'Customer#' || lpad(i::text, 9, '0'), bench.tpch_address(bench.rnd(i, 220)),
		nk, bench.tpch_phone(nk, bench.rnd(i, 222)), bench.tpch_acctbal(bench.rnd(i, 223)),
		(ARRAY['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD'])[1 + bench.rnd(i, 224) % 5],
		bench.tpch_comment(bench.rnd(i, 225), bench.rnd(i, 226), 29, 116)
	FROM generate_series(1, n_customers) AS i,
		LATERAL (SELECT (bench.rnd(i, 221) % 25)::int AS nk) AS n;

	INSERT INTO part
	SELECT i,
		(SELECT string_agg(c[1 + bench.rnd(i * 5 + w, 230) % 92], ' ' ORDER BY w)
		 FROM generate_series(1, 5) AS w),
		'Manufacturer#' || m, 'Brand#' || m || (1 + bench.rnd(i, 232) % 5),
		(ARRAY['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO'])[1 + bench.rnd(i, 233) % 6] || ' ' ||
		(ARRAY['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED'])[1 + bench.rnd(i, 234) % 5] || ' ' ||
		(ARRAY['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER'])[1 + bench.rnd(i, 235) % 5],
		1 + bench.rnd(i, 236) % 50,
		(ARRAY['SM', 'LG', 'MED', 'JUMBO', 'WRAP'])[1 + bench.rnd(i, 237) % 5] || ' ' ||
		(ARRAY['CASE', 'BOX', 'BAG', 'JAR', 'PKG', 'PACK', 'CAN', 'DRUM'])[1 + bench.rnd(i, 238) % 8],
		bench.tpch_retailprice(i),
		bench.tpch_comment(bench.rnd(i, 239), bench.rnd(i, 240), 5, 22)
	FROM generate_series(1, n_parts) AS i,
		LATERAL (SELECT 1 + bench.rnd(i, 231) % 5 AS m) AS mfgr,
		-- TPC-H's 92 colours
		(SELECT ARRAY[
			'almond', 'antique', 'aquamarine', 'azure', 'beige', 'bisque', 'black', 'blanched',
			'blue', 'blush', 'brown', 'burlywood', 'burnished', 'chartreuse', 'chiffon',
			'chocolate', 'coral', 'cornflower', 'cornsilk', 'cream', 'cyan', 'dark', 'deep',
			'dim', 'dodger', 'drab', 'firebrick', 'floral', 'forest', 'frosted', 'gainsboro',
			'ghost', 'goldenrod', 'green', 'grey', 'honeydew', 'hot', 'indian', 'ivory',
			'khaki', 'lace', 'lavender', 'lawn', 'lemon', 'light', 'lime', 'linen', 'magenta',
			'maroon', 'medium', 'metallic', 'midnight', 'mint', 'misty', 'moccasin', 'navajo',
			'navy', 'olive', 'orange', 'orchid', 'pale', 'papaya', 'peach', 'peru', 'pink',
			'plum', 'powder', 'puff', 'purple', 'red', 'rose', 'rosy', 'royal', 'saddle',
			'salmon', 'sandy', 'seashell', 'sienna', 'sky', 'slate', 'smoke', 'snow', 'spring',
			'steel', 'tan', 'thistle', 'tomato', 'turquoise', 'violet', 'wheat', 'white',
			'yellow']) AS colours(c);

	INSERT INTO partsupp
	SELECT p, bench.tpch_partsupp(p, s, n_suppliers), 1 + bench.rnd(p * 4 + s, 250) % 9999,
		(100 + bench.rnd(p * 4 + s, 251) % 99901) / 100.0,
		bench.tpch_comment(bench.rnd(p * 4 + s, 252), bench.rnd(p * 4 + s, 253), 49, 198)
	FROM generate_series(1, n_parts) AS p, generate_series(0, 3) AS s;
END
$$;

-- Primary keys, foreign keys, and an index on every foreign key that no primary key leads,
-- in three steps: 'orders' (orders and lineitem) and 'parts' (the other tables) may run in
-- two sessions at once, then 'foreign' (the foreign keys, which need both)
CREATE FUNCTION bench.tpch_add_keys(step text)
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	IF step = 'orders' THEN
		ALTER TABLE orders ADD PRIMARY KEY (o_orderkey);
		ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber);
		CREATE INDEX ON orders (o_custkey);
		CREATE INDEX ON lineitem (l_partkey, l_suppkey);
		CREATE INDEX ON lineitem (l_suppkey);
	ELSIF step = 'parts' THEN
		ALTER TABLE region ADD PRIMARY KEY (r_regionkey);
		ALTER TABLE nation ADD PRIMARY KEY (n_nationkey);
		ALTER TABLE part ADD PRIMARY KEY (p_partkey);
		ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey);
		ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey);
		ALTER TABLE customer ADD PRIMARY KEY (c_custkey);
		CREATE INDEX ON nation (n_regionkey);
		CREATE INDEX ON supplier (s_nationkey);
		CREATE INDEX ON customer (c_nationkey);
		CREATE INDEX ON partsupp (ps_suppkey);
	ELSIF step = 'foreign' THEN
		ALTER TABLE nation ADD FOREIGN KEY (n_regionkey) REFERENCES region;
		ALTER TABLE supplier ADD FOREIGN KEY (s_nationkey) REFERENCES nation;
		ALTER TABLE customer ADD FOREIGN KEY (c_nationkey) REFERENCES nation;
		ALTER TABLE partsupp ADD FOREIGN KEY (ps_partkey) REFERENCES part;
		ALTER TABLE partsupp ADD FOREIGN KEY (ps_suppkey) REFERENCES supplier;
		ALTER TABLE orders ADD FOREIGN KEY (o_custkey) REFERENCES customer;
		ALTER TABLE lineitem ADD FOREIGN KEY (l_orderkey) REFERENCES orders;
		ALTER TABLE lineitem ADD FOREIGN KEY (l_partkey, l_suppkey) REFERENCES partsupp;
	ELSE
		RAISE EXCEPTION 'unknown step %', step;
	END IF;
END
$$;
