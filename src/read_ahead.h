/*
 * read_ahead.h
 *		The read-ahead ring: a sequential scan of a heap table that reads
 *		rows a few ahead of the one it returns, so that the cache miss of one
 *		row's filter test overlaps the work on the rows before it.
 *
 * Its users are the prefetching scan (prefetch_scan.c) and the join scan
 * (join_scan.c).  A user's state node starts with a ReadAheadState, and
 * its ReadAheadOps say what the ring cannot know: what to hash for a row as
 * it is read ahead (prefetching the block the test will touch), how to test
 * the row at its turn, how to load the filter.  The ring does the rest: the
 * table scan (serial or parallel), the quals before the test (those that
 * can neither fail nor be seen as a row is read ahead, the others at its
 * turn), the order of rows, rescans, EvalPlanQual's recheck.
 *
 * The per-row loop, read_ahead_next, is inline in this header and takes the
 * ops as an argument: each user calls it with its own constant ops, so that
 * the compiler calls the user's functions directly, and inlines them, as if
 * the loop were written in the user's file (PostgreSQL 18's ExecScanExtended
 * is inline for the same reason).  What is not per row is in read_ahead.c.
 *
 * The ring calls the executor, the table access method and its user's ops;
 * it knows nothing of filters, elements or join filters.
 */
#ifndef BLOOMFILTER_READ_AHEAD_H
#define BLOOMFILTER_READ_AHEAD_H

#include "postgres.h"

#include "access/relscan.h"
#include "access/tableam.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "utils/memutils.h"

/* Slots of the ring: the most rows read ahead */
#define READ_AHEAD_RING		16

/*
 * Rows read ahead: enough to cover a miss at the prefetching scan's pace
 * (some 70 ns a row).  Measured side by side, 4 to 8 rows cost less than 16
 * or 32 with a filter that the last-level cache holds; a larger one misses
 * to DRAM and gains from 16.
 */
#define READ_AHEAD_NEAR		8
#define READ_AHEAD_FAR		READ_AHEAD_RING
#define READ_AHEAD_FAR_BYTES	(32 * 1024 * 1024)

/* The filter a row is tested against, as far as the ring knows it */
typedef enum ReadAheadFilter
{
	READ_AHEAD_FILTER_UNKNOWN,	/* not loaded yet: rows are read one at a
								 * time until the first reaches the test */
	READ_AHEAD_FILTER_NULL,		/* loaded, and no row can pass */
	READ_AHEAD_FILTER_READY		/* rows are read ahead and tested */
} ReadAheadFilter;

/* The first member of a user's state node */
typedef struct ReadAheadState
{
	CustomScanState css;
	ExprState  *ahead;			/* quals before the test, tested as a row is
								 * read ahead (they cannot fail or be seen),
								 * or NULL */
	ExprState  *in_turn;		/* the rest of them, tested at the row's
								 * turn, or NULL */
	MemoryContext row_cxt;		/* what hashing or testing a row allocates
								 * (a detoasted value); reset per row */
	ReadAheadFilter filter;
	TableScanDesc scan;
	bool		eof;
	int			depth;			/* rows read ahead, for this filter */
	TupleTableSlot *ring[READ_AHEAD_RING];

	/*
	 * Each row's hash, its halves apart: compilers copy a bf_hash just
	 * returned in two registers as one 16-byte load of the two 8-byte halves
	 * they had stored, a load that waits for the stores to retire.  The ops
	 * write and read them; hash_null says that the row has no hash (its
	 * element, or a key, is NULL).
	 */
	uint64		hash_lo[READ_AHEAD_RING];
	uint64		hash_hi[READ_AHEAD_RING];
	bool		hash_null[READ_AHEAD_RING];
	int			head;
	int			count;
	double		removed;		/* rows the filter test refused */
	double		removed_ahead;	/* rows 'ahead' refused */
	double		removed_in_turn;	/* rows 'in_turn' refused */
} ReadAheadState;

/* What the ring asks of its user; ring place 'at' holds the row's hash */
typedef struct ReadAheadOps
{
	/*
	 * As the row in 'slot' is read ahead, after the quals 'ahead': hashes
	 * what its test will look up into place 'at' and prefetches the block
	 * the test will touch.  Calls no SQL function (the row's turn may never
	 * come); allocates in row_cxt only, and resets it.
	 */
	void		(*hash) (ReadAheadState *ra, TupleTableSlot *slot, int at);

	/*
	 * At the row's turn, after the quals 'ahead' and 'in_turn': whether the
	 * row passes (the plan's qual, if any, comes after)
	 */
	bool		(*test) (ReadAheadState *ra, TupleTableSlot *slot, int at);

	/*
	 * When the first row reaches the test (as the plain qual would evaluate
	 * the filter): loads the filter; false when no row can pass, else true
	 * with *bytes the size of what the test touches, which sets how far
	 * rows are read ahead.  NULL: the filter is there from the start.
	 */
	bool		(*load) (ReadAheadState *ra, Size *bytes);

	/* EvalPlanQual's recheck tests the row as well as the quals */
	bool		recheck_tests;

	/*
	 * Rows removed are also counted in the node's instrumentation (summed
	 * over parallel workers): nfiltered2 by the quals, nfiltered1 by the
	 * test
	 */
	bool		counts_in_instrument;
} ReadAheadOps;

/* read_ahead.c */
extern bool read_ahead_can_read(Oid relid);
extern void read_ahead_begin(ReadAheadState *ra, const ReadAheadOps *ops,
							 EState *estate, List *before, int ahead);
extern void read_ahead_load(ReadAheadState *ra, const ReadAheadOps *ops);
extern bool read_ahead_recheck(ReadAheadState *ra, TupleTableSlot *slot,
							   const ReadAheadOps *ops);
extern void read_ahead_end(CustomScanState *node);
extern void read_ahead_rescan(ReadAheadState *ra, bool reload_filter);
extern Size read_ahead_estimate_dsm(CustomScanState *node,
									ParallelContext *pcxt);
extern void read_ahead_initialize_dsm(CustomScanState *node,
									  ParallelContext *pcxt,
									  void *coordinate);
extern void read_ahead_reinitialize_dsm(CustomScanState *node,
										ParallelContext *pcxt,
										void *coordinate);
extern void read_ahead_initialize_worker(CustomScanState *node, shm_toc *toc,
										 void *coordinate);

/*
 * The parallel members of a user's CustomExecMethods: the participants
 * share one parallel table scan, each with its own ring and filter
 */
#define READ_AHEAD_PARALLEL_METHODS \
	.EstimateDSMCustomScan = read_ahead_estimate_dsm, \
	.InitializeDSMCustomScan = read_ahead_initialize_dsm, \
	.ReInitializeDSMCustomScan = read_ahead_reinitialize_dsm, \
	.InitializeWorkerCustomScan = read_ahead_initialize_worker

/*
 * The next row of the table into 'slot', or false at its end.  The heap AM
 * returns each row as a reference to the tuple header in its scan
 * descriptor, which the next row overwrites: a ring slot keeps a copy of
 * that header (the buffer stays pinned by the slot).
 */
static inline bool
read_ahead_row(ReadAheadState *ra, TupleTableSlot *slot)
{
	HeapTupleTableSlot *hslot = (HeapTupleTableSlot *) slot;

	if (!table_scan_getnextslot(ra->scan, ForwardScanDirection, slot))
		return false;
	if (hslot->tuple != &hslot->tupdata)
	{
		hslot->tupdata = *hslot->tuple;
		hslot->tuple = &hslot->tupdata;
	}
	return true;
}

/* Whether the row in 'slot' passes 'qual' (NULL: no qual) */
static inline bool
read_ahead_passes(ReadAheadState *ra, const ReadAheadOps *ops,
				  ExprState *qual, TupleTableSlot *slot, double *removed)
{
	ExprContext *econtext = ra->css.ss.ps.ps_ExprContext;
	bool		pass;

	if (qual == NULL)
		return true;
	econtext->ecxt_scantuple = slot;
	pass = ExecQual(qual, econtext);
	ResetExprContext(econtext);
	if (!pass)
	{
		(*removed)++;
		if (ops->counts_in_instrument)
			InstrCountFiltered2(&ra->css.ss.ps, 1);
	}
	return pass;
}

/* A row the test refused */
static inline void
read_ahead_refused(ReadAheadState *ra, const ReadAheadOps *ops)
{
	ra->removed++;
	if (ops->counts_in_instrument)
		InstrCountFiltered1(&ra->css.ss.ps, 1);
}

/* For the ops: frees what hashing or testing a row left in row_cxt */
static inline void
read_ahead_reset_row(ReadAheadState *ra)
{
	if (!ra->row_cxt->isReset)
		MemoryContextReset(ra->row_cxt);
}

/*
 * Reads one row into the ring's next place and hashes it: what may happen
 * ahead of the row's turn.  False at the end of the table.
 */
static inline bool
read_ahead_fill(ReadAheadState *ra, const ReadAheadOps *ops)
{
	int			at = (ra->head + ra->count) & (ra->depth - 1);
	TupleTableSlot *slot = ra->ring[at];

	do
	{
		if (!read_ahead_row(ra, slot))
			return false;
		CHECK_FOR_INTERRUPTS();
	} while (!read_ahead_passes(ra, ops, ra->ahead, slot, &ra->removed_ahead));
	ops->hash(ra, slot, at);
	ra->count++;
	return true;
}

/*
 * The row returned, made the scan's current row: WHERE CURRENT OF
 * (execCurrentOf) reads the row a cursor stands on from ss_ScanTupleSlot,
 * so that pointer follows the ring slot returned (every ring slot is of
 * the table's own type, as the scan slot is).
 */
static inline TupleTableSlot *
read_ahead_current(ScanState *ss, TupleTableSlot *slot)
{
	ss->ss_ScanTupleSlot = slot;
	return slot;
}

/*
 * The next row that passes the test, for ExecScan.  Until the filter is
 * known (and while it is NULL) rows are read and tested one at a time, so
 * that the filter is loaded when the plain qual would evaluate it; then
 * they are read ahead.
 */
static pg_attribute_always_inline TupleTableSlot *
read_ahead_next(ReadAheadState *ra, const ReadAheadOps *ops)
{
	ScanState  *ss = &ra->css.ss;

	if (ra->scan == NULL)
		ra->scan = table_beginscan(ss->ss_currentRelation,
								   ss->ps.state->es_snapshot, 0, NULL);
	for (;;)
	{
		TupleTableSlot *slot;
		int			at;

		if (ra->filter != READ_AHEAD_FILTER_READY)
		{
			/*
			 * A NULL filter passes no row; the plain qual still tests the
			 * quals before it on every row, which matters only for those
			 * tested in turn.
			 */
			if (ra->filter == READ_AHEAD_FILTER_NULL && ra->in_turn == NULL)
				return ExecClearTuple(ss->ss_ScanTupleSlot);
			slot = ra->ring[0];
			if (!read_ahead_row(ra, slot))
				return ExecClearTuple(ss->ss_ScanTupleSlot);
			CHECK_FOR_INTERRUPTS();
			if (!read_ahead_passes(ra, ops, ra->ahead, slot,
								   &ra->removed_ahead) ||
				!read_ahead_passes(ra, ops, ra->in_turn, slot,
								   &ra->removed_in_turn))
				continue;
			if (ra->filter == READ_AHEAD_FILTER_UNKNOWN)
				read_ahead_load(ra, ops);
			if (ra->filter == READ_AHEAD_FILTER_READY)
			{
				ops->hash(ra, slot, 0);
				if (ops->test(ra, slot, 0))
					return read_ahead_current(ss, slot);
			}
			read_ahead_refused(ra, ops);
			continue;
		}
		while (!ra->eof && ra->count < ra->depth)
			ra->eof = !read_ahead_fill(ra, ops);
		if (ra->count == 0)
			return ExecClearTuple(ss->ss_ScanTupleSlot);
		at = ra->head;
		ra->head = (ra->head + 1) & (ra->depth - 1);
		ra->count--;
		/* the row's turn */
		if (!read_ahead_passes(ra, ops, ra->in_turn, ra->ring[at],
							   &ra->removed_in_turn))
			continue;
		if (ops->test(ra, ra->ring[at], at))
			return read_ahead_current(ss, ra->ring[at]);
		read_ahead_refused(ra, ops);
	}
}

/*
 * ExecCustomScan of a user whose ExecScan methods are 'next' (its
 * read_ahead_next) and 'recheck' (its read_ahead_recheck).
 *
 * count(*) over the scan asks for no column, and the planner does not give
 * a custom scan the table's own targetlist as it gives a sequential scan;
 * rather than project every row into an empty tuple, the scan then returns
 * one empty tuple made once.
 */
static pg_attribute_always_inline TupleTableSlot *
read_ahead_exec(CustomScanState *node, ExecScanAccessMtd next,
				ExecScanRecheckMtd recheck)
{
	TupleTableSlot *result = node->ss.ps.ps_ResultTupleSlot;

	if (node->ss.ps.plan->targetlist == NIL && node->ss.ps.qual == NULL &&
		node->ss.ps.state->es_epq_active == NULL)
	{
		TupleTableSlot *row = next(&node->ss);

		if (TupIsNull(row))
			return ExecClearTuple(result);
		if (TTS_EMPTY(result))
			ExecStoreVirtualTuple(result);
		return result;
	}
	return ExecScan(&node->ss, next, recheck);
}

#endif							/* BLOOMFILTER_READ_AHEAD_H */
