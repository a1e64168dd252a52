/*-------------------------------------------------------------------------
 * src/search/search_index.c
 *	  A search index loaded from ots.search_indexes and checked against its
 *	  storage, cached per backend.
 *
 * The write point writes a search index's storage as whoever writes the
 * table, below SQL (no trigger, rule or permission check), so nothing in
 * the storage may run code of its owner's: it must be a plain heap table
 * of the table's owner whose columns are the ones create_search_index
 * makes, and whose indexes are plain column indexes of PostgreSQL's own
 * access methods and operator classes (an expression, a predicate or an
 * operator class of the owner's would run the owner's functions as the
 * writer).  Anything else is reported as damage, never used.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/pg_am.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "asrole.h"
#include "storage/lmgr.h"
#include "cache.h"
#include "errors.h"
#include "meta/storage.h"
#include "search/search_index.h"

static void search_index_stale(void *entry);

static OtsCache search_index_cache = {
	.name = "ots search index cache",
	.keysize = sizeof(Oid),
	.entrysize = sizeof(SearchIndex),
	.stale = search_index_stale,
};

static void
search_index_stale(void *entry)
{
	((SearchIndex *) entry)->valid = false;
}

static void
search_index_damaged(const OtsTable *t, const char *storage, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("search index storage %s of ots table %s is damaged: %s",
					quote_qualified_identifier(t->schema_name, storage),
					quote_qualified_identifier(t->schema_name, t->table_name), what),
			 errhint("Delete the search index (ots.delete_search_index) and create it again.")));
}

/* search_index_column: the number of rel's column name, of type typid, or the damage report */
static AttrNumber
search_index_column(const OtsTable *t, Relation rel, const char *name, Oid typid)
{
	TupleDesc	desc = RelationGetDescr(rel);

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute a = TupleDescAttr(desc, i);

		if (a->attisdropped || strcmp(NameStr(a->attname), name) != 0)
			continue;
		if (a->atttypid != typid)
			search_index_damaged(t, RelationGetRelationName(rel),
								 psprintf("column %s has type %s, not %s", quote_identifier(name),
										  format_type_be(a->atttypid), format_type_be(typid)));
		if ((typid == TEXTOID || typid == TEXTARRAYOID) && a->attcollation != C_COLLATION_OID)
			search_index_damaged(t, RelationGetRelationName(rel),
								 psprintf("column %s is not of collation \"C\"", quote_identifier(name)));
		return a->attnum;
	}
	search_index_damaged(t, RelationGetRelationName(rel), psprintf("column %s is missing", quote_identifier(name)));
	return InvalidAttrNumber;
}

/*
 * search_index_check_indexes: every index of rel plain (columns only, no
 * predicate, PostgreSQL's access methods and operator classes), the
 * primary key on the key columns; fills si's index list, key first
 */
static void
search_index_check_indexes(const OtsTable *t, Relation rel, SearchIndex *si)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	int			n = 1;

	si->index_oids = palloc(sizeof(Oid) * (list_length(indexes) + 1));
	si->key_index = InvalidOid;
	foreach(lc, indexes)
	{
		Oid			index_oid = lfirst_oid(lc);
		Relation	index = index_open(index_oid, AccessShareLock);
		Form_pg_index form = index->rd_index;
		Oid			am = index->rd_rel->relam;
		bool		plain;

		plain = heap_attisnull(index->rd_indextuple, Anum_pg_index_indexprs, NULL) &&
			heap_attisnull(index->rd_indextuple, Anum_pg_index_indpred, NULL) &&
			(am == BTREE_AM_OID || am == GIN_AM_OID || am == GIST_AM_OID) &&
			!form->indisexclusion && form->indnatts == form->indnkeyatts;
		for (int k = 0; plain && k < form->indnkeyatts; k++)
			plain = index->rd_opfamily[k] < FirstNormalObjectId &&
				index->rd_indcollation[k] < FirstNormalObjectId && form->indkey.values[k] != 0;
		if (!plain)
			search_index_damaged(t, RelationGetRelationName(rel),
								 psprintf("index %s is not one ots makes",
										  quote_identifier(RelationGetRelationName(index))));
		/* an index being built concurrently, or left invalid, gets no entries yet (as the executor's) */
		if (!form->indisready)
		{
			index_close(index, AccessShareLock);
			continue;
		}
		if (form->indisprimary)
		{
			bool		key = am == BTREE_AM_OID && form->indnkeyatts == si->npk && form->indisvalid;

			for (int k = 0; key && k < si->npk; k++)
				key = form->indkey.values[k] == k + 1;
			if (!key)
				search_index_damaged(t, RelationGetRelationName(rel), "its primary key is not the table's");
			si->key_index = index_oid;
			si->index_oids[0] = index_oid;
		}
		else
			si->index_oids[n++] = index_oid;
		index_close(index, AccessShareLock);
	}
	if (!OidIsValid(si->key_index))
		search_index_damaged(t, RelationGetRelationName(rel), "it has no primary key");
	si->nindexes = n;
	list_free(indexes);
}

/* search_index_load fills si from its catalog row and storage */
static void
search_index_load(const OtsTable *t, Oid storage_oid, SearchIndex *si)
{
	static const Oid argtypes[3] = {NAMEOID, NAMEOID, NAMEOID};
	char	   *storage = get_rel_name(storage_oid);
	Datum		args[3];
	SPIPlanPtr	plan;
	Snapshot	snapshot;
	AsRole		saved;
	Jsonb	   *schema;
	bool		isnull;
	int			ret;
	Relation	rel;
	MemoryContext old;

	if (storage == NULL)
		elog(ERROR, "search index storage %u of ots table %s is gone", storage_oid,
			 quote_qualified_identifier(t->schema_name, t->table_name));
	args[0] = DirectFunctionCall1(namein, CStringGetDatum(t->schema_name));
	args[1] = DirectFunctionCall1(namein, CStringGetDatum(t->table_name));
	args[2] = DirectFunctionCall1(namein, CStringGetDatum(storage));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	asrole_enter(asrole_catalog_owner(), &saved);
	plan = SPI_prepare("SELECT index_name, index_schema, time_to_live, xmin,"
					   " sync_phase OPERATOR(pg_catalog.=) 'FULL', brother_index_name,"
					   " (SELECT (w OPERATOR(pg_catalog.->>) 'weight')::pg_catalog.int4"
					   "  FROM pg_catalog.jsonb_array_elements(query_flow_weights) w"
					   "  WHERE w OPERATOR(pg_catalog.->>) 'index_name' OPERATOR(pg_catalog.=) index_name),"
					   " (SELECT (w OPERATOR(pg_catalog.->>) 'weight')::pg_catalog.int4"
					   "  FROM pg_catalog.jsonb_array_elements(query_flow_weights) w"
					   "  WHERE w OPERATOR(pg_catalog.->>) 'index_name' OPERATOR(pg_catalog.=) brother_index_name)"
					   " FROM ots.search_indexes"
					   " WHERE schema_name OPERATOR(pg_catalog.=) $1"
					   " AND table_name OPERATOR(pg_catalog.=) $2"
					   " AND storage_name OPERATOR(pg_catalog.=) $3", 3, (Oid *) argtypes);
	if (plan == NULL)
		elog(ERROR, "could not prepare a query of ots.search_indexes: %s", SPI_result_code_string(SPI_result));
	/*
	 * with a catalog snapshot, as the table's list of search indexes was
	 * read (catalog_load.c): a writer whose snapshot is older than the
	 * index maintains it all the same
	 */
	snapshot = RegisterSnapshot(GetNonHistoricCatalogSnapshot(InvalidOid));
	ret = SPI_execute_snapshot(plan, args, NULL, snapshot, InvalidSnapshot, true, false, 1);
	UnregisterSnapshot(snapshot);
	asrole_leave(&saved);
	if (ret != SPI_OK_SELECT || SPI_processed != 1)
		search_index_damaged(t, storage, "ots.search_indexes has no row for it");

	old = MemoryContextSwitchTo(si->cxt);
	strlcpy(si->index_name,
			TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)),
			NAMEDATALEN);
	schema = DatumGetJsonbPCopy(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	si->time_to_live = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull));
	si->ready_xmin = DatumGetTransactionId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4, &isnull));
	si->building = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 5, &isnull));
	{
		char	   *brother = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 6);
		Datum		w = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 7, &isnull);
		bool		brother_null;
		Datum		bw = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 8, &brother_null);

		si->brother = brother != NULL ? pstrdup(brother) : NULL;
		si->weight = isnull || brother_null ? -1 : DatumGetInt32(w);
		si->brother_weight = isnull || brother_null ? 0 : DatumGetInt32(bw);
	}
	MemoryContextSwitchTo(old);
	SPI_finish();

	old = MemoryContextSwitchTo(si->cxt);
	search_schema_read(schema, t, &si->schema);
	si->npk = t->npk;
	rel = table_open(storage_oid, NoLock);
	if (rel->rd_rel->relkind != RELKIND_RELATION || rel->rd_rel->relam != HEAP_TABLE_AM_OID ||
		rel->rd_rel->relnamespace != get_rel_namespace(t->data_oid))
		search_index_damaged(t, storage, "it is not a plain table beside the table's storage");
	if (asrole_owner(storage_oid) != asrole_owner(t->data_oid))
		search_index_damaged(t, storage, "it has another owner than the table's storage");
	for (int k = 0; k < t->npk; k++)
		if (search_index_column(t, rel, t->pk[k].name, storage_key_type(t, storage_nkeys(t) - t->npk + k)) != k + 1)
			search_index_damaged(t, storage, "its first columns are not the table's primary key");
	si->field_attnos = palloc0(sizeof(AttrNumber) * si->schema.nfields);
	si->positions_attnos = palloc0(sizeof(AttrNumber) * si->schema.nfields);
	for (int i = 0; i < si->schema.nfields; i++)
	{
		const SearchField *f = &si->schema.fields[i];

		if (!search_field_kept(f))
		{
			si->field_attnos[i] = f->pk_column;		/* 0: a VECTOR's none */
			continue;
		}
		si->field_attnos[i] = search_index_column(t, rel, f->name, search_field_type_oid(f));
		if (f->type == SEARCH_TEXT)
			si->positions_attnos[i] = search_index_column(t, rel, psprintf("%s%s", f->name, SEARCH_POSITIONS_SUFFIX),
														  INT4ARRAYOID);
	}
	si->row_ts_attno = search_index_column(t, rel, SEARCH_ROW_TS_COLUMN, INT8OID);
	si->ts_attno = search_index_column(t, rel, SEARCH_TS_COLUMN, INT8ARRAYOID);
	si->fields_ts_attno = search_index_column(t, rel, SEARCH_FIELDS_TS_COLUMN, INT8OID);
	{
		int			live = 0;
		int			expected = t->npk + 3;

		for (int i = 0; i < RelationGetDescr(rel)->natts; i++)
			live += !TupleDescAttr(RelationGetDescr(rel), i)->attisdropped;
		for (int i = 0; i < si->schema.nfields; i++)
			expected += !search_field_kept(&si->schema.fields[i]) ? 0 : si->positions_attnos[i] != 0 ? 2 : 1;
		if (live != expected)
			search_index_damaged(t, storage, "it has columns ots did not make");
	}
	if (rel->trigdesc != NULL || rel->rd_rules != NULL)
		search_index_damaged(t, storage, "it has triggers or rules");
	search_index_check_indexes(t, rel, si);
	table_close(rel, NoLock);
	MemoryContextSwitchTo(old);
}

/* FNV-1a: a hash of the bytes that is the same on every machine, as a dump restored elsewhere needs */
static uint32
storage_name_hash(const char *bytes, size_t len, uint32 h)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char) bytes[i]) * 16777619u;
	return h;
}

char *
search_storage_name(const char *table, const char *index_name)
{
	char	   *name = psprintf("%s%s%s", table, SEARCH_STORAGE_INFIX, index_name);
	uint32		h;
	int			table_len;
	int			index_len;

	if (strlen(name) < NAMEDATALEN)
		return name;

	/*
	 * Too long for PostgreSQL: both names cut (at a character's end), and a
	 * hash of both whole, which keeps two such names apart
	 */
	h = storage_name_hash(table, strlen(table) + 1, 2166136261u);
	h = storage_name_hash(index_name, strlen(index_name), h);
	table_len = pg_mbcliplen(table, strlen(table), SEARCH_STORAGE_TABLE_PART);
	index_len = pg_mbcliplen(index_name, strlen(index_name),
							 NAMEDATALEN - 1 - table_len - strlen(SEARCH_STORAGE_INFIX) - 9);
	return psprintf("%.*s%s%.*s$%08x", table_len, table, SEARCH_STORAGE_INFIX, index_len, index_name, h);
}

const SearchIndex *
search_index_get(const OtsTable *t, Oid storage_oid, LOCKMODE lockmode)
{
	bool		found;
	SearchIndex *si;

	/*
	 * the lock first: taking it reads the invalidations DDL on the storage
	 * sent, and holding it keeps more from coming until the transaction ends
	 */
	LockRelationOid(storage_oid, lockmode);
	si = cache_lookup(&search_index_cache, &storage_oid, &found);

	/* a storage OID is its table's while the table stands: a new table is checked again */
	if (si->valid && si->base_data_oid == t->data_oid)
		return si;
	if (si->cxt != NULL)
		MemoryContextReset(si->cxt);
	else
		si->cxt = AllocSetContextCreate(CacheMemoryContext, "ots search index", ALLOCSET_SMALL_SIZES);
	PG_TRY();
	{
		search_index_load(t, storage_oid, si);
	}
	PG_CATCH();
	{
		MemoryContextReset(si->cxt);
		PG_RE_THROW();
	}
	PG_END_TRY();
	si->base_data_oid = t->data_oid;
	si->valid = true;
	return si;
}

const SearchIndex *
search_index_named(const OtsTable *t, const char *index_name, LOCKMODE lockmode)
{
	for (int i = 0; i < t->nsearch; i++)
	{
		const SearchIndex *si = search_index_get(t, t->search_data_oids[i], lockmode);

		if (strcmp(si->index_name, index_name) == 0)
			return si;
	}
	return NULL;
}

bool
search_index_visible(const SearchIndex *si, Snapshot snapshot)
{
	/* as catalog_index_usable: the creating transaction's entries are in snapshot's rows */
	if (si->building)
		return false;
	return snapshot == NULL || !TransactionIdIsNormal(si->ready_xmin) ||
		TransactionIdIsCurrentTransactionId(si->ready_xmin) ||
		!XidInMVCCSnapshot(si->ready_xmin, snapshot);
}
