/*
 * type_io.c
 *		Text and binary I/O of the bloomfilter type, and the bytea casts.
 *
 * The text form is the base64 of the serialised bytes (4/3 of the binary
 * size): compact enough for Citus to ship partial aggregate states as text,
 * and an exact round trip.  Every way in validates the bytes before they
 * become a bloomfilter, and allocates only in proportion to the input it
 * already holds.
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

Datum
bloomfilter_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	Size		len;
	Size		maxbytes;
	BloomFilter *bf;
	bf_filter	view;
	int			n;

	/* surrounding white space is allowed, as in the built-in types */
	while (is_text_form_space(*str))
		str++;
	len = strlen(str);
	while (len > 0 && is_text_form_space(str[len - 1]))
		len--;
	maxbytes = len / 4 * 3 + 3;

	if (len > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter text input is too long"),
				 errdetail("The input holds %zu characters.", len)));
	bf = palloc(VARHDRSZ + maxbytes);
	n = pg_b64_decode(str, (int) len, (bf_b64_byte *) bf->data, (int) maxbytes);
	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type bloomfilter"),
				 errdetail("The text form of a bloomfilter is base64; the input is not valid base64."),
				 errhint("Produce the text form with bloomfilter's output function, or cast bytea with ::bloomfilter.")));
	filter_open_input(bf->data, n, &view, false);
	SET_VARSIZE(bf, VARHDRSZ + n);
	PG_RETURN_BLOOMFILTER_P(bf);
}

Datum
bloomfilter_out(PG_FUNCTION_ARGS)
{
	BloomFilter *bf = PG_GETARG_BLOOMFILTER_P(0);
	Size		len = VARSIZE(bf) - VARHDRSZ;
	Size		enclen;
	char	   *out;
	int			n;

	if (len > MAX_TEXT_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter is too large for its text form"),
				 errdetail("The filter holds %zu bytes; the text form holds at most %zu.",
						   len, MAX_TEXT_BYTES),
				 errhint("Use binary COPY, or cast the filter to bytea.")));
	/* pg_b64_enc_len computes in int and overflows past 512 MB: do it here */
	enclen = (len + 2) / 3 * 4;
	out = palloc(enclen + 1);
	n = pg_b64_encode((const bf_b64_byte *) bf->data, (int) len, out, (int) enclen);
	if (n < 0)
		elog(ERROR, "could not encode bloomfilter as base64");
	out[n] = '\0';
	PG_RETURN_CSTRING(out);
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
