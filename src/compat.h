/*
 * compat.h
 *		Every difference between the PostgreSQL versions the extension builds
 *		for (15, 16, 17, 18): the rest of src/ is written against this file
 *		and tests no PG_VERSION_NUM of its own.
 */
#ifndef BLOOMFILTER_COMPAT_H
#define BLOOMFILTER_COMPAT_H

#include "postgres.h"

/*
 * 18 replaced the suffix pg_attribute_noreturn() by the prefix pg_noreturn;
 * before 18 the prefix is GCC's attribute, which every compiler PGXS uses
 * here understands.
 */
#ifndef pg_noreturn
#define pg_noreturn __attribute__((noreturn))
#endif

/* 18 declared the byte side of base64's encode and decode as uint8 */
#if PG_VERSION_NUM >= 180000
typedef uint8 bf_b64_byte;
#else
typedef char bf_b64_byte;
#endif

/* 18 moved the EXPLAIN property writers to commands/explain_format.h */
#if PG_VERSION_NUM >= 180000
#define BF_EXPLAIN_FORMAT_H "commands/explain_format.h"
#else
#define BF_EXPLAIN_FORMAT_H "commands/explain.h"
#endif

/*
 * 18 lets a function's planner support function tell PL/pgSQL that it may
 * modify an expanded-object variable in place (SupportRequestModifyInPlace).
 */
#if PG_VERSION_NUM >= 180000
#define BF_HAVE_MODIFY_IN_PLACE 1
#else
#define BF_HAVE_MODIFY_IN_PLACE 0
#endif

/*
 * Join types whose outer rows never reach the output, only their matches:
 * right anti (16) and right semi (18)
 */
#if PG_VERSION_NUM >= 180000
#define BF_JOIN_RIGHT_ONLY(jt) ((jt) == JOIN_RIGHT_ANTI || (jt) == JOIN_RIGHT_SEMI)
#elif PG_VERSION_NUM >= 160000
#define BF_JOIN_RIGHT_ONLY(jt) ((jt) == JOIN_RIGHT_ANTI)
#else
#define BF_JOIN_RIGHT_ONLY(jt) ((void) (jt), false)
#endif

/*
 * 18 counts the disabled nodes of a plan tree in each node
 * (Plan.disabled_nodes): a node set above another counts the other's, or
 * EXPLAIN says "Disabled" of it
 */
#if PG_VERSION_NUM >= 180000
#define BF_COPY_DISABLED_NODES(to, from) ((to)->disabled_nodes = (from)->disabled_nodes)
#else
#define BF_COPY_DISABLED_NODES(to, from) ((void) (to), (void) (from))
#endif

#endif							/* BLOOMFILTER_COMPAT_H */
