/*
 * module.c
 *		The module's magic block and what loading the library sets up: the
 *		custom scans' settings, methods and hooks, and PL/pgSQL's in-place
 *		changes.
 */
#include "bloomfilter.h"

#include "utils/guc.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

static const struct config_enum_entry join_filter_options[] = {
	{"off", JOIN_FILTER_OFF, false},
	{"on", JOIN_FILTER_ON, false},
	{"always", JOIN_FILTER_ALWAYS, false},
	{"false", JOIN_FILTER_OFF, true},
	{"true", JOIN_FILTER_ON, true},
	{"no", JOIN_FILTER_OFF, true},
	{"yes", JOIN_FILTER_ON, true},
	{"0", JOIN_FILTER_OFF, true},
	{"1", JOIN_FILTER_ON, true},
	{NULL, 0, false}
};

void
_PG_init(void)
{
	DefineCustomBoolVariable("bloomfilter.prefetch_scan",
							 "Lets a sequential scan test a Bloom filter a few rows ahead.",
							 "A scan whose WHERE clause tests every row against one filter, and a sequential scan that tests automatic join filters (the join scan), read rows ahead and prefetch the filter's blocks.",
							 &prefetch_scan_enabled, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("bloomfilter.agg_scan",
							 "Lets bloomfilter_agg add the rows of its input without an Agg node.",
							 "A query whose aggregates are all bloomfilter_agg, with no GROUP BY, hashes and adds each row in a custom scan over the Agg's input.",
							 &agg_scan_enabled, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomEnumVariable("bloomfilter.join_filter",
							 "Lets hash joins drop probe rows that a Bloom filter of the build side's keys rules out.",
							 "on: where the planner's estimates say it pays, with a run-time guard; always: every hash join that can take one (for tests); off: none.",
							 &join_filter_mode, JOIN_FILTER_ON, join_filter_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	prefetch_scan_init();
	join_scan_init();
	agg_scan_init();
	inplace_init();
	join_filter_init();
	MarkGUCPrefixReserved("bloomfilter");
}
