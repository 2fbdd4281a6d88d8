/*
 * custom_scan.h
 *		What the custom scans build alike (custom_scan.c), and the calls
 *		between the scans and the join filters: the probe API
 *		(join_filter/probe.c), whether an expression is loud (loud.c), the
 *		join scan's plan (join_scan.c).
 */
#ifndef BLOOMFILTER_CUSTOM_SCAN_H
#define BLOOMFILTER_CUSTOM_SCAN_H

#include "postgres.h"

#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"

#include "bf.h"

/*
 * A custom scan's plan methods, with what custom_state_new needs to make
 * its state node.  'methods' comes first: a plan's methods pointer (which
 * RegisterCustomScanMethods gives back to a worker reading the plan) leads
 * to the whole kind.
 */
typedef struct CustomScanKind
{
	CustomScanMethods methods;
	Size		state_size;		/* a struct that starts with a CustomScanState */
	const CustomExecMethods *exec;
} CustomScanKind;

extern CustomPath *custom_path_like(const Path *like,
									const CustomPathMethods *methods);
extern CustomScan *custom_scan_of(const CustomPath *best_path, List *tlist,
								  const CustomScanKind *kind);
extern Node *custom_state_new(CustomScan *cscan);

struct ExplainState;

extern char *deparse_describing_filters(Node *expr, List *context,
										bool verbose);
extern void explain_quals(List *quals, const char *label, List *context,
						  struct ExplainState *es);

/*
 * join_filter/probe.c: the join filters a probe site tests, for the join
 * probe node and the join scan (join_scan.c), which stands in for a
 * sequential scan that is a probe site
 */
typedef struct JoinProbe JoinProbe;

extern JoinProbe *join_probe_begin(List *tests, EState *estate);
extern void join_probe_heap_rows(JoinProbe *jp, TupleDesc desc);
extern bool join_probe_hashes_ahead(const JoinProbe *jp);
/* join_probe_hash's answers */
typedef enum JoinProbeHash
{
	JP_HASHED,					/* *h is the row's hash */
	JP_NULL,					/* a key is NULL: the row has no partner */
	JP_LATER					/* not taken: the filter is not tested now
								 * (not complete, overfull, or rested by the
								 * guard) */
} JoinProbeHash;

extern JoinProbeHash join_probe_hash(JoinProbe *jp, TupleTableSlot *slot,
									 bf_hash *h);
extern bool join_probe_passes(JoinProbe *jp, TupleTableSlot *slot,
							  const bf_hash *first, bool first_null);
extern void join_probe_explain(JoinProbe *jp, CustomScanState *node,
							   List *tests, List *key_exprs, List *ancestors,
							   struct ExplainState *es);

/*
 * loud.c: whether evaluating an expression may fail or be seen by
 * anyone (see loud_walker); 'params' NULL: every parameter is loud, else
 * only the executor parameters that initplans set (their first use runs
 * the initplan)
 */
typedef struct LoudParams
{
	const Bitmapset *initplan_params;
} LoudParams;

extern bool expression_is_loud(Node *node, const LoudParams *params);
extern bool support_function_is_quiet(Oid funcid);

/*
 * join_scan.c: the join scan in place of 'scan' under 'probe', or NULL
 * (join_filter/placement.c's one call into the scan)
 */
extern Plan *join_scan_for(Plan *scan, CustomScan *probe, List *rtable);

#endif							/* BLOOMFILTER_CUSTOM_SCAN_H */
