/*
 * scalable.c
 *		The scalable layout (not yet implemented: an ops table without a plan
 *		marks the variant as unavailable).
 */
#include "bf_internal.h"

const bf_variant_ops bf_scalable_ops = {
	.name = "scalable"
};
