/*
 * report.h
 *		How a failed assertion is told, shared by the core unit tests
 *		(check.h) and the fuzz targets (test/fuzz/fuzz_common.h): one line,
 *		flushed at once.
 */
#ifndef BF_REPORT_H
#define BF_REPORT_H

#include <stdarg.h>
#include <stdio.h>

/* "<head><file>:<line>: (<cond>) <message>" and a newline on fp */
static inline void
report_failure(FILE *fp, const char *head, const char *file, int line,
			   const char *cond, const char *fmt, va_list ap)
{
	fprintf(fp, "%s%s:%d: (%s) ", head, file, line, cond);
	vfprintf(fp, fmt, ap);
	fputc('\n', fp);
	fflush(fp);
}

#endif							/* BF_REPORT_H */
