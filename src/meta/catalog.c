/*-------------------------------------------------------------------------
 * src/meta/catalog.c
 *	  Per-backend cache of ots table metadata (ots.tables), resolved from
 *	  the names users pass to ots functions.
 *
 * Entries live in a hash keyed by the user-facing view's OID and are never
 * freed, only marked invalid and reloaded in place, so a pointer cached in
 * fn_extra by the per-row view functions stays safe.  A relcache
 * invalidation of the view or the storage table (sent by update_table and
 * delete_table, and by DROP/ALTER) marks an entry invalid in every backend.
 *
 * ots.tables is written only through ots's functions (catalog_write.c),
 * but a superuser can still change it, or the storage's columns, by hand:
 * every load reads the row as the owner of ots.tables (rows are hidden from
 * roles that may not see the table, the loader must see them all) and
 * checks it against the storage's real catalog, so no metadata the hot
 * paths trust can crash a backend or confuse a type.  A lookup also locks
 * the storage table and loads again when that let in an invalidation
 * (as RangeVarGetRelidExtended does), so a call that waited for a
 * concurrent delete_table finds the table gone instead of a dropped OID.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_class.h"
#include "catalog/pg_am.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_partitioned_table.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "asrole.h"
#include "cache.h"
#include "meta/catalog.h"
#include "format/cells.h"
#include "errors.h"
#include "meta/storage.h"
#include "stream/stream_storage.h"
#include "subxact.h"

/* PostgreSQL identifiers hold NAMEDATALEN-1 bytes; a leaf's name is longer by its suffix */
#define CATALOG_MAX_TABLE_NAME_LEN (NAMEDATALEN - 1 - STORAGE_LEAF_SUFFIX_MAX_LEN)

typedef struct DataOidEntry
{
	Oid			data_oid;
	OtsTable   *table;
} DataOidEntry;

/* an unqualified table name resolved under names_path */
typedef struct NameEntry
{
	char		name[NAMEDATALEN];	/* hash key */
	Oid			view_oid;
} NameEntry;

static void catalog_table_stale(void *entry);
static bool catalog_table_concerns(const void *entry, Oid relid);
static void catalog_name_stale(void *entry);

/* the tables, by view: invalidating the view or the storage marks the entry */
static OtsCache tables_by_view = {
	.name = "ots tables by view",
	.keysize = sizeof(Oid),
	.entrysize = sizeof(OtsTable),
	.stale = catalog_table_stale,
	.concerns = catalog_table_concerns,
};

/* the same tables by storage: pointers into tables_by_view, whose validity they follow */
static OtsCache tables_by_data = {
	.name = "ots tables by storage",
	.keysize = sizeof(Oid),
	.entrysize = sizeof(DataOidEntry),
};

/* unqualified names resolved under names_path: any relation or schema change marks them */
static OtsCache names = {
	.name = "ots table names",
	.keysize = NAMEDATALEN,
	.entrysize = sizeof(NameEntry),
	.string_keys = true,
	.stale = catalog_name_stale,
};
static OverrideSearchPath *names_path = NULL;

static void catalog_load(OtsTable *t, Oid view_oid);
static void catalog_read_stream(OtsTable *t, HeapTuple tup, TupleDesc desc);
static void catalog_check_stream(OtsTable *t, Oid nsp);
static Form_pg_class catalog_class(Oid relid);
static bool catalog_name_valid(const char *name, int len, int maxlen);
static void catalog_read_defined(OtsTable *t, HeapTuple tup, TupleDesc desc);
static void catalog_read_index(OtsTable *t, HeapTuple tup, TupleDesc desc);
static OtsTable *catalog_get(Oid view_oid);
static void catalog_check_index_of(const OtsTable *t, const OtsTable *idx);

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

void
catalog_init(void)
{
	/* a new, renamed or dropped relation or schema may change what a name means */
	cache_watch_syscache(&names, RELNAMENSP);
	cache_watch_syscache(&names, NAMESPACEOID);
}

/* catalog_name_stale forgets what a name resolved to */
static void
catalog_name_stale(void *entry)
{
	((NameEntry *) entry)->view_oid = InvalidOid;
}

/*
 * catalog_resolve_unqualified finds the relation an unqualified name means
 * through search_path, as RelnameGetRelid does, remembering the answer for
 * as long as search_path (and the role it depends on) and the relations
 * and schemas stay the same.
 */
static Oid
catalog_resolve_unqualified(const char *relname)
{
	NameEntry  *e;
	bool		found;
	Oid			view_oid;

	if (names_path == NULL || !OverrideSearchPathMatchesCurrent(names_path))
	{
		cache_mark_stale(&names);
		if (names_path != NULL)
		{
			OverrideSearchPath *stale = names_path;

			names_path = NULL;
			list_free(stale->schemas);
			pfree(stale);
		}
		names_path = GetOverrideSearchPath(CacheMemoryContext);
	}
	e = cache_find(&names, relname);
	if (e != NULL && OidIsValid(e->view_oid))
		return e->view_oid;
	view_oid = RelnameGetRelid(relname);
	if (OidIsValid(view_oid))
	{
		e = cache_lookup(&names, relname, &found);
		e->view_oid = view_oid;
	}
	return view_oid;
}

/* catalog_table_stale marks a table's metadata for reloading */
static void
catalog_table_stale(void *entry)
{
	((OtsTable *) entry)->valid = false;
}

/* catalog_table_concerns: is relid the table's view or storage? */
static bool
catalog_table_concerns(const void *entry, Oid relid)
{
	const OtsTable *t = entry;

	return t->view_oid == relid || t->data_oid == relid;
}

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
		if (!catalog_name_valid(names[i], strlen(names[i]), NAMEDATALEN - 1))
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
		return;
	}
	s = TextDatumGetCString(id);
	if (!stream_id_valid(s, strlen(s)))
		catalog_damaged(t, "its stream_id is not one ots makes");
	strlcpy(t->stream_id, s, NAMEDATALEN);
	t->stream_expiration_hours = null_hours ? 0 : DatumGetInt32(hours);
	if (t->stream_expiration_hours < 1 || t->stream_expiration_hours > OTS_MAX_STREAM_EXPIRATION_HOURS)
		catalog_damaged(t, "stream_expiration_hours %d is outside [1, %d]",
						t->stream_expiration_hours, OTS_MAX_STREAM_EXPIRATION_HOURS);
	if (t->is_index)
		catalog_damaged(t, "an index has a stream");
}

/* catalog_read_defined reads the defined columns: valid, distinct names in name order */
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
		OtsDefinedColumn *c = &t->defined[i];

		c->namelen = strlen(names[i]);
		if (!catalog_name_valid(names[i], c->namelen, NAMEDATALEN - 1))
			catalog_damaged(t, "invalid defined column name \"%s\"", names[i]);
		if (i > 0 && cells_name_cmp(names[i - 1], strlen(names[i - 1]), names[i], c->namelen) >= 0)
			catalog_damaged(t, "defined_names are not distinct and in name order");
		for (int k = 0; k < t->npk; k++)
			if (strcmp(t->pk[k].name, names[i]) == 0)
				catalog_damaged(t, "defined column \"%s\" is a primary key column", names[i]);
		strlcpy(c->name, names[i], NAMEDATALEN);
		if ((c->type = catalog_type_named(types[i])) == 0)
			catalog_damaged(t, "unknown defined column type \"%s\"", types[i]);
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
 * catalog_check_column requires the storage column name to exist with
 * the type (and, for text, the collation) ots gives it, NOT NULL; returns
 * its attribute number.
 */
static AttrNumber
catalog_check_column(const OtsTable *t, Oid data_oid, const char *name, Oid type, Oid collation)
{
	HeapTuple	tup = SearchSysCacheAttName(data_oid, name);
	Form_pg_attribute att;
	AttrNumber	attnum;

	if (!HeapTupleIsValid(tup))
		catalog_damaged(t, "its storage table has no column \"%s\"", name);
	att = (Form_pg_attribute) GETSTRUCT(tup);
	if (att->atttypid != type || att->attcollation != collation || !att->attnotnull)
	{
		ReleaseSysCache(tup);
		catalog_damaged(t, "column \"%s\" of its storage table is not %s%s NOT NULL", name,
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
 * catalog_check_storage finds the storage table, view and sequence of t
 * (read by catalog_read_row) in schema nsp and checks that they are what
 * create_table makes of that metadata: false when the storage or view is
 * missing, or the storage has no primary key yet (the table does not
 * exist, or a restore has not made all of it), an error when anything
 * differs.
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
	return true;
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
bool
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
		found[k] = catalog_check_column(t, t->data_oid, storage_key_column(t, k),
										storage_key_type(t, k), storage_key_collation(t, k));
	if (keys != NULL)
		memcpy(keys, found, sizeof(found));
	catalog_check_column(t, t->data_oid, STORAGE_CELLS_COLUMN, storage_cells_type(), InvalidOid);
	catalog_check_column(t, t->data_oid, STORAGE_OLDEST_TS_COLUMN, INT8OID, InvalidOid);

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
	const char *suffixes[2] = {STREAM_LOG_SUFFIX, STREAM_REC_SUFFIX};
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
 * catalog_query_metadata runs a query of ots.tables with parameters $1, $2
 * (names) with a catalog snapshot, as PostgreSQL reads its own catalogs: a
 * transaction whose snapshot is older (REPEATABLE READ) must still maintain
 * an index created since, and a parallel worker reads what its leader
 * reads (it may take a catalog snapshot, not a latest one).  Whether a
 * query may read through an index is decided against its own snapshot
 * (catalog_index_usable).
 */
static int
catalog_query_metadata(const char *sql, Datum *args, long tcount)
{
	Oid			argtypes[2] = {NAMEOID, NAMEOID};
	SPIPlanPtr	plan = SPI_prepare(sql, 2, argtypes);
	Snapshot	snapshot;
	int			ret;

	if (plan == NULL)
		elog(ERROR, "could not prepare a query of ots.tables: %s", SPI_result_code_string(SPI_result));
	snapshot = RegisterSnapshot(GetNonHistoricCatalogSnapshot(InvalidOid));
	ret = SPI_execute_snapshot(plan, args, NULL, snapshot, InvalidSnapshot, true, false, tcount);
	UnregisterSnapshot(snapshot);
	SPI_freeplan(plan);
	return ret;
}

/*
 * catalog_has_index_columns: does ots.tables have 0.2.0's columns for
 * defined columns and indexes?  A 0.1.0 installation has not until
 * ALTER EXTENSION ots UPDATE; its tables are read as having none.
 */
static bool
catalog_has_index_columns(void)
{
	Oid			nsp = get_namespace_oid("ots", true);
	Oid			rel = OidIsValid(nsp) ? get_relname_relid("tables", nsp) : InvalidOid;

	return OidIsValid(rel) && get_attnum(rel, "stream_id") != InvalidAttrNumber;
}

/*
 * catalog_load_indexes finds the secondary indexes of table t (whose row
 * was just read, args its schema and name) in ots.tables and their storage
 * tables; run within catalog_load's SPI connection and role.
 */
static void
catalog_load_indexes(OtsTable *t, Oid nsp, Datum *args)
{
	int			ret;

	ret = catalog_query_metadata("SELECT " CATALOG_ROW_COLUMNS ", table_name FROM ots.tables"
							   " WHERE schema_name OPERATOR(pg_catalog.=) $1"
							   " AND index_of OPERATOR(pg_catalog.=) $2"
							   " ORDER BY table_name COLLATE \"C\"", args, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read the indexes of an ots table: %s", SPI_result_code_string(ret));
	if (SPI_processed > OTS_MAX_INDEXES)
		catalog_damaged(t, "it has " UINT64_FORMAT " indexes, more than %d", SPI_processed,
						OTS_MAX_INDEXES);
	t->nindexes = SPI_processed;
	for (int i = 0; i < t->nindexes; i++)
	{
		bool		isnull;
		Name		name = DatumGetName(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc,
													  CATALOG_ROW_NCOLUMNS + 1, &isnull));
		OtsTable	idx;

		memset(&idx, 0, sizeof(idx));
		strlcpy(idx.schema_name, t->schema_name, NAMEDATALEN);
		strlcpy(idx.table_name, NameStr(*name), NAMEDATALEN);
		catalog_read_row(&idx, SPI_tuptable->vals[i], SPI_tuptable->tupdesc);
		catalog_check_index_of(t, &idx);
		t->index_data_oids[i] = storage_oid(nsp, NameStr(*name));
		if (!OidIsValid(t->index_data_oids[i]))
			catalog_damaged(t, "the storage table of its index %s is missing",
							quote_identifier(NameStr(*name)));
		if (asrole_owner(t->index_data_oids[i]) != asrole_owner(storage_oid(nsp, t->table_name)))
			catalog_damaged(t, "its index %s has another owner than its storage table",
							quote_identifier(NameStr(*name)));
	}
}

/*
 * catalog_check_index_of: is idx (a row of ots.tables naming t in index_of)
 * an index create_index could have made of t?  Each key column a key
 * column of t or, among the columns the index was given, a defined column
 * of t, of the same type; every key column of t in it; each covered column
 * a defined column of t of the same type.  Maintenance copies t's values
 * into the index's columns by these names.
 */
static void
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

OtsTable *
catalog_index_base(const OtsTable *t)
{
	Oid			nsp = get_namespace_oid(t->schema_name, false);
	Oid			view_oid = get_relname_relid(t->index_of, nsp);
	OtsTable   *base;

	for (;;)
	{
		Oid			data_oid;

		base = OidIsValid(view_oid) ? catalog_get(view_oid) : NULL;
		if (base == NULL)
			catalog_damaged(t, "its base table %s is gone", quote_identifier(t->index_of));
		data_oid = base->data_oid;
		LockRelationOid(data_oid, AccessShareLock);
		if (base->valid && base->data_oid == data_oid)
		{
			/* a table of that name that does not list the index is not its table */
			for (int i = 0; i < base->nindexes; i++)
				if (base->index_data_oids[i] == t->data_oid)
					return base;
			catalog_damaged(t, "its table %s does not list it as an index", quote_identifier(t->index_of));
		}
		view_oid = get_relname_relid(t->index_of, nsp);
	}
}

void
catalog_check_index_readable(const OtsTable *t)
{
	if (t->is_index && !catalog_index_usable(t, GetActiveSnapshot()))
		ots_error(PARAMETER_INVALID, "Disallow read index table in building base state");
}

bool
catalog_index_usable(const OtsTable *t, Snapshot snapshot)
{
	if (t->index_building)
		return false;
	/*
	 * the transaction that made it complete must be visible to the reader:
	 * an older snapshot sees the table's rows without the entries the build
	 * wrote (PostgreSQL's indcheckxmin, more precisely)
	 */
	return snapshot == NULL || !TransactionIdIsNormal(t->index_ready_xmin) ||
		TransactionIdIsCurrentTransactionId(t->index_ready_xmin) ||
		!XidInMVCCSnapshot(t->index_ready_xmin, snapshot);
}

/*
 * catalog_load fills t from ots.tables for the view's schema and name; on
 * a miss, t->valid stays false.  The row is read as the owner of
 * ots.tables, who sees every row, into a copy that replaces t only once
 * all of it has been checked.
 */
static void
catalog_load(OtsTable *t, Oid view_oid)
{
	Oid			nsp = get_rel_namespace(view_oid);
	char	   *relname = get_rel_name(view_oid);
	char	   *nspname = OidIsValid(nsp) ? get_namespace_name(nsp) : NULL;
	Datum		args[2];
	AsRole		saved;
	OtsTable	loaded;
	int			ret;
	bool		found = false;
	bool		indexes;

	t->valid = false;
	if (relname == NULL || nspname == NULL || get_rel_relkind(view_oid) != RELKIND_VIEW)
		return;
	/*
	 * a table's view has its storage beside it (catalog_check_storage): a
	 * view without that relation is no table's, known by one name lookup
	 * instead of a query of ots.tables, for every view any DML or plan
	 * asks about; nothing is remembered, so a name that becomes a table's
	 * view later is one at once
	 */
	if (!OidIsValid(storage_oid(nsp, relname)))
		return;
	/* a database without ots's catalog (an ots_proxy's: its schema ots has none) has no ots tables */
	if (!OidIsValid(get_relname_relid("tables", get_namespace_oid("ots", true))))
		return;
	memset(&loaded, 0, sizeof(loaded));
	loaded.view_oid = view_oid;
	strlcpy(loaded.schema_name, nspname, NAMEDATALEN);
	strlcpy(loaded.table_name, relname, NAMEDATALEN);
	args[0] = DirectFunctionCall1(namein, CStringGetDatum(nspname));
	args[1] = DirectFunctionCall1(namein, CStringGetDatum(relname));

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	asrole_enter(asrole_catalog_owner(), &saved);
	indexes = catalog_has_index_columns();
	ret = catalog_query_metadata(indexes ?
							   "SELECT " CATALOG_ROW_COLUMNS ", xmin"
							   " FROM ots.tables WHERE schema_name OPERATOR(pg_catalog.=) $1"
							   " AND table_name OPERATOR(pg_catalog.=) $2" :
							   "SELECT " CATALOG_ROW_COLUMNS_BEFORE_UPDATE
							   " FROM ots.tables WHERE schema_name OPERATOR(pg_catalog.=) $1"
							   " AND table_name OPERATOR(pg_catalog.=) $2", args, 1);
	if (ret == SPI_OK_SELECT && SPI_processed == 1)
	{
		catalog_read_row(&loaded, SPI_tuptable->vals[0], SPI_tuptable->tupdesc);
		found = true;
		if (loaded.is_index)
		{
			bool		isnull;

			loaded.index_ready_xmin =
				DatumGetTransactionId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
													CATALOG_ROW_NCOLUMNS + 1, &isnull));
		}
	}
	if (found && !loaded.is_index && indexes)
		catalog_load_indexes(&loaded, nsp, args);
	asrole_leave(&saved);
	SPI_finish();

	if (found && catalog_check_storage(&loaded, nsp))
	{
		bool		found_data;
		DataOidEntry *e;

		loaded.valid = true;
		memcpy(t, &loaded, sizeof(OtsTable));
		e = cache_lookup(&tables_by_data, &t->data_oid, &found_data);
		e->table = t;
	}
}

/*
 * catalog_get returns the valid entry for a view OID, loading it if
 * needed; NULL when the relation is not an ots table.
 */
static OtsTable *
catalog_get(Oid view_oid)
{
	OtsTable   *t;
	bool		found;

	t = cache_lookup(&tables_by_view, &view_oid, &found);
	if (!t->valid)
		catalog_load(t, view_oid);
	return t->valid ? t : NULL;
}

/*
 * catalog_schema_name reads the schema part of a table-name argument: taken
 * literally, or between double quotes with "" standing for one quote.
 */
static char *
catalog_schema_name(const char *schema)
{
	size_t		len = strlen(schema);
	char	   *out;
	int			j = 0;

	if (len < 2 || schema[0] != '"' || schema[len - 1] != '"')
		return pstrdup(schema);
	out = palloc(len);
	for (size_t i = 1; i < len - 1; i++)
	{
		out[j++] = schema[i];
		if (schema[i] == '"' && schema[i + 1] == '"')
			i++;
	}
	out[j] = '\0';
	return out;
}

/*
 * catalog_resolve finds the relation a table-name argument names (it may
 * not be an ots table); InvalidOid when none, or (quietly) when the name
 * is not a valid one.
 */
static Oid
catalog_resolve(text *name, bool quiet)
{
	char	   *full = text_to_cstring(name);
	char	   *dot = strrchr(full, '.');
	char	   *relname = dot ? dot + 1 : full;
	char	   *schema;
	Oid			nsp;

	if (quiet && !catalog_name_valid(relname, strlen(relname), CATALOG_MAX_TABLE_NAME_LEN))
		return InvalidOid;
	catalog_check_table_name(relname, strlen(relname));
	if (dot == NULL)
		return catalog_resolve_unqualified(relname);
	*dot = '\0';
	schema = catalog_schema_name(full);
	/* like schema.t in SQL: needs USAGE on the schema (42501 otherwise) */
	nsp = LookupExplicitNamespace(schema, true);
	return OidIsValid(nsp) ? get_relname_relid(relname, nsp) : InvalidOid;
}

/*
 * catalog_lock locks t's storage (AccessShareLock, until the end of the
 * transaction); false when taking the lock let in an invalidation of t
 * (the table was dropped or changed while this call waited)
 */
static bool
catalog_lock(OtsTable *t)
{
	Oid			data_oid = t->data_oid;

	LockRelationOid(data_oid, AccessShareLock);
	return t->valid && t->data_oid == data_oid;
}

/*
 * catalog_find resolves a table-name argument; NULL when no ots table has
 * that name, or (quietly) when the name is not a valid one.  With lock, the
 * storage table is locked (AccessShareLock, until the end of the
 * transaction) and the answer holds for that lock: when taking it let in
 * an invalidation (the table was dropped or changed while this call
 * waited), the name is resolved and loaded again.
 */
static OtsTable *
catalog_find(text *name, bool quiet, bool lock)
{
	for (;;)
	{
		Oid			view_oid = catalog_resolve(name, quiet);
		OtsTable   *t = OidIsValid(view_oid) ? catalog_get(view_oid) : NULL;

		if (t == NULL || !lock || catalog_lock(t))
			return t;
	}
}

OtsTable *
catalog_lookup(text *name)
{
	OtsTable   *t = catalog_find(name, false, true);

	if (t == NULL)
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	return t;
}

OtsTable *
catalog_lookup_quiet(text *name)
{
	return catalog_find(name, true, true);
}

OtsTable *
catalog_lookup_by_view_oid(Oid view_oid)
{
	return catalog_get(view_oid);
}

OtsTable *
catalog_lookup_view(Oid view_oid)
{
	for (;;)
	{
		OtsTable   *t = catalog_get(view_oid);

		if (t == NULL)
			ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
		if (catalog_lock(t))
			return t;
	}
}

OtsTable *
catalog_lookup_by_data_oid(Oid data_oid)
{
	DataOidEntry *e;

	e = cache_find(&tables_by_data, &data_oid);
	if (e != NULL && e->table->valid && e->table->data_oid == data_oid)
		return e->table;
	if (e != NULL)
	{
		/* reload through the view, which may have been invalidated */
		OtsTable   *t = catalog_get(e->table->view_oid);

		if (t != NULL && t->data_oid == data_oid)
			return t;
	}
	/* first use in this backend: find the view from the storage name */
	{
		char	   *relname = storage_table_of(get_rel_name(data_oid), STORAGE_SUFFIX);

		if (relname != NULL)
		{
			Oid			view_oid = get_relname_relid(relname, get_rel_namespace(data_oid));

			if (OidIsValid(view_oid))
			{
				OtsTable   *t = catalog_get(view_oid);

				if (t != NULL && t->data_oid == data_oid)
					return t;
			}
		}
	}
	return NULL;
}

static bool
catalog_name_valid(const char *name, int len, int maxlen)
{
	if (len < 1 || len > maxlen)
		return false;
	if (!((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z') ||
		  name[0] == '_'))
		return false;
	for (int i = 1; i < len; i++)
	{
		char		c = name[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			  (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

void
catalog_check_table_name(const char *name, int len)
{
	if (catalog_name_valid(name, len, OTS_MAX_NAME_LEN) && len > CATALOG_MAX_TABLE_NAME_LEN)
		ereport(ERROR,
				(errcode(ERRCODE_OTS_PARAMETER_INVALID),
				 errmsg_internal("Invalid table name: '%s'.", pnstrdup(name, len)),
				 errdetail("ots table names are limited to %d bytes, as PostgreSQL names are.",
						   CATALOG_MAX_TABLE_NAME_LEN)));
	if (!catalog_name_valid(name, len, OTS_MAX_NAME_LEN))
		ots_error(PARAMETER_INVALID, "Invalid table name: '%s'.", pnstrdup(name, len));
}

void
catalog_check_column_name(const char *name, int len)
{
	if (!catalog_name_valid(name, len, OTS_MAX_NAME_LEN))
		ots_error(PARAMETER_INVALID, "Invalid column name: '%s'.", pnstrdup(name, len));
}

PG_FUNCTION_INFO_V1(ots_resolve_name);
PG_FUNCTION_INFO_V1(ots_invalidate_table);

/*
 * ots_resolve_name is ots.resolve_name(table_name, for_create): the schema
 * and name a table-name argument means in the caller's search_path.  For
 * an existing table it must be an ots table; for a new one, an unqualified
 * name goes to the schema CREATE TABLE would use.
 */
Datum
ots_resolve_name(PG_FUNCTION_ARGS)
{
	text	   *name = PG_GETARG_TEXT_PP(0);
	bool		for_create = PG_GETARG_BOOL(1);
	TupleDesc	desc;
	Datum		values[2];
	bool		nulls[2] = {false, false};
	char	   *schema;
	char	   *relname;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "ots.resolve_name must return a record");
	if (!for_create)
	{
		/* DDL takes its own locks: locking here would deadlock two deletes */
		OtsTable   *t = catalog_find(name, false, false);

		if (t == NULL)
			ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");

		schema = t->schema_name;
		relname = t->table_name;
	}
	else
	{
		char	   *full = text_to_cstring(name);
		char	   *dot = strrchr(full, '.');

		Oid			nsp;

		relname = dot ? dot + 1 : full;
		catalog_check_table_name(relname, strlen(relname));
		if (dot == NULL)
			nsp = RangeVarGetCreationNamespace(makeRangeVar(NULL, relname, -1));
		else
		{
			*dot = '\0';
			schema = catalog_schema_name(full);
			nsp = strcmp(schema, "pg_temp") == 0 ? InvalidOid : get_namespace_oid(schema, true);
			if (!OidIsValid(nsp) && strcmp(schema, "pg_temp") != 0)
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_SCHEMA),
						 errmsg("schema \"%s\" does not exist", schema)));
		}
		/*
		 * Temporary tables would vanish at session end behind ots's back
		 * (metadata, jobs and counters left to whichever session next gets
		 * that temporary schema), and other sessions, purge among them,
		 * cannot read them.
		 */
		if (!OidIsValid(nsp) || isAnyTempNamespace(nsp))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("ots tables cannot be created in a temporary schema"),
					 errdetail("ots tables cannot be temporary.")));
		schema = get_namespace_name(nsp);
	}
	values[0] = DirectFunctionCall1(namein, CStringGetDatum(schema));
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(relname));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

/*
 * ots_invalidate_table makes every backend drop its cached metadata of the
 * table stored in "storage" at the next command (after commit).  Only the
 * table's owner may.
 */
Datum
ots_invalidate_table(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);

	if (!catalog_owns(relid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s", get_rel_name(relid) ? get_rel_name(relid) : "?")));
	CacheInvalidateRelcacheByRelid(relid);
	PG_RETURN_VOID();
}

/*
 * catalog_owns: does the current user own the relation (or is a member of
 * its owner)?  false when the relation does not exist.
 */
bool
catalog_owns(Oid relid)
{
	Oid			owner = asrole_owner(relid);

	return OidIsValid(owner) && has_privs_of_role(GetUserId(), owner);
}

/* catalog_has_any_privilege: has the current user any privilege on the relation? */
static bool
catalog_has_any_privilege(Oid relid)
{
	bool		missing = false;

	return OidIsValid(relid) &&
		pg_class_aclmask_ext(relid, GetUserId(), ACL_ALL_RIGHTS_RELATION, ACLMASK_ANY,
							 &missing) != 0 && !missing;
}

/*
 * catalog_may_see is the rule of what ots shows a role of an ots table
 * (ots.tables, ots.stats, ots.list_table): the table's owner sees it, and
 * so does a role with USAGE on its schema and some privilege on its view
 * or its storage table.
 */
bool
catalog_may_see(Oid nsp, const char *table_name)
{
	Oid			data_oid = storage_oid(nsp, table_name);

	if (OidIsValid(data_oid) && catalog_owns(data_oid))
		return true;
	return pg_namespace_aclcheck(nsp, GetUserId(), ACL_USAGE) == ACLCHECK_OK &&
		(catalog_has_any_privilege(data_oid) ||
		 catalog_has_any_privilege(get_relname_relid(table_name, nsp)));
}

/*
 * catalog_may_see_storage is catalog_may_see for a storage table's OID; a
 * superuser may see any, also the leftovers of a storage that is gone
 */
bool
catalog_may_see_storage(Oid data_oid)
{
	char	   *relname;

	if (superuser())
		return true;
	relname = storage_table_of(get_rel_name(data_oid), STORAGE_SUFFIX);
	return relname != NULL && catalog_may_see(get_rel_namespace(data_oid), relname);
}

PG_FUNCTION_INFO_V1(ots_table_visible);
PG_FUNCTION_INFO_V1(ots_table_problem);

/*
 * ots_table_visible is ots.table_visible(schema_name, table_name), the row
 * filter of ots.tables and ots.purge_stats: catalog_may_see by names.
 */
Datum
ots_table_visible(PG_FUNCTION_ARGS)
{
	Oid			nsp = get_namespace_oid(NameStr(*PG_GETARG_NAME(0)), true);

	PG_RETURN_BOOL(OidIsValid(nsp) && catalog_may_see(nsp, NameStr(*PG_GETARG_NAME(1))));
}

/* what catalog_table_load found: the table, or nothing (not whole) */
typedef struct TableLoad
{
	Oid			view_oid;
	bool		loaded;
} TableLoad;

static bool
catalog_table_load(void *arg)
{
	TableLoad  *load = arg;

	load->loaded = catalog_get(load->view_oid) != NULL;
	return true;
}

static bool
catalog_catch_damage(int sqlerrcode)
{
	return sqlerrcode == ERRCODE_DATA_CORRUPTED;
}

/*
 * ots_table_problem is ots.table_problem(schema_name, table_name): why
 * registered ots table schema.table_name does not load, or NULL when it
 * does: it is not whole (its view, storage or primary key missing: a
 * restore did not make all of it, or a role made only its storage and
 * comment), or damaged (the error a load raises, caught).  For the calls
 * that act on every table a role owns, which go on past such a table; the
 * caller must own it (42501), as only its owner may see all of that.
 */
Datum
ots_table_problem(PG_FUNCTION_ARGS)
{
	Oid			nsp = get_namespace_oid(NameStr(*PG_GETARG_NAME(0)), true);
	Oid			view_oid = OidIsValid(nsp) ? get_relname_relid(NameStr(*PG_GETARG_NAME(1)), nsp) : InvalidOid;
	TableLoad	load = {view_oid, false};
	ErrorData  *error;
	bool		kept;

	if (!catalog_owns(storage_oid(nsp, NameStr(*PG_GETARG_NAME(1)))))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of ots table %s",
						quote_qualified_identifier(NameStr(*PG_GETARG_NAME(0)), NameStr(*PG_GETARG_NAME(1))))));
	if (get_rel_relkind(view_oid) != RELKIND_VIEW)
		PG_RETURN_TEXT_P(cstring_to_text("it is not whole: it has no view (a restore that did not finish?)"));
	error = subxact_run(catalog_table_load, &load, catalog_catch_damage, &kept);
	if (error != NULL)
		PG_RETURN_TEXT_P(cstring_to_text(error->message));
	if (!load.loaded)
		PG_RETURN_TEXT_P(cstring_to_text("it is not whole: its storage or the storage's primary key is missing (a restore that did not finish?)"));
	PG_RETURN_NULL();
}
