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

void
_PG_init(void)
{
	DefineCustomBoolVariable("bloomfilter.prefetch_scan",
							 "Lets a sequential scan test a Bloom filter a few rows ahead.",
							 "A scan whose WHERE clause tests every row against one filter reads rows ahead and prefetches the filter's blocks.",
							 &prefetch_scan_enabled, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("bloomfilter.agg_scan",
							 "Lets bloomfilter_agg add the rows of its input without an Agg node.",
							 "A query whose aggregates are all bloomfilter_agg, with no GROUP BY, hashes and adds each row in a custom scan over the Agg's input.",
							 &agg_scan_enabled, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	prefetch_scan_init();
	agg_scan_init();
	inplace_init();
	MarkGUCPrefixReserved("bloomfilter");
}
