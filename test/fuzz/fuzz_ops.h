/*
 * fuzz_ops.h
 *		The operations of fuzz_ops.c's scripts, shared with make_corpus.c,
 *		which writes such scripts (the format: see fuzz_ops.c).
 */
#ifndef FUZZ_OPS_H
#define FUZZ_OPS_H

enum
{
	OP_ADD,
	OP_ADD_MANY,
	OP_REMOVE,
	OP_REMOVE_KNOWN,
	OP_CONTAINS,
	OP_UNION,
	OP_INTERSECT,
	OP_FILL,
	OP_GROW,
	OP_COPY,
	OP_CHECK,
	OP_ADD_DUP,
	OP_RESET,
	OP_COUNT
};

#endif							/* FUZZ_OPS_H */
