/*
 * range_key.c: ots's stored key order in the proxy.  The shards send each
 * get_range page as jsonb rows {primary_key, attributes} in their own
 * stored order; the proxy merges them in that same order, which is ots's
 * (src/meta/storage.c): the hash prefix first on a hash-prefixed table (the
 * integer value of the first n hex digits of the MD5 of the partition key's
 * text form: a String's bytes, an Integer's decimal text, a Binary's
 * bytes; storage_hash_prefix), then each key column as stored: String
 * bytewise (text COLLATE "C": memcmp, the shorter first on a tie), Integer
 * as a signed int64, Binary bytewise (bytea) of its decoded base64.  A page's
 * rows are parsed once (range_page_rows) and compared without allocating.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "common/base64.h"
#include "common/md5.h"
#include "executor/executor.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "range_key.h"

/*
 * range_key_def fills def from an ots_cluster.table_entry (pk_names,
 * pk_types, hash_prefix_length).  A table the proxy does not know (NULL
 * fields) has no key columns: its range fails on the first shard.
 */
void
range_key_def(RangeKeyDef *def, HeapTupleHeader table, bool backward)
{
	bool		isnull;
	Datum		d;
	Datum	   *names = NULL;
	Datum	   *types = NULL;
	int			nnames = 0;
	int			ntypes = 0;

	memset(def, 0, sizeof(*def));
	def->backward = backward;
	if (table == NULL)
		return;
	d = GetAttributeByName(table, "pk_names", &isnull);
	if (!isnull)
		deconstruct_array(DatumGetArrayTypeP(d), TEXTOID, -1, false, TYPALIGN_INT,
						  &names, NULL, &nnames);
	d = GetAttributeByName(table, "pk_types", &isnull);
	if (!isnull)
		deconstruct_array(DatumGetArrayTypeP(d), TEXTOID, -1, false, TYPALIGN_INT,
						  &types, NULL, &ntypes);
	d = GetAttributeByName(table, "hash_prefix_length", &isnull);
	def->hash_prefix = isnull ? 0 : DatumGetInt32(d);
	def->ncols = Min(nnames, ntypes);
	def->names = palloc(sizeof(char *) * Max(def->ncols, 1));
	def->namelens = palloc(sizeof(int) * Max(def->ncols, 1));
	def->types = palloc(Max(def->ncols, 1));
	for (int k = 0; k < def->ncols; k++)
	{
		char	   *type = TextDatumGetCString(types[k]);

		def->names[k] = TextDatumGetCString(names[k]);
		def->namelens[k] = strlen(def->names[k]);
		def->types[k] = strcmp(type, "INTEGER") == 0 ? 'I' : strcmp(type, "STRING") == 0 ? 'S' : 'B';
	}
}

/* range_hash_prefix is storage_hash_prefix of src/meta/storage.c over bytes */
static int64
range_hash_prefix(const char *data, size_t len, int n)
{
	const char *errstr = NULL;
	char		hex[33];
	int64		prefix = 0;

	if (!pg_md5_hash(data, len, hex, &errstr))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not compute MD5 hash prefix: %s", errstr)));
	for (int i = 0; i < n && i < 32; i++)
		prefix = prefix * 16 + (hex[i] <= '9' ? hex[i] - '0' : hex[i] - 'a' + 10);
	return prefix;
}

/*
 * range_key_parse reads the key columns of primary key pk (a jsonb object
 * as ots returns it) into r, typed as stored: the Strings point into pk,
 * a Binary's bytes are decoded into CurrentMemoryContext.
 */
void
range_key_parse(const RangeKeyDef *def, JsonbContainer *pk, RangeRow *r)
{
	r->v = palloc0(sizeof(RangeKeyValue) * Max(def->ncols, 1));
	r->prefix = 0;
	for (int k = 0; k < def->ncols && pk != NULL; k++)
	{
		RangeKeyValue *kv = &r->v[k];
		JsonbValue	value;
		JsonbValue *v = &value;

		if (!getKeyJsonValueFromContainer(pk, def->names[k], def->namelens[k], v))
			continue;
		if (def->types[k] == 'S' && v->type == jbvString)
		{
			kv->s = v->val.string.val;
			kv->len = v->val.string.len;
		}
		else if (def->types[k] == 'I' && v->type == jbvNumeric)
			kv->i = DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(v->val.numeric)));
		else if (def->types[k] == 'B' && v->type == jbvBinary)
		{
			JsonbValue	bin;
			JsonbValue *b = &bin;

			if (getKeyJsonValueFromContainer(v->val.binary.data, "$binary", 7, b) &&
				b->type == jbvString)
			{
				char	   *bytes = palloc(pg_b64_dec_len(b->val.string.len) + 1);
				int			n = pg_b64_decode(b->val.string.val, b->val.string.len,
											  bytes, pg_b64_dec_len(b->val.string.len));

				if (n < 0)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("invalid base64 in a shard's key column \"%s\"", def->names[k])));
				kv->s = bytes;
				kv->len = n;
			}
		}
	}
	if (def->hash_prefix > 0 && def->ncols > 0)
	{
		char		buf[32];

		if (def->types[0] == 'I')
		{
			int			len = snprintf(buf, sizeof(buf), INT64_FORMAT, r->v[0].i);

			r->prefix = range_hash_prefix(buf, len, def->hash_prefix);
		}
		else
			r->prefix = range_hash_prefix(r->v[0].s != NULL ? r->v[0].s : "", r->v[0].len,
										  def->hash_prefix);
	}
}

/* range_bytes_cmp: bytewise, the shorter first on a tie (text COLLATE "C", bytea) */
static inline int
range_bytes_cmp(const RangeKeyValue *a, const RangeKeyValue *b)
{
	int			c = memcmp(a->s, b->s, Min(a->len, b->len));

	if (c != 0)
		return c < 0 ? -1 : 1;
	return a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
}

/*
 * range_key_cmp orders rows a and b as the range reads them: < 0 when a
 * comes first (ots's stored order, reversed for BACKWARD), 0 for the same key.
 */
int
range_key_cmp(const RangeKeyDef *def, const RangeRow *a, const RangeRow *b)
{
	int			c = 0;

	if (def->hash_prefix > 0 && a->prefix != b->prefix)
		c = a->prefix < b->prefix ? -1 : 1;
	for (int k = 0; c == 0 && k < def->ncols; k++)
	{
		if (def->types[k] == 'I')
			c = a->v[k].i < b->v[k].i ? -1 : a->v[k].i > b->v[k].i ? 1 : 0;
		else
			c = range_bytes_cmp(&a->v[k], &b->v[k]);
	}
	return def->backward ? -c : c;
}

/*
 * range_page_rows parses a page (a jsonb array of rows, NULL for none) into
 * its rows, allocated in CurrentMemoryContext; the rows point into page.
 */
RangeRow *
range_page_rows(const RangeKeyDef *def, Jsonb *page, int *nrows)
{
	RangeRow   *rows;
	int			n;

	*nrows = 0;
	if (page == NULL || !JB_ROOT_IS_ARRAY(page) || JB_ROOT_IS_SCALAR(page))
		return NULL;
	n = JB_ROOT_COUNT(page);
	rows = palloc(sizeof(RangeRow) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(&page->root, i);

		if (e == NULL || e->type != jbvBinary)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a shard's get_range page holds a row that is not an object")));
		rows[i].row = *e;
		rows[i].has_pk = getKeyJsonValueFromContainer(e->val.binary.data, "primary_key", 11, &rows[i].pk);
		rows[i].has_attrs = getKeyJsonValueFromContainer(e->val.binary.data, "attributes", 10, &rows[i].attrs);
		range_key_parse(def, rows[i].has_pk && rows[i].pk.type == jbvBinary ? rows[i].pk.val.binary.data : NULL,
						&rows[i]);
	}
	*nrows = n;
	return rows;
}

/*
 * range_row_size is a row's size as ots counts it for the 4 MB page cap
 * (range_row_size in src/api/range_read.c): each key column's name and value
 * (String and Binary their bytes, Integer 8) plus its attributes' jsonb.
 */
int64
range_row_size(const RangeKeyDef *def, const RangeRow *r)
{
	int64		size = 0;

	for (int k = 0; k < def->ncols; k++)
		size += def->namelens[k] + (def->types[k] == 'I' ? 8 : r->v[k].len);
	if (r->has_attrs && r->attrs.type == jbvBinary)
		size += VARHDRSZ + r->attrs.val.binary.len;
	return size;
}

/* range_is_upper: direction, case-insensitively, is word (upper case) */
bool
range_is_upper(text *direction, const char *word)
{
	const char *s = VARDATA_ANY(direction);
	int			len = VARSIZE_ANY_EXHDR(direction);

	if (len != (int) strlen(word))
		return false;
	for (int i = 0; i < len; i++)
		if (pg_toupper((unsigned char) s[i]) != word[i])
			return false;
	return true;
}
