/*
 * scalable_model.c
 *		The model of the scalable layout (scalable.c): the rate budget of
 *		each level, the plan of each stage, and the sizing of a chain's
 *		first stage.
 *
 * A chain planned for n0 items at rate p gives its stage of level j the
 * capacity n0 2^j and the rate p0 r^j, p0 = p (1 - r), so that the rates
 * of any number of stages sum to less than p (scalable.c explains r).
 */
#include <string.h>

#include "bf_internal.h"

/* The tightening ratio r */
#define TIGHTENING		0.85
#define MAX_LEVEL		BF_SCALABLE_MAX_LEVEL

/*
 * The rate budget of a level: p0 r^j with p0 = p (1 - r), by repeated
 * multiplication rather than pow() so that every platform computes the same
 * double, and so plans the same stage.
 */
static double
level_rate(double fpr, uint32_t level)
{
	double		q = fpr * (1.0 - TIGHTENING);
	uint32_t	i;

	for (i = 0; i < level; i++)
		q *= TIGHTENING;
	return q;
}

/*
 * Plans of stages, remembered.  Planning one stage with the exact blocked
 * model takes milliseconds, and validation checks every stage of every
 * filter it opens against its plan, once per row; the plan of (n0, p,
 * level) never changes, so a small direct-mapped table of recent plans
 * makes that check cheap.  The table is plain static memory of this
 * process (PostgreSQL backends are processes; the core is not meant to be
 * called from several threads at once).  An entry with hashes == 0 is empty.
 */
#define MEMO_SLOTS		(32 * (MAX_LEVEL + 1))

typedef struct stage_plan
{
	uint64_t	n0;
	uint64_t	rate;			/* bit pattern of p */
	uint64_t	bits;
	uint32_t	level;
	uint32_t	hashes;
} stage_plan;

static stage_plan memo[MEMO_SLOTS];

/*
 * The stage of 'level' in a chain planned for n0 items at rate p: its
 * capacity n0 * 2^level, and the blocked bits and k for that many items at
 * p0 r^level.
 */
bf_status
bf_scalable_plan_stage(uint64_t n0, double fpr, uint32_t level,
					   uint64_t *capacity, uint64_t *bits, uint32_t *hashes)
{
	uint64_t	rate;
	stage_plan *slot;
	double		q;
	bf_status	st;

	if (level > MAX_LEVEL || n0 < 1)
		return BF_E_LAYOUT;
	if (n0 > (UINT64_MAX >> level))
		return BF_E_TOO_LARGE;	/* capacity past 64 bits */
	*capacity = n0 << level;
	memcpy(&rate, &fpr, sizeof(rate));
	/* a row of levels per (n0, p): one chain's stages never evict each other */
	slot = &memo[bf_fmix64(n0 ^ bf_fmix64(rate)) % (MEMO_SLOTS / (MAX_LEVEL + 1)) *
				 (MAX_LEVEL + 1) + level];
	if (slot->hashes != 0 && slot->n0 == n0 && slot->rate == rate &&
		slot->level == level)
	{
		*bits = slot->bits;
		*hashes = slot->hashes;
		return BF_OK;
	}
	q = level_rate(fpr, level);
	if (!(q > 0.0))
		return BF_E_TOO_LARGE;	/* underflowed: no filter reaches it */
	st = bf_blocked_size((double) *capacity, q, bits, hashes);
	if (st != BF_OK)
		return st;
	slot->n0 = n0;
	slot->rate = rate;
	slot->level = level;
	slot->bits = *bits;
	slot->hashes = *hashes;
	return BF_OK;
}

/*
 * The model: one stage for 'items' at p0 = p (1 - r), the first stage of
 * bloomfilter_create(items, p, 'scalable').
 */
bf_status
bf_scalable_size(double items, double fpr, uint64_t *bits, uint32_t *hashes)
{
	return bf_blocked_size(items, level_rate(fpr, 0), bits, hashes);
}

/* Most items a first stage of 'bits' bits holds within p0 = p (1 - r) */
double
bf_scalable_capacity(double bits, double fpr, uint32_t hashes)
{
	return bf_blocked_capacity(bits, level_rate(fpr, 0), hashes);
}
