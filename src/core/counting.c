/*
 * counting.c
 *		The counting layout (not yet implemented: an ops table without a plan
 *		marks the variant as unavailable).
 */
#include "bf_internal.h"

const bf_variant_ops bf_counting_ops = {
	.name = "counting"
};
