/*-------------------------------------------------------------------------
 * src/meta/catalog_check.c
 *	  What create_table makes, checked: a row of ots.tables
 *	  (catalog_read_row), an index's row against its table's, the storage
 *	  a row names (catalog_check_storage, catalog_check_leaf) and a
 *	  definition a role hands in (catalog_check_definition).
 *
 * Metadata or storage that ots did not make is the one error of all of
 * them: the table is damaged (a superuser changed ots.tables or the
 * storage by hand), or, for a definition handed in, that input is invalid.
 * The hot paths trust what passed these checks: no metadata can crash a
 * backend or confuse a type.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_partitioned_table.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "asrole.h"
#include "meta/catalog.h"
#include "meta/catalog_internal.h"
#include "format/cells.h"
#include "format/names.h"
#include "meta/storage.h"

static bool catalog_check_storage_shape(OtsTable *t, Oid nsp, AttrNumber *keys);
static void catalog_check_chunk(OtsTable *t);

static void catalog_read_stream(OtsTable *t, HeapTuple tup, TupleDesc desc);
static void catalog_read_stream_original(OtsTable *t, HeapTuple tup, TupleDesc desc);
static void catalog_check_stream(OtsTable *t, Oid nsp);
static Form_pg_class catalog_class(Oid relid);
static void catalog_read_defined(OtsTable *t, HeapTuple tup, TupleDesc desc);
static void catalog_read_index(OtsTable *t, HeapTuple tup, TupleDesc desc);

/*
 * Set while catalog_check_definition checks a definition a role hands in
 * (the comment a restore gives a storage table): what is wrong is then
 * that input, not a damaged table.
 */
static bool checking_definition = false;

/*
 * catalog_damaged reports metadata or storage that ots did not make: a
 * superuser changed ots.tables or the storage table by hand; or, while
 * checking_definition, a definition ots would not have written (22023).
 */
#define catalog_damaged(t, ...) \
	ereport(ERROR, \
			(errcode(checking_definition ? ERRCODE_INVALID_PARAMETER_VALUE : ERRCODE_DATA_CORRUPTED), \
			 errmsg(checking_definition ? "invalid definition of ots table %s: %s" : \
					"ots table %s is damaged: %s", \
					quote_qualified_identifier((t)->schema_name, (t)->table_name), \
					psprintf(__VA_ARGS__)), \
			 checking_definition ? \
			 errdetail("The comment of its storage table carries this definition.") : \
			 errhint("Its row in ots.tables or its storage table was changed outside ots's functions.")))

/* catalog_text_array reads a 1-D text[] without NULLs of min to max elements */
static int
catalog_text_array(const OtsTable *t, const char *column, Datum d, bool isnull, char **out,
				   int min, int max)
{
	ArrayType  *a;
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	if (isnull)
		catalog_damaged(t, "%s is NULL", column);
	a = DatumGetArrayTypeP(d);
	if (ARR_NDIM(a) > 1 || (ARR_NDIM(a) == 1 && ARR_LBOUND(a)[0] != 1) ||
		ARR_ELEMTYPE(a) != TEXTOID)
		catalog_damaged(t, "%s is not a one-dimensional text array", column);
	deconstruct_array(a, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	if (n < min || n > max)
		catalog_damaged(t, "%s has %d elements, not %d to %d", column, n, min, max);
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			catalog_damaged(t, "%s holds a NULL", column);
		out[i] = TextDatumGetCString(elems[i]);
	}
	return n;
}

/* catalog_type_named: the value type a type name of ots.tables stands for, 0 if none */
static OtsValueType
catalog_type_named(const char *name)
{
	static const OtsValueType types[] = {OTS_VT_STRING, OTS_VT_INTEGER, OTS_VT_DOUBLE,
	OTS_VT_BOOLEAN, OTS_VT_BINARY};

	for (int i = 0; i < lengthof(types); i++)
		if (strcmp(name, ots_value_type_name(types[i])) == 0)
			return types[i];
	return 0;
}

/* catalog_column reads a column of a row that must not be NULL */
static Datum
catalog_column(const OtsTable *t, HeapTuple tup, TupleDesc desc, int attno, const char *column)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, attno, &isnull);

	if (isnull)
		catalog_damaged(t, "%s is NULL", column);
	return d;
}

/*
 * catalog_read_row fills t (whose schema and table names are set) from a
 * row of ots.tables holding CATALOG_ROW_COLUMNS, and checks every value
 * against the rules create_table applies; it reads nothing but the row.
 */
void
catalog_read_row(OtsTable *t, HeapTuple tup, TupleDesc desc)
{
	char	   *names[OTS_MAX_KEY_COLUMNS];
	char	   *types[OTS_MAX_KEY_COLUMNS];
	bool		isnull;
	Datum		d;
	int64		key_space;

	if (desc->natts < CATALOG_ROW_NCOLUMNS || SPI_gettypeid(desc, 10) != TEXTARRAYOID ||
		SPI_gettypeid(desc, 11) != TEXTARRAYOID || SPI_gettypeid(desc, 12) != NAMEOID ||
		SPI_gettypeid(desc, 13) != TEXTOID || SPI_gettypeid(desc, 14) != INT2OID ||
		SPI_gettypeid(desc, 15) != TEXTOID || SPI_gettypeid(desc, 1) != TEXTARRAYOID ||
		SPI_gettypeid(desc, 2) != TEXTARRAYOID || SPI_gettypeid(desc, 3) != INT2OID ||
		SPI_gettypeid(desc, 4) != INT4OID || SPI_gettypeid(desc, 5) != INT8OID ||
		SPI_gettypeid(desc, 6) != INT8OID || SPI_gettypeid(desc, 7) != BOOLOID ||
		SPI_gettypeid(desc, 8) != INT4OID || SPI_gettypeid(desc, 9) != INT4OID ||
		SPI_gettypeid(desc, 16) != TEXTOID || SPI_gettypeid(desc, 17) != INT4OID)
		catalog_damaged(t, "the columns of ots.tables have other types than ots made");
	/* an index's key is its own columns, then the base key's others */
	d = SPI_getbinval(tup, desc, 12, &isnull);
	t->is_index = !isnull;
	if (t->is_index)
		strlcpy(t->index_of, NameStr(*DatumGetName(d)), NAMEDATALEN);
	d = SPI_getbinval(tup, desc, 1, &isnull);
	t->npk = catalog_text_array(t, "pk_names", d, isnull, names, OTS_MIN_PK_COLUMNS,
								t->is_index ? OTS_MAX_KEY_COLUMNS : OTS_MAX_PK_COLUMNS);
	d = SPI_getbinval(tup, desc, 2, &isnull);
	if (catalog_text_array(t, "pk_types", d, isnull, types, OTS_MIN_PK_COLUMNS,
						   OTS_MAX_KEY_COLUMNS) != t->npk)
		catalog_damaged(t, "pk_names and pk_types differ in length");
	for (int i = 0; i < t->npk; i++)
	{
		if (!names_valid(names[i], strlen(names[i]), NAMEDATALEN - 1))
			catalog_damaged(t, "invalid primary key column name \"%s\"", names[i]);
		for (int j = 0; j < i; j++)
			if (strcmp(names[i], names[j]) == 0)
				catalog_damaged(t, "primary key column \"%s\" appears twice", names[i]);
		strlcpy(t->pk[i].name, names[i], NAMEDATALEN);
		t->pk[i].namelen = strlen(names[i]);
		if (strcmp(types[i], "STRING") == 0)
			t->pk[i].type = OTS_VT_STRING;
		else if (strcmp(types[i], "INTEGER") == 0)
			t->pk[i].type = OTS_VT_INTEGER;
		else if (strcmp(types[i], "BINARY") == 0)
			t->pk[i].type = OTS_VT_BINARY;
		else
			catalog_damaged(t, "unknown primary key type \"%s\"", types[i]);
	}
	d = SPI_getbinval(tup, desc, 3, &isnull);
	t->auto_increment_col = isnull ? -1 : DatumGetInt16(d) - 1;
	if (t->auto_increment_col != -1 &&
		(t->auto_increment_col < 1 || t->auto_increment_col >= t->npk ||
		 t->pk[t->auto_increment_col].type != OTS_VT_INTEGER))
		catalog_damaged(t, "auto_increment %d is not an INTEGER primary key column other than the first",
						t->auto_increment_col + 1);
	for (int i = 0; i < t->npk; i++)
		t->pk[i].auto_increment = (i == t->auto_increment_col);

	t->max_versions = DatumGetInt32(catalog_column(t, tup, desc, 4, "max_versions"));
	t->time_to_live = DatumGetInt64(catalog_column(t, tup, desc, 5, "time_to_live"));
	t->max_version_offset = DatumGetInt64(catalog_column(t, tup, desc, 6, "max_version_offset"));
	t->allow_update = DatumGetBool(catalog_column(t, tup, desc, 7, "allow_update"));
	t->update_full_row = DatumGetBool(catalog_column(t, tup, desc, 18, "update_full_row"));
	t->partitions = DatumGetInt32(catalog_column(t, tup, desc, 8, "partitions"));
	t->hash_prefix_len = DatumGetInt32(catalog_column(t, tup, desc, 9, "hash_prefix_length"));
	if (t->max_versions < 1)
		catalog_damaged(t, "max_versions %d is below 1", t->max_versions);
	if (t->time_to_live != -1 && (t->time_to_live < 1 || t->time_to_live > OTS_MAX_TIME_TO_LIVE))
		catalog_damaged(t, "time_to_live " INT64_FORMAT " is neither -1 nor in [1, %d]",
						t->time_to_live, OTS_MAX_TIME_TO_LIVE);
	if (t->max_version_offset < 0 || t->max_version_offset > OTS_MAX_VERSION_OFFSET)
		catalog_damaged(t, "max_version_offset " INT64_FORMAT " is outside [0, " INT64_FORMAT "]",
						t->max_version_offset, (int64) OTS_MAX_VERSION_OFFSET);
	if (t->hash_prefix_len < 0 || t->hash_prefix_len > OTS_MAX_HASH_PREFIX_LEN)
		catalog_damaged(t, "hash_prefix_length %d is outside [0, %d]", t->hash_prefix_len,
						OTS_MAX_HASH_PREFIX_LEN);
	key_space = t->hash_prefix_len > 0 ? INT64CONST(1) << (4 * t->hash_prefix_len) : PG_INT64_MAX;
	if (t->partitions < 1 || t->partitions > OTS_MAX_PARTITIONS || t->partitions > key_space)
		catalog_damaged(t, "partitions %d is outside [1, %d] or beyond the hash prefix's key space",
						t->partitions, OTS_MAX_PARTITIONS);
	catalog_read_defined(t, tup, desc);
	catalog_read_index(t, tup, desc);
	catalog_read_stream(t, tup, desc);
}

/*
 * catalog_read_stream reads the table's stream: an id (stream_id NULL: no
 * stream) and its expiration; an index has none
 */
static void
catalog_read_stream(OtsTable *t, HeapTuple tup, TupleDesc desc)
{
	bool		null_id;
	bool		null_hours;
	Datum		id = SPI_getbinval(tup, desc, 16, &null_id);
	Datum		hours = SPI_getbinval(tup, desc, 17, &null_hours);
	char	   *s;

	t->stream_enabled = !null_id;
	if (null_id)
	{
		if (!null_hours)
			catalog_damaged(t, "it has a stream_expiration_hours but no stream_id");
		catalog_read_stream_original(t, tup, desc);
		return;
	}
	s = TextDatumGetCString(id);
	if (!catalog_stream_id_valid(s, strlen(s)))
		catalog_damaged(t, "its stream_id is not one ots makes");
	strlcpy(t->stream_id, s, NAMEDATALEN);
	t->stream_expiration_hours = null_hours ? 0 : DatumGetInt32(hours);
	if (t->stream_expiration_hours < 1 || t->stream_expiration_hours > OTS_MAX_STREAM_EXPIRATION_HOURS)
		catalog_damaged(t, "stream_expiration_hours %d is outside [1, %d]",
						t->stream_expiration_hours, OTS_MAX_STREAM_EXPIRATION_HOURS);
	if (t->is_index)
		catalog_damaged(t, "an index has a stream");
	catalog_read_stream_original(t, tup, desc);
}

/*
 * catalog_read_stream_original reads the stream's original columns (a
 * jsonb array of names, as CATALOG_STREAM_ORIGINAL reads them; SQL NULL or
 * json null: none): attribute column names, distinct and bytewise sorted,
 * as ots.stream_check_original_columns keeps them
 */
static void
catalog_read_stream_original(OtsTable *t, HeapTuple tup, TupleDesc desc)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, 19, &isnull);
	Jsonb	   *j;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	t->stream_noriginal = 0;
	if (SPI_gettypeid(desc, 19) != JSONBOID)
		catalog_damaged(t, "the columns of ots.tables have other types than ots made");
	if (isnull)
		return;
	j = DatumGetJsonbP(d);
	if (JB_ROOT_IS_SCALAR(j) && JB_ROOT_COUNT(j) == 1)
	{
		(void) JsonbExtractScalar(&j->root, &v);
		if (v.type == jbvNull)
			return;
	}
	if (!JB_ROOT_IS_ARRAY(j) || JB_ROOT_IS_SCALAR(j) || JB_ROOT_COUNT(j) == 0 ||
		JB_ROOT_COUNT(j) > OTS_MAX_STREAM_ORIGINAL_COLUMNS)
		catalog_damaged(t, "its stream_original_columns are not 1 to %d names",
						OTS_MAX_STREAM_ORIGINAL_COLUMNS);
	if (!t->stream_enabled)
		catalog_damaged(t, "it has stream_original_columns but no stream");
	t->stream_original_off[0] = 0;
	it = JsonbIteratorInit(&j->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		int			i = t->stream_noriginal;
		uint32		at = t->stream_original_off[i];
		const char *prev;
		uint32		prevlen;
		int			cmp;

		if (tok != WJB_ELEM)
			continue;
		if (v.type != jbvString || !names_valid(v.val.string.val, v.val.string.len, OTS_MAX_NAME_LEN))
			catalog_damaged(t, "its stream_original_columns hold an invalid column name");
		if (v.val.string.len > OTS_MAX_STREAM_ORIGINAL_BYTES - at)
			catalog_damaged(t, "its stream_original_columns' names pass %d bytes",
							OTS_MAX_STREAM_ORIGINAL_BYTES);
		memcpy(t->stream_original_names + at, v.val.string.val, v.val.string.len);
		t->stream_original_off[i + 1] = at + v.val.string.len;
		if (i > 0)
		{
			prev = catalog_original_name(t, i - 1, &prevlen);
			cmp = memcmp(prev, v.val.string.val, Min(prevlen, v.val.string.len));
			if (cmp > 0 || (cmp == 0 && prevlen >= v.val.string.len))
				catalog_damaged(t, "its stream_original_columns are not distinct and sorted");
		}
		for (int k = 0; k < t->npk; k++)
			if (t->pk[k].namelen == v.val.string.len &&
				memcmp(t->pk[k].name, v.val.string.val, v.val.string.len) == 0)
				catalog_damaged(t, "its stream_original_columns name a primary key column");
		t->stream_noriginal++;
	}
}

/* catalog_stream_id_valid: could s (len bytes) be a stream id ots made (a UUID's text)? */
bool
catalog_stream_id_valid(const char *s, size_t len)
{
	return len > 0 && len < NAMEDATALEN && strspn(s, "0123456789abcdef-") >= len;
}

/*
 * catalog_read_defined reads the defined columns: valid, distinct names.
 * ots.tables keeps them in the order they were defined, which describe_table
 * shows; the cache keeps them by name, which is how cells are found.
 */
static void
catalog_read_defined(OtsTable *t, HeapTuple tup, TupleDesc desc)
{
	char	   *names[OTS_MAX_DEFINED_COLUMNS];
	char	   *types[OTS_MAX_DEFINED_COLUMNS];
	bool		isnull;
	Datum		d;

	d = SPI_getbinval(tup, desc, 10, &isnull);
	t->ndefined = catalog_text_array(t, "defined_names", d, isnull, names, 0,
									 OTS_MAX_DEFINED_COLUMNS);
	d = SPI_getbinval(tup, desc, 11, &isnull);
	if (catalog_text_array(t, "defined_types", d, isnull, types, 0,
						   OTS_MAX_DEFINED_COLUMNS) != t->ndefined)
		catalog_damaged(t, "defined_names and defined_types differ in length");
	for (int i = 0; i < t->ndefined; i++)
	{
		OtsDefinedColumn c;
		int			at = i;

		c.namelen = strlen(names[i]);
		if (!names_valid(names[i], c.namelen, NAMEDATALEN - 1))
			catalog_damaged(t, "invalid defined column name \"%s\"", names[i]);
		for (int k = 0; k < t->npk; k++)
			if (strcmp(t->pk[k].name, names[i]) == 0)
				catalog_damaged(t, "defined column \"%s\" is a primary key column", names[i]);
		strlcpy(c.name, names[i], NAMEDATALEN);
		if ((c.type = catalog_type_named(types[i])) == 0)
			catalog_damaged(t, "unknown defined column type \"%s\"", types[i]);
		/* insert by name into the columns read so far */
		while (at > 0 && cells_name_cmp(t->defined[at - 1].name, t->defined[at - 1].namelen,
										c.name, c.namelen) >= 0)
		{
			if (cells_name_cmp(t->defined[at - 1].name, t->defined[at - 1].namelen,
							   c.name, c.namelen) == 0)
				catalog_damaged(t, "defined column \"%s\" appears twice", names[i]);
			t->defined[at] = t->defined[at - 1];
			at--;
		}
		t->defined[at] = c;
	}
}

/*
 * catalog_read_index reads what makes t an index (index_of read already):
 * its type, how many key columns it was given, its phase; all NULL on a
 * table.
 */
static void
catalog_read_index(OtsTable *t, HeapTuple tup, TupleDesc desc)
{
	bool		null_type;
	bool		null_count;
	bool		null_phase;
	Datum		type = SPI_getbinval(tup, desc, 13, &null_type);
	Datum		count = SPI_getbinval(tup, desc, 14, &null_count);
	Datum		phase = SPI_getbinval(tup, desc, 15, &null_phase);
	char	   *s;

	if (!t->is_index)
	{
		if (!null_type || !null_count || !null_phase)
			catalog_damaged(t, "it has index_type, index_key_count or index_phase but no index_of");
		return;
	}
	if (null_type || null_count || null_phase)
		catalog_damaged(t, "index_type, index_key_count or index_phase is NULL");
	s = TextDatumGetCString(type);
	if (strcmp(s, "GLOBAL") != 0 && strcmp(s, "LOCAL") != 0)
		catalog_damaged(t, "unknown index_type \"%s\"", s);
	t->index_local = strcmp(s, "LOCAL") == 0;
	t->index_nkeys = DatumGetInt16(count);
	if (t->index_nkeys < 1 || t->index_nkeys > OTS_MAX_INDEX_PK_COLUMNS || t->index_nkeys > t->npk)
		catalog_damaged(t, "index_key_count %d is outside [1, %d]", t->index_nkeys,
						OTS_MAX_INDEX_PK_COLUMNS);
	s = TextDatumGetCString(phase);
	if (strcmp(s, "FULL") != 0 && strcmp(s, "INCR") != 0 && strcmp(s, "INCR_ONLY") != 0)
		catalog_damaged(t, "unknown index_phase \"%s\"", s);
	t->index_building = strcmp(s, "FULL") == 0;
	t->index_partial = strcmp(s, "INCR_ONLY") == 0;
	if (t->auto_increment_col >= 0 || t->hash_prefix_len > 0 || t->max_versions != 1)
		catalog_damaged(t, "an index has AUTO_INCREMENT, a hash prefix or max_versions other than 1");
}

const OtsDefinedColumn *
catalog_defined_column(const OtsTable *t, const char *name, uint32 namelen)
{
	int			lo = 0;
	int			hi = t->ndefined - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		int			c = cells_name_cmp(t->defined[mid].name, t->defined[mid].namelen, name, namelen);

		if (c == 0)
			return &t->defined[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

/*
 * catalog_check_column requires column name of relation relid (what names
 * it: "its storage table") to exist with the type (and, for text, the
 * collation) ots gives it, NOT NULL; returns its attribute number.
 */
static AttrNumber
catalog_check_column(const OtsTable *t, Oid relid, const char *what, const char *name, Oid type,
					 Oid collation)
{
	HeapTuple	tup = SearchSysCacheAttName(relid, name);
	Form_pg_attribute att;
	AttrNumber	attnum;

	if (!HeapTupleIsValid(tup))
		catalog_damaged(t, "%s has no column \"%s\"", what, name);
	att = (Form_pg_attribute) GETSTRUCT(tup);
	if (att->atttypid != type || att->attcollation != collation || !att->attnotnull)
	{
		ReleaseSysCache(tup);
		catalog_damaged(t, "column \"%s\" of %s is not %s%s NOT NULL", name, what,
						format_type_be(type), OidIsValid(collation) ? " COLLATE \"C\"" : "");
	}
	attnum = att->attnum;
	ReleaseSysCache(tup);
	return attnum;
}

/* catalog_class: a copy of the relation's pg_class row, NULL if it is gone */
static Form_pg_class
catalog_class(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Form_pg_class form;

	if (!HeapTupleIsValid(tup))
		return NULL;
	form = palloc(sizeof(FormData_pg_class));
	memcpy(form, GETSTRUCT(tup), sizeof(FormData_pg_class));
	ReleaseSysCache(tup);
	return form;
}

/*
 * catalog_primary_key_is: is the relation's primary key a btree on exactly
 * these columns, in this order?  Read from pg_index, without opening (or
 * locking) the relation.  *exists (unless NULL) says whether it has one.
 */
static bool
catalog_primary_key_is(Oid relid, const AttrNumber *keys, int nkeys, bool *exists)
{
	Relation	pg_index = table_open(IndexRelationId, AccessShareLock);
	ScanKeyData skey;
	SysScanDesc scan;
	HeapTuple	tup;
	bool		same = false;

	ScanKeyInit(&skey, Anum_pg_index_indrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(pg_index, IndexIndrelidIndexId, true, NULL, 1, &skey);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_index index = (Form_pg_index) GETSTRUCT(tup);
		Form_pg_class form;

		if (!index->indisprimary)
			continue;
		if (exists != NULL)
			*exists = true;
		form = catalog_class(index->indexrelid);
		same = index->indnkeyatts == nkeys && index->indnatts == nkeys &&
			form != NULL && form->relam == BTREE_AM_OID;
		for (int k = 0; same && k < nkeys; k++)
			same = keys[k] != InvalidAttrNumber && index->indkey.values[k] == keys[k];
	}
	systable_endscan(scan);
	table_close(pg_index, AccessShareLock);
	return same;
}

bool
catalog_has_primary_key(Oid relid)
{
	bool		exists = false;

	(void) catalog_primary_key_is(relid, NULL, 0, &exists);
	return exists;
}

/*
 * catalog_check_owners: the storage, its partitions, the view and the
 * sequence of t have one owner (ots.storage_guard keeps it so), else the
 * "damaged" error.
 */
static void
catalog_check_owners(OtsTable *t, Oid view)
{
	Oid			owner = asrole_owner(t->data_oid);
	ListCell   *lc;

	if (asrole_owner(view) != owner ||
		(OidIsValid(t->seq_oid) && asrole_owner(t->seq_oid) != owner))
		catalog_damaged(t, "its view or sequence has another owner than its storage table");
	foreach(lc, find_inheritance_children(t->data_oid, NoLock))
		if (asrole_owner(lfirst_oid(lc)) != owner)
			catalog_damaged(t, "partition %s has another owner than its storage table",
							quote_identifier(get_rel_name(lfirst_oid(lc))));
}

/*
 * catalog_check_storage finds the storage table, view, sequence, stream
 * relations and chunk relation of t (read by catalog_read_row) in schema
 * nsp and checks that they are what create_table makes of that metadata:
 * false when the storage or view is missing, or the storage has no primary
 * key yet (the table does not exist, or a restore has not made all of it),
 * an error when anything differs (a missing chunk relation is none:
 * catalog_check_chunk).
 */
bool
catalog_check_storage(OtsTable *t, Oid nsp)
{
	char		name[NAMEDATALEN * 2];
	AttrNumber	keys[OTS_MAX_KEY_COLUMNS + 1] = {0};
	bool		has_key = false;

	if (!OidIsValid(get_relname_relid(t->table_name, nsp)) ||
		get_rel_relkind(get_relname_relid(t->table_name, nsp)) != RELKIND_VIEW ||
		!catalog_check_storage_shape(t, nsp, keys))
		return false;
	if (!catalog_primary_key_is(t->data_oid, keys, storage_nkeys(t), &has_key))
	{
		/* a restore adds the key after the rows: until then the table is not there yet */
		if (!has_key)
			return false;
		catalog_damaged(t, "the primary key of its storage table is not (%s)", storage_key_list(t, storage_nkeys(t)));
	}

	t->seq_oid = InvalidOid;
	if (t->auto_increment_col >= 0)
	{
		snprintf(name, sizeof(name), "%s%s", t->table_name, STORAGE_SEQUENCE_SUFFIX);
		t->seq_oid = get_relname_relid(name, nsp);
		if (get_rel_relkind(t->seq_oid) != RELKIND_SEQUENCE)
			catalog_damaged(t, "its AUTO_INCREMENT sequence %s is missing",
							quote_qualified_identifier(t->schema_name, name));
	}
	catalog_check_owners(t, get_relname_relid(t->table_name, nsp));
	catalog_check_stream(t, nsp);
	catalog_check_chunk(t);
	return true;
}

/*
 * catalog_check_chunk finds t's chunk relation beside its storage, with
 * the storage's owner (storage_chunk_oid), and checks that it is what
 * create_table makes (src/sql/30_tables.sql, ots.create_chunk_relation): a
 * plain table on the ots access method, not a partition, with the stored
 * key columns, "$column", "$ts", "$cells" and "$oldest_ts" as the storage
 * layout gives them, its primary key a btree on the stored key, "$column"
 * and "$ts".  None, or one without a primary key yet (a restore adds it
 * after the rows), leaves t->chunk_oid invalid: the table works without
 * it (a table of 0.2.0 before ALTER EXTENSION ots UPDATE), and ots.verify
 * reports it missing.  Anything else is damage.
 */
static void
catalog_check_chunk(OtsTable *t)
{
	Oid			chunk = storage_chunk_oid(t->data_oid, t->table_name);
	Form_pg_class form;
	char	   *what;
	int			nkeys = storage_nkeys(t);
	AttrNumber	keys[OTS_MAX_KEY_COLUMNS + 3];
	bool		has_key = false;

	t->chunk_oid = InvalidOid;
	if (!OidIsValid(chunk) || (form = catalog_class(chunk)) == NULL)
		return;
	what = psprintf("its chunk relation %s", quote_identifier(NameStr(form->relname)));
	if (form->relkind != RELKIND_RELATION || form->relispartition)
		catalog_damaged(t, "%s is not a table of its own", what);
	if (form->relam != storage_am_oid())
		catalog_damaged(t, "%s does not use the ots table access method", what);
	for (int k = 0; k < nkeys; k++)
		keys[k] = catalog_check_column(t, chunk, what, storage_key_column(t, k),
									   storage_key_type(t, k), storage_key_collation(t, k));
	keys[nkeys] = catalog_check_column(t, chunk, what, STORAGE_CHUNK_COLUMN_COLUMN, TEXTOID,
									   C_COLLATION_OID);
	keys[nkeys + 1] = catalog_check_column(t, chunk, what, STORAGE_CHUNK_TS_COLUMN, INT8OID,
										   InvalidOid);
	catalog_check_column(t, chunk, what, STORAGE_CELLS_COLUMN, storage_cells_type(), InvalidOid);
	catalog_check_column(t, chunk, what, STORAGE_OLDEST_TS_COLUMN, INT8OID, InvalidOid);
	if (!catalog_primary_key_is(chunk, keys, nkeys + 2, &has_key))
	{
		if (!has_key)
			return;
		catalog_damaged(t, "the primary key of %s is not a btree on (%s, %s, %s)", what,
						storage_key_list(t, nkeys), STORAGE_CHUNK_COLUMN_SQL, STORAGE_CHUNK_TS_SQL);
	}
	t->chunk_oid = chunk;
}

/*
 * catalog_check_storage_shape finds the storage table of t in schema nsp
 * (t->data_oid) and checks the table itself as create_table makes it:
 * partitioned as t says, with its stored key columns, "$cells" and
 * "$oldest_ts", which it fills keys with the attribute numbers of (when
 * not NULL); false when there is no storage table, an error when it
 * differs.  The rest of a table (primary key, partitions, view, sequence,
 * stream) comes later in a restore.
 */
static bool
catalog_check_storage_shape(OtsTable *t, Oid nsp, AttrNumber *keys)
{
	AttrNumber	found[OTS_MAX_KEY_COLUMNS + 1] = {0};
	HeapTuple	tup;
	Form_pg_partitioned_table part;
	int			nkeys = storage_nkeys(t);

	if (isAnyTempNamespace(nsp))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ots table %s is in a temporary schema",
						quote_qualified_identifier(t->schema_name, t->table_name)),
				 errdetail("ots tables cannot be temporary.")));
	t->data_oid = storage_oid(nsp, t->table_name);
	if (!OidIsValid(t->data_oid))
		return false;
	if (get_rel_relkind(t->data_oid) != RELKIND_PARTITIONED_TABLE)
		catalog_damaged(t, "its storage table is not partitioned");
	if (t->hash_prefix_len == 0 && get_attnum(t->data_oid, STORAGE_HASH_COLUMN) != InvalidAttrNumber)
		catalog_damaged(t, "its storage table has a \"%s\" column but no hash prefix",
						STORAGE_HASH_COLUMN);
	for (int k = 0; k < nkeys; k++)
		found[k] = catalog_check_column(t, t->data_oid, "its storage table", storage_key_column(t, k),
										storage_key_type(t, k), storage_key_collation(t, k));
	if (keys != NULL)
		memcpy(keys, found, sizeof(found));
	catalog_check_column(t, t->data_oid, "its storage table", STORAGE_CELLS_COLUMN,
						 storage_cells_type(), InvalidOid);
	catalog_check_column(t, t->data_oid, "its storage table", STORAGE_OLDEST_TS_COLUMN, INT8OID,
						 InvalidOid);

	tup = SearchSysCache1(PARTRELID, ObjectIdGetDatum(t->data_oid));
	if (!HeapTupleIsValid(tup))
		catalog_damaged(t, "its storage table has no partition key");
	part = (Form_pg_partitioned_table) GETSTRUCT(tup);
	if (part->partnatts != 1 || part->partattrs.values[0] != found[0] ||
		part->partstrat != (t->hash_prefix_len > 0 ? PARTITION_STRATEGY_RANGE : PARTITION_STRATEGY_HASH))
	{
		ReleaseSysCache(tup);
		catalog_damaged(t, "its storage table is not partitioned by %s",
						t->hash_prefix_len > 0 ? "RANGE (" STORAGE_HASH_SQL ")" :
						psprintf("HASH (%s)", quote_identifier(t->pk[0].name)));
	}
	ReleaseSysCache(tup);
	return true;
}

/*
 * catalog_check_stream finds the log and records of t's stream in schema
 * nsp, with t's owner (stream_storage.c checks their shape each time it
 * opens them: DDL on them does not reload t)
 */
static void
catalog_check_stream(OtsTable *t, Oid nsp)
{
	const char *suffixes[2] = {STORAGE_STREAM_LOG_SUFFIX, STORAGE_STREAM_REC_SUFFIX};
	Oid		   *oids[2] = {&t->stream_log_oid, &t->stream_rec_oid};

	t->stream_log_oid = t->stream_rec_oid = InvalidOid;
	if (!t->stream_enabled)
		return;
	for (int r = 0; r < 2; r++)
	{
		char		name[NAMEDATALEN * 2];
		Oid			relid;

		snprintf(name, sizeof(name), "%s%s", t->table_name, suffixes[r]);
		relid = get_relname_relid(name, nsp);
		if (get_rel_relkind(relid) != RELKIND_RELATION)
			catalog_damaged(t, "its stream's %s is missing",
							quote_qualified_identifier(t->schema_name, name));
		if (asrole_owner(relid) != asrole_owner(t->data_oid))
			catalog_damaged(t, "its stream's %s has another owner than its storage table",
							quote_qualified_identifier(t->schema_name, name));
		*oids[r] = relid;
	}
}

/*
 * catalog_check_leaf checks that partition leaf of t's storage (checked by
 * catalog_check_storage) is what create_table makes of it, as the row calls
 * read and write it directly: a plain table on the ots table access method
 * (whose write point every change of a row passes) whose primary key is a
 * btree on the key columns, which the leaf has at keys[] (as the leaf cache
 * finds them, 0 where one is missing: src/store/leaf.c).  An error
 * otherwise (a sub-partitioned or foreign partition, say, registered by
 * hand).
 */
void
catalog_check_leaf(const OtsTable *t, Oid leaf, const AttrNumber *keys)
{
	Form_pg_class form = catalog_class(leaf);
	int			nkeys = storage_nkeys(t);
	const char *name;

	if (form == NULL)
		catalog_damaged(t, "a partition of its storage table is gone");
	name = quote_identifier(NameStr(form->relname));
	if (form->relkind != RELKIND_RELATION)
		catalog_damaged(t, "partition %s of its storage table is not a plain table", name);
	if (form->relam != storage_am_oid())
		catalog_damaged(t, "partition %s of its storage table does not use the ots table access method", name);
	if (!catalog_primary_key_is(leaf, keys, nkeys, NULL))
		catalog_damaged(t, "the primary key of partition %s of its storage table is not a btree on (%s)",
						name, storage_key_list(t, storage_nkeys(t)));
}

/*
 * catalog_check_definition is catalog_read_row of a definition a role hands
 * in, then catalog_check_storage_shape of t's storage in schema nsp as far
 * as a restore has made it: anything create_table would not have made is
 * that input's error (22023), not a damaged table.
 */
void
catalog_check_definition(OtsTable *t, HeapTuple tup, TupleDesc desc, Oid nsp)
{
	checking_definition = true;
	PG_TRY();
	{
		catalog_read_row(t, tup, desc);
		(void) catalog_check_storage_shape(t, nsp, NULL);
	}
	PG_FINALLY();
	{
		checking_definition = false;
	}
	PG_END_TRY();
}

/* catalog_report_damaged raises catalog_damaged's error for t, saying what */
void
catalog_report_damaged(const OtsTable *t, const char *what)
{
	catalog_damaged(t, "%s", what);
}

/*
 * catalog_check_index_of: is idx (a row of ots.tables naming t in index_of)
 * an index create_index could have made of t?  Each key column a key
 * column of t or, among the columns the index was given, a defined column
 * of t, of the same type; every key column of t in it; each covered column
 * a defined column of t of the same type.  Maintenance copies t's values
 * into the index's columns by these names.
 */
void
catalog_check_index_of(const OtsTable *t, const OtsTable *idx)
{
	int			nbase = 0;

	for (int k = 0; k < idx->npk; k++)
	{
		const OtsDefinedColumn *d;
		int			j;

		for (j = 0; j < t->npk; j++)
			if (strcmp(t->pk[j].name, idx->pk[k].name) == 0)
				break;
		if (j < t->npk)
		{
			if (t->pk[j].type != idx->pk[k].type)
				catalog_damaged(t, "key column \"%s\" of its index %s has another type",
								idx->pk[k].name, quote_identifier(idx->table_name));
			nbase++;
			continue;
		}
		d = catalog_defined_column(t, idx->pk[k].name, idx->pk[k].namelen);
		if (k >= idx->index_nkeys || d == NULL || d->type != idx->pk[k].type)
			catalog_damaged(t, "key column \"%s\" of its index %s is not one of its key or defined columns",
							idx->pk[k].name, quote_identifier(idx->table_name));
	}
	if (nbase != t->npk)
		catalog_damaged(t, "its index %s lacks some of its key columns", quote_identifier(idx->table_name));
	for (int c = 0; c < idx->ndefined; c++)
	{
		const OtsDefinedColumn *d = catalog_defined_column(t, idx->defined[c].name, idx->defined[c].namelen);

		if (d == NULL || d->type != idx->defined[c].type)
			catalog_damaged(t, "covered column \"%s\" of its index %s is not one of its defined columns",
							idx->defined[c].name, quote_identifier(idx->table_name));
	}
}
