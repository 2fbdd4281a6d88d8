/*
 * bloomfilter.c
 *		Module entry point of the bloomfilter extension.
 */
#include "postgres.h"
#include "fmgr.h"

PG_MODULE_MAGIC;
