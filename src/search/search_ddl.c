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
 * ots_search_backfill_batch is ots.search_backfill_batch(schema_name,
 * table_name, storage_name, leaf regclass, first_block, nblocks,
 * seen_filenode): a background build's batch (as ots.index_backfill_batch
 * for secondary indexes): the entries of the rows in blocks [first_block,
 * first_block + nblocks) of a leaf of the table, holding a SHARE lock on
 * the leaf until commit; returns the next block (NULL past the leaf's end)
 * and the leaf's file node.  A leaf rewritten since the batch that returned
 * seen_filenode (VACUUM FULL, CLUSTER) is read again from its first block.
 */
Datum
ots_search_backfill_batch(PG_FUNCTION_ARGS)
{
	const OtsTable *t = search_ddl_table(fcinfo);
	const SearchIndex *si = ddl_index(t, fcinfo);
	Oid			leaf_oid = PG_GETARG_OID(3);
	int64		first = PG_GETARG_INT64(4);
	int32		nblocks = PG_GETARG_INT32(5);
	Oid			filenode = PG_GETARG_OID(6);
	TupleDesc	result_desc;
	Datum		result[2];
	bool		result_null[2] = {false, false};
	Relation	leaf;
	BlockNumber last;

	rowstore_check_writable("ots.build_search_index");
	if (get_call_result_type(fcinfo, NULL, &result_desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "ots.search_backfill_batch must return a row");
	result_desc = BlessTupleDesc(result_desc);
	leaf = leaf_backfill_open(t, leaf_oid, &first, nblocks, filenode, &filenode, &last);
	result[1] = ObjectIdGetDatum(filenode);
	if (leaf == NULL)
		result_null[0] = true;
	else
	{
		(void) search_backfill_blocks(t, si, leaf, (BlockNumber) first, last);
		result[0] = Int64GetDatum(first + nblocks);
		table_close(leaf, NoLock);
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(result_desc, result, result_null)));
}
