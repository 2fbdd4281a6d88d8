--
-- setup: runs first (the Makefile's REGRESS puts it there).  The extension, and the helpers
-- the other tests share, so that each test file holds only its own concern.
--
SET client_min_messages = warning;
CREATE EXTENSION bloomfilter;
-- The SQLSTATE a statement raises, or 'no error'
CREATE FUNCTION sqlstate_of(stmt text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE stmt;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END
$$;
SELECT sqlstate_of('SELECT 1') AS ok, sqlstate_of('SELECT 1/0') AS division;
