/*-------------------------------------------------------------------------
 * src/search/search_ddl.c
 *	  The SQL functions create_search_index calls (src/sql/70_search.sql):
 *	  a schema checked and shown with its defaults, the storage a search
 *	  index is kept in, made, and the backfill of a new index.
 *
 * The storage is s."t$search$<index>" (SEARCH_STORAGE_INFIX): the table's
 * primary-key columns as its primary key, a column per field as
 * search_field_sql_type says, the entry's times (schema.h), and an index
 * per indexed field as
 * search_field_index_method says; made by the caller, who owns the table.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "errors.h"
#include "meta/storage.h"
#include "search/search_index.h"
#include "search/search_write.h"
#include "store/leaf.h"
#include "store/rowstore.h"

PG_FUNCTION_INFO_V1(ots_search_schema_check);
PG_FUNCTION_INFO_V1(ots_search_storage_create);
PG_FUNCTION_INFO_V1(ots_search_backfill);
PG_FUNCTION_INFO_V1(ots_search_backfill_batch);
PG_FUNCTION_INFO_V1(ots_search_storage_name);

/*
 * ots_search_storage_name is ots.search_storage_name(table_name,
 * index_name): the name of the relation a search index is kept in
 */
Datum
ots_search_storage_name(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(DirectFunctionCall1(namein, CStringGetDatum(search_storage_name(NameStr(*PG_GETARG_NAME(0)),
																				   text_to_cstring(PG_GETARG_TEXT_PP(1))))));
}

/* search_ddl_table: the ots table schema_name.table_name (arguments 0 and 1), which the caller owns */
static const OtsTable *
search_ddl_table(FunctionCallInfo fcinfo)
{
	return catalog_lookup_owned(NameStr(*PG_GETARG_NAME(0)), NameStr(*PG_GETARG_NAME(1)));
}

/*
 * ots_search_schema_check is ots.search_schema_check(schema_name,
 * table_name, index_schema): the schema with every default filled in, as
 * describe_search_index shows it; OTSParameterInvalid when Tablestore
 * would refuse it for that table.
 */
Datum
ots_search_schema_check(PG_FUNCTION_ARGS)
{
	const OtsTable *t = search_ddl_table(fcinfo);
	SearchSchema s;

	search_schema_read(PG_GETARG_JSONB_P(2), t, &s);
	PG_RETURN_JSONB_P(search_schema_jsonb(&s));
}

/*
 * ots_search_storage_create is ots.search_storage_create(schema_name,
 * table_name, storage_name, index_schema): makes the storage of a search
 * index with that (checked) schema, as the caller.
 */
Datum
ots_search_storage_create(PG_FUNCTION_ARGS)
{
	const OtsTable *t = search_ddl_table(fcinfo);
	const char *storage = NameStr(*PG_GETARG_NAME(2));
	const char *qualified = quote_qualified_identifier(t->schema_name, storage);
	SearchSchema s;
	StringInfoData sql;

	search_schema_read(PG_GETARG_JSONB_P(3), t, &s);
	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE TABLE %s (", qualified);
	for (int k = 0; k < t->npk; k++)
		appendStringInfo(&sql, "%s %s NOT NULL, ", quote_identifier(t->pk[k].name),
						 t->pk[k].type == OTS_VT_INTEGER ? "pg_catalog.int8" :
						 t->pk[k].type == OTS_VT_BINARY ? "pg_catalog.bytea" :
						 "pg_catalog.text COLLATE pg_catalog.\"C\"");
	for (int i = 0; i < s.nfields; i++)
	{
		const SearchField *f = &s.fields[i];

		if (!search_field_kept(f))
			continue;			/* the key's column, or none */
		appendStringInfo(&sql, "%s %s, ", quote_identifier(f->name), search_field_sql_type(f));
		if (f->type == SEARCH_TEXT)
			appendStringInfo(&sql, "%s pg_catalog.int4[], ",
							 quote_identifier(psprintf("%s%s", f->name, SEARCH_POSITIONS_SUFFIX)));
	}
	appendStringInfo(&sql, "%s pg_catalog.int8 NOT NULL, %s pg_catalog.int8[], %s pg_catalog.int8, ",
					 quote_identifier(SEARCH_ROW_TS_COLUMN), quote_identifier(SEARCH_TS_COLUMN),
					 quote_identifier(SEARCH_FIELDS_TS_COLUMN));
	/* the table's key columns, without a hash-prefixed table's "$hash" */
	appendStringInfoString(&sql, "PRIMARY KEY (");
	for (int k = 0; k < t->npk; k++)
		appendStringInfo(&sql, "%s%s", k > 0 ? ", " : "", quote_identifier(t->pk[k].name));
	appendStringInfoString(&sql, "))");
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(sql.data, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not create the storage of a search index");
	for (int i = 0; i < s.nfields; i++)
	{
		const SearchField *f = &s.fields[i];
		const char *method = search_field_index_method(f);

		/* the primary key's index serves its first column */
		if (method == NULL || f->pk_column == 1)
			continue;
		resetStringInfo(&sql);
		appendStringInfo(&sql, "CREATE INDEX ON %s USING %s (%s)", qualified, method, quote_identifier(f->name));
		if (SPI_execute(sql.data, false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "could not create an index of the storage of a search index");
	}
	SPI_finish();
	PG_RETURN_VOID();
}

/* ddl_index: the search index of t kept in storage_name (argument 2) */
static const SearchIndex *
ddl_index(const OtsTable *t, FunctionCallInfo fcinfo)
{
	Oid			storage = get_relname_relid(NameStr(*PG_GETARG_NAME(2)), get_rel_namespace(t->data_oid));

	/* one of the table's own search indexes (its catalog row names the storage: search_index_get) */
	for (int i = 0; i < t->nsearch; i++)
		if (OidIsValid(storage) && t->search_data_oids[i] == storage)
			return search_index_get(t, storage, RowExclusiveLock);
	ots_error(OBJECT_NOT_EXIST, "Requested search index does not exist.");
	return NULL;
}

/*
 * ots_search_backfill is ots.search_backfill(schema_name, table_name,
 * storage_name): writes the entries of the table's rows into the new
 * search index stored in storage_name, whose catalog row this transaction
 * wrote; the number of rows.
 */
Datum
ots_search_backfill(PG_FUNCTION_ARGS)
{
	const OtsTable *t = search_ddl_table(fcinfo);

	PG_RETURN_INT64(search_backfill(t, ddl_index(t, fcinfo)));
}

/*
 * ddl_storage_index: the search index kept in relation storage, of a table
 * the caller owns (*t), as the catalog says now; NULL when there is none
 * (deleted, its storage dropped)
 */
static const SearchIndex *
ddl_storage_index(Oid storage, const OtsTable **t)
{
	MemoryContext callercxt = CurrentMemoryContext;
	char	   *name = get_rel_name(storage);
	char	   *schema;
	char	   *table = NULL;
	Oid			types[2] = {NAMEOID, NAMEOID};
	Datum		values[2];

	if (name == NULL)
		return NULL;
	schema = get_namespace_name(get_rel_namespace(storage));
	values[0] = DirectFunctionCall1(namein, CStringGetDatum(schema));
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(name));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT table_name::pg_catalog.text FROM ots.search_indexes"
							  " WHERE schema_name OPERATOR(pg_catalog.=) $1 AND storage_name OPERATOR(pg_catalog.=) $2",
							  2, types, values, NULL, true, 1) == SPI_OK_SELECT && SPI_processed == 1)
		table = MemoryContextStrdup(callercxt, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
	SPI_finish();
	if (table == NULL)
		return NULL;
	*t = catalog_lookup_owned(schema, table);
	for (int i = 0; i < (*t)->nsearch; i++)
		if ((*t)->search_data_oids[i] == storage)
			return search_index_get(*t, storage, RowExclusiveLock);
	return NULL;
}

/*
 * ots_search_backfill_batch is ots.search_backfill_batch(storage, leaf,
 * first_block, nblocks, seen_filenode): a background build's batch (as
 * ots.index_backfill_batch for secondary indexes) for the search index kept
 * in storage: the entries of the rows in blocks [first_block, first_block +
 * nblocks) of leaf, a leaf of its table, holding a SHARE lock on the leaf
 * until commit; returns the next block (NULL past the leaf's end, or when
 * the index is gone) and the leaf's file node.  A leaf rewritten since the
 * batch that returned seen_filenode (VACUUM FULL, CLUSTER) is read again
 * from its first block.
 */
Datum
ots_search_backfill_batch(PG_FUNCTION_ARGS)
{
	Oid			storage = PG_GETARG_OID(0);
	Oid			leaf_oid = PG_GETARG_OID(1);
	int64		first = PG_GETARG_INT64(2);
	int32		nblocks = PG_GETARG_INT32(3);
	Oid			filenode = PG_GETARG_OID(4);
	const OtsTable *t = NULL;
	const SearchIndex *si;
	TupleDesc	result_desc;
	Datum		result[2];
	bool		result_null[2] = {true, false};
	Relation	leaf;
	BlockNumber last;

	rowstore_check_writable("ots.build_search_index");
	if (get_call_result_type(fcinfo, NULL, &result_desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "ots.search_backfill_batch must return a row");
	result_desc = BlessTupleDesc(result_desc);
	result[1] = ObjectIdGetDatum(InvalidOid);
	if (ddl_storage_index(storage, &t) == NULL)
		PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(result_desc, result, result_null)));
	leaf = leaf_backfill_open(t, leaf_oid, &first, nblocks, filenode, &filenode, &last);
	result[1] = ObjectIdGetDatum(filenode);
	/* a delete of the index (which locks the leaves first) may have committed while this waited */
	if (leaf != NULL && (si = ddl_storage_index(storage, &t)) != NULL)
	{
		(void) search_backfill_blocks(t, si, leaf, (BlockNumber) first, last);
		result[0] = Int64GetDatum(first + nblocks);
		result_null[0] = false;
	}
	if (leaf != NULL)
		table_close(leaf, NoLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(result_desc, result, result_null)));
}
