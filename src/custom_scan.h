/*
 * custom_scan.h
 *		What the aggregate scan and the prefetching scan build alike.
 */
#ifndef BLOOMFILTER_CUSTOM_SCAN_H
#define BLOOMFILTER_CUSTOM_SCAN_H

#include "postgres.h"

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

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

#endif							/* BLOOMFILTER_CUSTOM_SCAN_H */
