/*
 * read_ahead.c
 *		The read-ahead ring's life and everything of it that is not per row
 *		(read_ahead.h has the per-row loop and the interface).
 *
 * Owns ReadAheadState: starting the ring, loading the filter, EvalPlanQual's
 * recheck, end and rescan, the parallel scan's shared state, and which
 * tables the ring can read.  Calls PostgreSQL's executor and table access
 * method, and its user's ReadAheadOps; called by prefetch_scan.c and
 * join_scan.c only.
 */
#include "read_ahead.h"

#include "access/table.h"
#include "catalog/pg_am_d.h"
#include "utils/rel.h"

/* (the ring's places wrap by a mask, not a division) */
StaticAssertDecl((READ_AHEAD_NEAR & (READ_AHEAD_NEAR - 1)) == 0 &&
				 (READ_AHEAD_FAR & (READ_AHEAD_FAR - 1)) == 0,
				 "read-ahead depths must be powers of two");

/*
 * Whether the ring can read a table: one stored by the heap access method,
 * whose rows it keeps in buffer heap slots (read_ahead_row).  Opens the
 * table, which the caller has locked.
 */
bool
read_ahead_can_read(Oid relid)
{
	Relation	rel = table_open(relid, NoLock);
	bool		heap = rel->rd_rel->relam == HEAP_TABLE_AM_OID;

	table_close(rel, NoLock);
	return heap;
}

/*
 * BeginCustomScan's part of the ring: the ring's slots and the quals before
 * the test ('before', of which the first 'ahead' are tested as a row is
 * read ahead).  The user then starts what its ops need.
 */
void
read_ahead_begin(ReadAheadState *ra, const ReadAheadOps *ops, EState *estate,
				 List *before, int ahead)
{
	CustomScanState *node = &ra->css;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Relation	rel = node->ss.ss_currentRelation;
	int			i;

	/*
	 * ExecInitCustomScan gave the scan a virtual slot and compiled the qual
	 * and the projection for one.  The rows are returned in the table's own
	 * slots (keeping their ctid, deformed only as far as needed), so the
	 * scan slot and both expressions are made again for that slot type.
	 */
	ExecInitScanTupleSlot(estate, &node->ss, RelationGetDescr(rel),
						  table_slot_callbacks(rel));
	node->ss.ps.qual = ExecInitQual(cscan->scan.plan.qual, &node->ss.ps);
	ExecAssignScanProjectionInfoWithVarno(&node->ss, cscan->scan.scanrelid);

	ra->ahead = ExecInitQual(list_truncate(list_copy(before), ahead),
							 &node->ss.ps);
	ra->in_turn = ExecInitQual(list_copy_tail(before, ahead), &node->ss.ps);
	ra->depth = READ_AHEAD_NEAR;
	ra->filter = ops->load != NULL ?
		READ_AHEAD_FILTER_UNKNOWN : READ_AHEAD_FILTER_READY;
	ra->row_cxt = AllocSetContextCreate(estate->es_query_cxt,
										"bloomfilter prefetch row",
										ALLOCSET_DEFAULT_SIZES);
	/* heap slots, each with its own copy of a tuple header (read_ahead_row) */
	for (i = 0; i < READ_AHEAD_RING; i++)
		ra->ring[i] = table_slot_create(rel, &estate->es_tupleTable);
	Assert(ra->ring[0]->tts_ops == &TTSOpsBufferHeapTuple);
}

/*
 * The filter, loaded when the first row reaches the test, and how far to
 * read ahead with it
 */
void
read_ahead_load(ReadAheadState *ra, const ReadAheadOps *ops)
{
	Size		bytes = 0;
	bool		some = ops->load(ra, &bytes);

	ra->filter = some ? READ_AHEAD_FILTER_READY : READ_AHEAD_FILTER_NULL;

	/*
	 * The ring is empty here (rows are read ahead only once the filter is
	 * known): its first 'depth' slots are used, so that a near filter's scan
	 * cycles through fewer slots (and fewer cache lines) too.
	 */
	Assert(ra->count == 0);
	ra->head = 0;
	ra->depth = some && bytes > READ_AHEAD_FAR_BYTES ?
		READ_AHEAD_FAR : READ_AHEAD_NEAR;
}

/* EvalPlanQual: the row again, its quals and (recheck_tests) its test */
bool
read_ahead_recheck(ReadAheadState *ra, TupleTableSlot *slot,
				   const ReadAheadOps *ops)
{
	double		ignored;

	if (!read_ahead_passes(ra, ops, ra->ahead, slot, &ignored) ||
		!read_ahead_passes(ra, ops, ra->in_turn, slot, &ignored))
		return false;
	if (!ops->recheck_tests)
		return true;
	if (ra->filter == READ_AHEAD_FILTER_UNKNOWN)
		read_ahead_load(ra, ops);
	if (ra->filter == READ_AHEAD_FILTER_NULL)
		return false;
	/* (an EvalPlanQual scan never reads ahead: its ring is unused) */
	Assert(ra->count == 0);
	ops->hash(ra, slot, 0);
	return ops->test(ra, slot, 0);
}

static void
clear_ring(ReadAheadState *ra)
{
	int			i;

	for (i = 0; i < READ_AHEAD_RING; i++)
		ExecClearTuple(ra->ring[i]);
	ra->head = 0;
	ra->count = 0;
	ra->eof = false;
}

/*
 * EndCustomScan's part of the ring, and the whole of it for a user with
 * nothing of its own to free
 */
void
read_ahead_end(CustomScanState *node)
{
	ReadAheadState *ra = (ReadAheadState *) node;

	clear_ring(ra);
	if (ra->scan)
		table_endscan(ra->scan);
	ra->scan = NULL;
}

/*
 * ReScanCustomScan: the table from its start; with 'reload_filter' the
 * filter is loaded again when the first row reaches the test
 */
void
read_ahead_rescan(ReadAheadState *ra, bool reload_filter)
{
	clear_ring(ra);
	if (ra->scan)
		table_rescan(ra->scan, NULL);
	if (reload_filter)
		ra->filter = READ_AHEAD_FILTER_UNKNOWN;
	ExecScanReScan(&ra->css.ss);
}

/*
 * Parallel execution: the table AM's parallel scan hands out blocks to the
 * leader and the workers; each keeps its own ring and filter.
 */
Size
read_ahead_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return table_parallelscan_estimate(node->ss.ss_currentRelation,
									   node->ss.ps.state->es_snapshot);
}

void
read_ahead_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
						  void *coordinate)
{
	ReadAheadState *ra = (ReadAheadState *) node;

	table_parallelscan_initialize(node->ss.ss_currentRelation, coordinate,
								  node->ss.ps.state->es_snapshot);
	ra->scan = table_beginscan_parallel(node->ss.ss_currentRelation,
										coordinate);
}

void
read_ahead_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
							void *coordinate)
{
	table_parallelscan_reinitialize(node->ss.ss_currentRelation, coordinate);
}

void
read_ahead_initialize_worker(CustomScanState *node, shm_toc *toc,
							 void *coordinate)
{
	ReadAheadState *ra = (ReadAheadState *) node;

	ra->scan = table_beginscan_parallel(node->ss.ss_currentRelation,
										coordinate);
}
