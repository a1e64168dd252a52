/*-------------------------------------------------------------------------
 * src/ddl/search_catalog.c
 *	  The only writers of ots.search_indexes: register a search index whose
 *	  storage the caller made, change its TTL, forget it.
 *
 * As with ots.tables (catalog_write.c), no role but its owner may write
 * ots.search_indexes; each function here requires that the caller own the
 * table, checks what it is handed as a load would (the schema read against
 * the table, the storage beside the table's and of its owner), runs one
 * schema-qualified statement as the owner of ots.search_indexes (asrole)
 * and makes every session reload the table.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "asrole.h"
#include "errors.h"
#include "meta/catalog.h"
#include "meta/storage.h"
#include "search/schema.h"
#include "search/search_index.h"

PG_FUNCTION_INFO_V1(ots_catalog_insert_search_index);
PG_FUNCTION_INFO_V1(ots_catalog_set_search_index_ttl);
PG_FUNCTION_INFO_V1(ots_catalog_delete_search_index);

/* search_catalog_table: the ots table of arguments 0 and 1, owned by the caller */
static const OtsTable *
search_catalog_table(FunctionCallInfo fcinfo)
{
	for (int i = 0; i < 3; i++)
		if (PG_ARGISNULL(i))
			ots_error(PARAMETER_INVALID, "Parameters of a search index must not be NULL.");
	return catalog_lookup_owned(NameStr(*PG_GETARG_NAME(0)), NameStr(*PG_GETARG_NAME(1)));
}

/* search_catalog_exec runs sql as the owner of ots.search_indexes; the rows it processed */
static uint64
search_catalog_exec(const char *sql, int nargs, Oid *types, Datum *values)
{
	AsRole		saved;
	int			ret;
	uint64		n;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	asrole_enter(asrole_catalog_owner(), &saved);
	ret = SPI_execute_with_args(sql, nargs, types, values, NULL, false, 0);
	asrole_leave(&saved);
	if (ret < 0)
		elog(ERROR, "ots.search_indexes statement failed: %s", SPI_result_code_string(ret));
	n = SPI_processed;
	SPI_finish();
	return n;
}

/*
 * ots_catalog_insert_search_index is ots.catalog_insert_search_index(
 * schema_name, table_name, index_name, index_schema, time_to_live):
 * registers the search index whose storage (named by SEARCH_STORAGE_INFIX)
 * the caller made, with the schema search_schema_check showed.
 */
Datum
ots_catalog_insert_search_index(PG_FUNCTION_ARGS)
{
	const OtsTable *t = search_catalog_table(fcinfo);
	const char *index_name = text_to_cstring(PG_GETARG_TEXT_PP(2));
	const char *storage = psprintf("%s%s%s", t->table_name, SEARCH_STORAGE_INFIX, index_name);
	Oid			storage_oid_;
	SearchSchema s;
	Oid			types[7] = {NAMEOID, NAMEOID, TEXTOID, NAMEOID, JSONBOID, INT8OID, TEXTOID};
	Datum		values[7];
	MemoryContext cxt;

	if (PG_ARGISNULL(3) || PG_ARGISNULL(4))
		ots_error(PARAMETER_INVALID, "Parameters of a search index must not be NULL.");
	storage_oid_ = get_relname_relid(storage, get_rel_namespace(t->data_oid));
	if (!OidIsValid(storage_oid_) || asrole_owner(storage_oid_) != asrole_owner(t->data_oid))
		ots_error(PARAMETER_INVALID, "The storage of a search index is missing or not the table owner's.");
	search_schema_read(PG_GETARG_JSONB_P(3), t, &s);
	values[0] = PG_GETARG_DATUM(0);
	values[1] = PG_GETARG_DATUM(1);
	values[2] = PG_GETARG_DATUM(2);
	values[3] = DirectFunctionCall1(namein, CStringGetDatum(storage));
	values[4] = JsonbPGetDatum(search_schema_jsonb(&s));
	values[5] = PG_GETARG_DATUM(4);
	cxt = CurrentMemoryContext;
	PG_TRY();
	{
		search_catalog_exec("INSERT INTO ots.search_indexes"
							" (schema_name, table_name, index_name, storage_name, index_schema, time_to_live)"
							" VALUES ($1, $2, $3, $4, $5, $6)", 6, types, values);
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		if (e->sqlerrcode != ERRCODE_UNIQUE_VIOLATION)
			PG_RE_THROW();
		FlushErrorState();
		ots_error(OBJECT_ALREADY_EXIST, "Requested search index already exists.");
	}
	PG_END_TRY();
	CacheInvalidateRelcacheByRelid(t->data_oid);
	PG_RETURN_VOID();
}

/* ots_catalog_set_search_index_ttl is ots.catalog_set_search_index_ttl(schema_name, table_name, index_name, time_to_live) */
Datum
ots_catalog_set_search_index_ttl(PG_FUNCTION_ARGS)
{
	const OtsTable *t = search_catalog_table(fcinfo);
	Oid			types[4] = {NAMEOID, NAMEOID, TEXTOID, INT8OID};
	Datum		values[4];

	if (PG_ARGISNULL(3))
		ots_error(PARAMETER_INVALID, "Parameters of a search index must not be NULL.");
	for (int i = 0; i < 4; i++)
		values[i] = PG_GETARG_DATUM(i);
	if (search_catalog_exec("UPDATE ots.search_indexes SET time_to_live = $4"
							" WHERE schema_name OPERATOR(pg_catalog.=) $1 AND table_name OPERATOR(pg_catalog.=) $2"
							" AND index_name OPERATOR(pg_catalog.=) $3", 4, types, values) != 1)
		ots_error(OBJECT_NOT_EXIST, "Requested search index does not exist.");
	CacheInvalidateRelcacheByRelid(t->data_oid);
	for (int i = 0; i < t->nsearch; i++)
		CacheInvalidateRelcacheByRelid(t->search_data_oids[i]);
	PG_RETURN_VOID();
}

/* ots_catalog_delete_search_index is ots.catalog_delete_search_index(schema_name, table_name, index_name) */
Datum
ots_catalog_delete_search_index(PG_FUNCTION_ARGS)
{
	const OtsTable *t = search_catalog_table(fcinfo);
	Oid			types[3] = {NAMEOID, NAMEOID, TEXTOID};
	Datum		values[3];

	for (int i = 0; i < 3; i++)
		values[i] = PG_GETARG_DATUM(i);
	if (search_catalog_exec("DELETE FROM ots.search_indexes"
							" WHERE schema_name OPERATOR(pg_catalog.=) $1 AND table_name OPERATOR(pg_catalog.=) $2"
							" AND index_name OPERATOR(pg_catalog.=) $3", 3, types, values) != 1)
		ots_error(OBJECT_NOT_EXIST, "Requested search index does not exist.");
	CacheInvalidateRelcacheByRelid(t->data_oid);
	PG_RETURN_VOID();
}
