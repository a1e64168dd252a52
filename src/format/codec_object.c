/*-------------------------------------------------------------------------
 * src/format/codec_object.c
 *	  Writes a flat jsonb object of ots values straight into jsonb's binary
 *	  form: the latest-values map that get_row and get_range return.
 *
 * pushJsonbValue builds a JsonbValue tree, sorts its keys and converts the
 * tree; for a row's map that is most of the cost of reading it.  Here the
 * pairs are sorted once in jsonb's key order (length, then bytes) and each
 * key and value is appended to one buffer, laid out exactly as
 * convertJsonbObject (PostgreSQL's jsonb_util.c) lays it out: the container
 * header, the keys' JEntries then the values' JEntries (every
 * JB_OFFSET_STRIDE'th holding an end offset instead of a length), the keys'
 * bytes, then the values' bytes, numerics and nested containers padded to
 * 4 bytes from the start of the datum.  Values that are objects themselves
 * ({"$binary": ..}, {"$double": ..}) are one-pair containers written the
 * same way.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "format/codec.h"

/* codec_pad appends zeros up to a 4-byte boundary, returning how many */
static int
codec_pad(StringInfo buf)
{
	int			pad = INTALIGN(buf->len) - buf->len;

	if (pad > 0)
		appendBinaryStringInfo(buf, "\0\0\0", pad);
	return pad;
}

/* codec_append_numeric appends a numeric scalar; returns its JEntry */
static JEntry
codec_append_numeric(StringInfo buf, Numeric num)
{
	int			pad = codec_pad(buf);
	int			len = VARSIZE_ANY(num);

	appendBinaryStringInfo(buf, (const char *) num, len);
	return JENTRY_ISNUMERIC | (pad + len);
}

/* codec_entry sets the JEntry at index i of a container whose data so far is *total long */
static JEntry
codec_entry(JEntry entry, int i, uint32 *total)
{
	*total += JBE_OFFLENFLD(entry);
	if (*total > JENTRY_OFFLENMASK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("total size of jsonb object elements exceeds the maximum of %d bytes",
						JENTRY_OFFLENMASK)));
	if (i % JB_OFFSET_STRIDE == 0)
		return (entry & JENTRY_TYPEMASK) | *total | JENTRY_HAS_OFF;
	return entry;
}

/*
 * codec_append_wrapped appends the one-pair object {key: value}, value a
 * string (data, len) or a numeric (num); returns its JEntry.
 */
static JEntry
codec_append_wrapped(StringInfo buf, const char *key, int keylen,
					 const char *data, int len, Numeric num)
{
	int			start = buf->len;
	uint32		header = 1 | JB_FOBJECT;
	JEntry		entries[2];
	int			entries_at;
	uint32		total = 0;

	codec_pad(buf);
	appendBinaryStringInfo(buf, (const char *) &header, sizeof(header));
	entries_at = buf->len;
	appendBinaryStringInfo(buf, (const char *) entries, sizeof(entries));
	appendBinaryStringInfo(buf, key, keylen);
	entries[0] = codec_entry((JEntry) keylen, 0, &total);
	if (num != NULL)
		entries[1] = codec_entry(codec_append_numeric(buf, num), 1, &total);
	else
	{
		appendBinaryStringInfo(buf, data, len);
		entries[1] = codec_entry((JEntry) len, 1, &total);
	}
	memcpy(buf->data + entries_at, entries, sizeof(entries));
	return JENTRY_ISCONTAINER | (buf->len - start);
}

/* codec_append_value appends one value in its output form; returns its JEntry */
static JEntry
codec_append_value(StringInfo buf, const OtsValue *v)
{
	switch (v->type)
	{
		case OTS_VT_STRING:
			appendBinaryStringInfo(buf, v->u.s.data, v->u.s.len);
			return (JEntry) v->u.s.len;
		case OTS_VT_INTEGER:
			return codec_append_numeric(buf, int64_to_numeric(v->u.i));
		case OTS_VT_BOOLEAN:
			return v->u.b ? JENTRY_ISBOOL_TRUE : JENTRY_ISBOOL_FALSE;
		case OTS_VT_DOUBLE:
			{
				bool		wrapped;
				Numeric		num = codec_double_numeric(v->u.d, &wrapped);

				if (wrapped)
					return codec_append_wrapped(buf, CODEC_KEY("$double"), NULL, 0, num);
				return codec_append_numeric(buf, num);
			}
		case OTS_VT_BINARY:
			{
				int			n;
				char	   *text = codec_base64(v->u.s.data, v->u.s.len, &n);

				return codec_append_wrapped(buf, CODEC_KEY("$binary"), text, n, NULL);
			}
	}
	elog(ERROR, "unexpected ots value type %d", (int) v->type);
	return 0;					/* keep compiler quiet */
}

/* codec_key_cmp: jsonb's key order, shorter first, then bytewise */
int
codec_key_cmp(const char *a, uint32 alen, const char *b, uint32 blen)
{
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return memcmp(a, b, alen);
}

/* codec_pair_cmp: pairs in jsonb's key order (qsort) */
static int
codec_pair_cmp(const void *a, const void *b)
{
	const CodecPair *x = a;
	const CodecPair *y = b;

	return codec_key_cmp(x->key, x->keylen, y->key, y->keylen);
}

Jsonb *
codec_flat_object(CodecPair *pairs, int n)
{
	StringInfoData buf;
	uint32		header = (uint32) n | JB_FOBJECT;
	JEntry	   *entries;
	int			entries_at;
	uint32		total = 0;

	/* pairs often come in this order already (cells keep names bytewise) */
	for (int i = 1; i < n; i++)
		if (codec_pair_cmp(&pairs[i - 1], &pairs[i]) > 0)
		{
			qsort(pairs, n, sizeof(CodecPair), codec_pair_cmp);
			break;
		}
	initStringInfo(&buf);
	/* the varlena header, set at the end; the root container needs no padding */
	buf.len = VARHDRSZ;
	appendBinaryStringInfo(&buf, (const char *) &header, sizeof(header));
	entries_at = buf.len;
	enlargeStringInfo(&buf, sizeof(JEntry) * 2 * n);
	buf.len += sizeof(JEntry) * 2 * n;
	entries = palloc(sizeof(JEntry) * 2 * n);
	for (int i = 0; i < n; i++)
	{
		appendBinaryStringInfo(&buf, pairs[i].key, pairs[i].keylen);
		entries[i] = codec_entry((JEntry) pairs[i].keylen, i, &total);
	}
	for (int i = 0; i < n; i++)
		entries[n + i] = codec_entry(codec_append_value(&buf, &pairs[i].value), n + i, &total);
	memcpy(buf.data + entries_at, entries, sizeof(JEntry) * 2 * n);
	pfree(entries);
	SET_VARSIZE(buf.data, buf.len);
	return (Jsonb *) buf.data;
}
