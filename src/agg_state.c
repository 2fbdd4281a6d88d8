/*
 * agg_state.c
 *		The aggregates' in-memory state: a bloomfilter as an expanded object.
 *
 * A plain varlena state would be copied once more by nodeAgg when it first
 * becomes the transition value, so a 100 MB filter would briefly need
 * 200 MB.  nodeAgg adopts a read-write expanded object whose memory context
 * is a child of the aggregate context without copying it, and passes the
 * same pointer to every later transition call.  The object holds the filter
 * in its flat, serialised form plus the view decoded once, so a transition
 * neither copies nor re-validates anything.  Whenever the value leaves the
 * aggregate (stored, sent to the leader of a parallel query, printed)
 * PostgreSQL flattens it with a plain memcpy.
 */
#include "bloomfilter.h"

#include "utils/expandeddatum.h"
#include "utils/memutils.h"

/* Flattening starts here: the deferred adds are applied first */
static Size
state_get_flat_size(ExpandedObjectHeader *eohptr)
{
	BloomState *state = (BloomState *) eohptr;

	filterbuf_flush(&state->fb);
	return VARSIZE(filterbuf_flat(&state->fb));
}

static void
state_flatten_into(ExpandedObjectHeader *eohptr, void *result,
				   Size allocated_size)
{
	BloomState *state = (BloomState *) eohptr;

	filterbuf_flush(&state->fb);
	Assert(allocated_size == VARSIZE(filterbuf_flat(&state->fb)));
	memcpy(result, filterbuf_flat(&state->fb), allocated_size);
}

const ExpandedObjectMethods bloom_state_methods = {
	state_get_flat_size,
	state_flatten_into
};

/* An empty expanded object in a new child context of 'parent' */
static BloomState *
state_alloc(MemoryContext parent)
{
	MemoryContext objcxt = AllocSetContextCreate(parent, "bloomfilter state",
												 ALLOCSET_SMALL_SIZES);
	BloomState *state = MemoryContextAlloc(objcxt, sizeof(BloomState));

	EOH_init_header(&state->hdr, &bloom_state_methods, objcxt);
	state->sizing.known = false;
	return state;
}

/* A new, empty state of the planned shape */
BloomState *
bloom_state_create(MemoryContext parent, const bf_params *params)
{
	BloomState *state = state_alloc(parent);

	filterbuf_create(&state->fb, state->hdr.eoh_context, params);
	return state;
}

/* A state holding a copy of a (validated, detoasted) filter */
BloomState *
bloom_state_copy(MemoryContext parent, BloomFilter *bf)
{
	BloomState *state = state_alloc(parent);

	filterbuf_copy(&state->fb, state->hdr.eoh_context, (struct varlena *) bf,
				   true);
	return state;
}

/*
 * The state behind a datum, if it is one of ours (read-only or not).  A
 * reader asks for the deferred adds to be applied first ('flush'); the
 * transition function, which only adds, does not.
 */
BloomState *
bloom_state_from_datum(Datum d, bool flush)
{
	ExpandedObjectHeader *eoh;
	BloomState *state;

	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
		return NULL;
	eoh = DatumGetEOHP(d);
	if (eoh->eoh_methods != &bloom_state_methods)
		return NULL;
	state = (BloomState *) eoh;
	if (flush)
		filterbuf_flush(&state->fb);
	return state;
}

Datum
bloom_state_datum(BloomState *state)
{
	return EOHPGetRWDatum(&state->hdr);
}
