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
	prefetch_scan_init();
	agg_scan_init();
	inplace_init();
	MarkGUCPrefixReserved("bloomfilter");
}
