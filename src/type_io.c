/*
 * type_io.c
 *		Text and binary I/O of the bloomfilter type, and the bytea casts.
 *
 * The text form is the base64 of the serialised bytes (4/3 of the binary
 * size), or, when it is shorter, '~' and the base64 of their sparse form
 * (the header, then the payload's set bits as Rice-coded gaps: STORAGE.md
 * section 15).  Citus ships each shard's partial aggregate state as text,
 * and a partial filter sized for the whole set is mostly zero bits: its
 * sparse text is a fraction of its base64.  Both are exact round trips.
 * Every way in validates the bytes before they become a bloomfilter, and
 * allocates only in proportion to the input it already holds or to the
 * size a valid header declares.
 */
#include "bloomfilter.h"

#include "common/base64.h"
#include "utils/memutils.h"
#include "libpq/pqformat.h"

PG_FUNCTION_INFO_V1(bloomfilter_in);
PG_FUNCTION_INFO_V1(bloomfilter_out);
PG_FUNCTION_INFO_V1(bloomfilter_recv);
PG_FUNCTION_INFO_V1(bloomfilter_send);
PG_FUNCTION_INFO_V1(bloomfilter_from_bytea);

/* Largest filter whose base64 text still fits in one palloc */
#define MAX_TEXT_BYTES	((Size) (MaxAllocSize - 1) / 4 * 3)

/* The first character of the sparse text form; base64 never has it */
#define SPARSE_MARK		'~'

/*
 * The white space allowed around the text form: space, tab, newline, carriage
 * return and form feed.  PostgreSQL's scanner_isspace took a vertical tab too
 * from 16 on; the text form must read the same on every server version.
 */
static inline bool
is_text_form_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* Base64 of 'len' bytes after 'prefix' (0: none), NUL-terminated */
static char *
base64_text(const void *bytes, Size len, char prefix)
{
	/* pg_b64_enc_len computes in int and overflows past 512 MB: do it here */
	Size		enclen = (len + 2) / 3 * 4;
	char	   *out = palloc(enclen + 2);
	char	   *at = out;
	int			n;

	if (prefix)
		*at++ = prefix;
	n = pg_b64_encode((const bf_b64_byte *) bytes, (int) len, at, (int) enclen);
	if (n < 0)
		elog(ERROR, "could not encode bloomfilter as base64");
	at[n] = '\0';
	return out;
}

/* Decodes the base64 of 'len' characters; *n gets the bytes' length */
static char *
base64_bytes(const char *str, Size len, Size offset, int *n, bool sparse)
{
	Size		maxbytes = len / 4 * 3 + 3;
	char	   *bytes = palloc(offset + maxbytes);

	*n = pg_b64_decode(str, (int) len, (bf_b64_byte *) (bytes + offset),
					   (int) maxbytes);
	if (*n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type bloomfilter"),
				 sparse ?
				 errdetail("The sparse text form of a bloomfilter is \"~\" followed by base64; the input after \"~\" is not valid base64.") :
				 errdetail("The text form of a bloomfilter is base64; the input is not valid base64."),
				 errhint("Produce the text form with bloomfilter's output function, or cast bytea with ::bloomfilter.")));
	return bytes;
}

/* The filter that sparse bytes decode to, not yet validated past its header */
static BloomFilter *
sparse_decode(const char *sparse, int len)
{
	uint64		total;
	BloomFilter *bf;
	bf_status	st = bf_sparse_size(sparse, len, &total);

	if (st != BF_OK)
		report_invalid_input(st, false);
	/* a header that checks declares at most BF_MAX_BYTES */
	bf = palloc(VARHDRSZ + total);
	SET_VARSIZE(bf, VARHDRSZ + total);
	st = bf_sparse_decode(sparse, len, bf->data, total, yield_for_interrupts,
						  NULL);
	if (st != BF_OK)
		report_invalid_input(st, false);
	return bf;
}

Datum
bloomfilter_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	Size		len;
	BloomFilter *bf;
	bf_filter	view;
	int			n;

	/* surrounding white space is allowed, as in the built-in types */
	while (is_text_form_space(*str))
		str++;
	len = strlen(str);
	while (len > 0 && is_text_form_space(str[len - 1]))
		len--;

	if (len > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter text input is too long"),
				 errdetail("The input holds %zu characters.", len)));
	if (len > 0 && str[0] == SPARSE_MARK)
	{
		char	   *sparse = base64_bytes(str + 1, len - 1, 0, &n, true);

		bf = sparse_decode(sparse, n);
		pfree(sparse);
		n = VARSIZE(bf) - VARHDRSZ;
	}
	else
	{
		bf = (BloomFilter *) base64_bytes(str, len, VARHDRSZ, &n, false);
		SET_VARSIZE(bf, VARHDRSZ + n);
	}
	filter_open_input(bf->data, n, &view, false);
	PG_RETURN_BLOOMFILTER_P(bf);
}

Datum
bloomfilter_out(PG_FUNCTION_ARGS)
{
	BloomFilter *bf = PG_GETARG_BLOOMFILTER_P(0);
	Size		len = VARSIZE(bf) - VARHDRSZ;
	bf_sparse	plan;

	/*
	 * The sparse form when its text is shorter, that is when its base64
	 * needs fewer 4-character groups than the bytes' (the mark takes one
	 * character, a group four): so the text form is never longer than the
	 * base64.  A filter with few set bits has a text form even past the
	 * size whose base64 would not fit.
	 */
	if (len >= 3 &&
		bf_sparse_plan(bf->data, len,
					   Min((len + 2) / 3 * 3 - 3, MAX_TEXT_BYTES), &plan,
					   yield_for_interrupts, NULL))
	{
		char	   *sparse = palloc(plan.room);
		size_t		n = bf_sparse_encode(bf->data, len, &plan, sparse,
										 yield_for_interrupts, NULL);
		char	   *out;

		if (n == 0)
			elog(ERROR, "bloomfilter changed while it was written as text");
		out = base64_text(sparse, n, SPARSE_MARK);
		pfree(sparse);
		PG_RETURN_CSTRING(out);
	}
	if (len > MAX_TEXT_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter is too large for its text form"),
				 errdetail("The filter holds %zu bytes; the text form holds at most %zu.",
						   len, MAX_TEXT_BYTES),
				 errhint("Use binary COPY, or cast the filter to bytea.")));
	PG_RETURN_CSTRING(base64_text(bf->data, len, 0));
}

Datum
bloomfilter_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			len = buf->len - buf->cursor;
	const char *data = pq_getmsgbytes(buf, len);
	BloomFilter *bf;
	bf_filter	view;

	/* validate in place first: nothing is allocated for bad input */
	filter_open_input(data, len, &view, true);
	bf = palloc(VARHDRSZ + len);
	SET_VARSIZE(bf, VARHDRSZ + len);
	memcpy(bf->data, data, len);
	PG_RETURN_BLOOMFILTER_P(bf);
}

Datum
bloomfilter_send(PG_FUNCTION_ARGS)
{
	BloomFilter *bf = PG_GETARG_BLOOMFILTER_P(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) bf->data, VARSIZE(bf) - VARHDRSZ);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* bytea::bloomfilter: validated, then the same bytes */
Datum
bloomfilter_from_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	bf_filter	view;

	filter_open_input(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), &view, true);
	PG_RETURN_POINTER(b);
}
