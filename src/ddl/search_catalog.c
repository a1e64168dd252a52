/*-------------------------------------------------------------------------
 * src/ddl/search_catalog.c
 *	  The only writers of ots.search_indexes: register a search index whose
 *	  storage the caller made, change its TTL, mark its build done, forget it.
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
#include "commands/comment.h"
#include "catalog/pg_class.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "asrole.h"
#include "errors.h"
#include "meta/catalog.h"
#include "meta/storage.h"
#include "ots_limits.h"
#include "search/schema.h"
#include "search/search_index.h"
#include "ddl/search_catalog.h"

PG_FUNCTION_INFO_V1(ots_catalog_insert_search_index);
PG_FUNCTION_INFO_V1(ots_catalog_set_search_index_ttl);
PG_FUNCTION_INFO_V1(ots_catalog_set_search_index_built);
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

/* search_catalog_check_ttl: a search index's TTL: -1, or OTS_MIN_SEARCH_TIME_TO_LIVE seconds and more */
static void
search_catalog_check_ttl(int64 ttl)
{
	if (ttl != -1 && (ttl < OTS_MIN_SEARCH_TIME_TO_LIVE || ttl > OTS_MAX_TIME_TO_LIVE))
		ots_error(PARAMETER_INVALID, "Invalid time_to_live: " INT64_FORMAT ".", ttl);
}

/*
 * search_catalog_exec runs sql as the owner of ots.search_indexes; the rows
 * it processed, and in *first (unless NULL) the int8 its first row returned
 */
static uint64
search_catalog_exec(const char *sql, int nargs, Oid *types, Datum *values, int64 *first)
{
	AsRole		saved;
	int			ret;
	uint64		n;
	bool		isnull;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	asrole_enter(asrole_catalog_owner(), &saved);
	ret = SPI_execute_with_args(sql, nargs, types, values, NULL, false, 0);
	asrole_leave(&saved);
	if (ret < 0)
		elog(ERROR, "ots.search_indexes statement failed: %s", SPI_result_code_string(ret));
	n = SPI_processed;
	if (first != NULL && n > 0)
		*first = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	return n;
}

/* the line of a search index storage's comment that carries its definition */
#define SEARCH_CARRIER_LINE "\nots search definition: "

/*
 * search_catalog_carry makes the comment of a search index's storage carry
 * its definition (table_name, index_name, index_schema, time_to_live, and
 * sync_phase FULL while it is built in the background), so
 * that a dump of the storage registers the index again as the restore
 * writes it (search_catalog_comment).  Written directly, as a COMMENT
 * would, in the writing transaction.
 */
static void
search_catalog_carry(const OtsTable *t, Oid storage, const char *index_name, Jsonb *schema, int64 ttl,
					 bool building)
{
	JsonbParseState *st = NULL;
	JsonbValue	k;
	JsonbValue	v;
	Jsonb	   *def;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	k.type = v.type = jbvString;
	k.val.string.val = "table_name", k.val.string.len = strlen("table_name");
	v.val.string.val = (char *) t->table_name, v.val.string.len = strlen(t->table_name);
	pushJsonbValue(&st, WJB_KEY, &k);
	pushJsonbValue(&st, WJB_VALUE, &v);
	k.val.string.val = "index_name", k.val.string.len = strlen("index_name");
	v.val.string.val = (char *) index_name, v.val.string.len = strlen(index_name);
	pushJsonbValue(&st, WJB_KEY, &k);
	pushJsonbValue(&st, WJB_VALUE, &v);
	k.val.string.val = "index_schema", k.val.string.len = strlen("index_schema");
	pushJsonbValue(&st, WJB_KEY, &k);
	v.type = jbvBinary, v.val.binary.data = &schema->root, v.val.binary.len = VARSIZE(schema) - VARHDRSZ;
	pushJsonbValue(&st, WJB_VALUE, &v);
	k.val.string.val = "time_to_live", k.val.string.len = strlen("time_to_live");
	pushJsonbValue(&st, WJB_KEY, &k);
	v.type = jbvNumeric, v.val.numeric = int64_to_numeric(ttl);
	pushJsonbValue(&st, WJB_VALUE, &v);
	if (building)
	{
		/* a dump taken while it builds restores it building: its storage has part of the rows */
		k.val.string.val = "sync_phase", k.val.string.len = strlen("sync_phase");
		pushJsonbValue(&st, WJB_KEY, &k);
		v.type = jbvString, v.val.string.val = "FULL", v.val.string.len = 4;
		pushJsonbValue(&st, WJB_VALUE, &v);
	}
	def = JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
	CreateComments(storage, RelationRelationId, 0,
				   psprintf("search index %s of ots table %s; kept by ots" SEARCH_CARRIER_LINE "%s",
							quote_identifier(index_name),
							quote_qualified_identifier(t->schema_name, t->table_name),
							JsonbToCString(NULL, &def->root, VARSIZE(def))));
}

/*
 * search_catalog_register registers search index index_name of t, kept in
 * its storage beside t's (of t's owner), with schema (checked again, as a
 * load would) and ttl, in sync phase FULL when building (a background build
 * fills it: index_build.c), and makes the storage carry it
 */
static void
search_catalog_register(const OtsTable *t, const char *index_name, Jsonb *schema, int64 ttl, bool building)
{
	const char *storage = search_storage_name(t->table_name, index_name);
	Oid			storage_relid = get_relname_relid(storage, get_rel_namespace(t->data_oid));
	SearchSchema s;
	Jsonb	   *shown;
	Oid			types[7] = {NAMEOID, NAMEOID, TEXTOID, NAMEOID, JSONBOID, INT8OID, TEXTOID};
	Datum		values[7];
	MemoryContext cxt;

	if (!OidIsValid(storage_relid) || get_rel_relkind(storage_relid) != RELKIND_RELATION ||
		asrole_owner(storage_relid) != asrole_owner(t->data_oid))
		ots_error(PARAMETER_INVALID, "The storage of a search index is missing or not the table owner's.");
	search_schema_read(schema, t, &s);
	shown = search_schema_jsonb(&s);
	search_catalog_check_ttl(ttl);
	/* a table loads with at most that many (catalog_load.c) */
	if (t->nsearch >= OTS_MAX_SEARCH_INDEXES)
		ots_error(PARAMETER_INVALID, "Number of search index per table exceeds the quota:%d.", OTS_MAX_SEARCH_INDEXES);
	values[0] = DirectFunctionCall1(namein, CStringGetDatum(t->schema_name));
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(t->table_name));
	values[2] = CStringGetTextDatum(index_name);
	values[3] = DirectFunctionCall1(namein, CStringGetDatum(storage));
	values[4] = JsonbPGetDatum(shown);
	values[5] = Int64GetDatum(ttl);
	values[6] = CStringGetTextDatum(building ? "FULL" : "INCR");
	cxt = CurrentMemoryContext;
	PG_TRY();
	{
		search_catalog_exec("INSERT INTO ots.search_indexes"
							" (schema_name, table_name, index_name, storage_name, index_schema, time_to_live, sync_phase)"
							" VALUES ($1, $2, $3, $4, $5, $6, $7)", 7, types, values, NULL);
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
	search_catalog_carry(t, storage_relid, index_name, shown, ttl, building);
	CacheInvalidateRelcacheByRelid(t->data_oid);
}

/*
 * ots_catalog_insert_search_index is ots.catalog_insert_search_index(
 * schema_name, table_name, index_name, index_schema, time_to_live,
 * building): registers the search index whose storage
 * (search_storage_name) the caller made, with the schema
 * search_schema_check showed, to be filled by a background build when
 * building.
 */
Datum
ots_catalog_insert_search_index(PG_FUNCTION_ARGS)
{
	const OtsTable *t = search_catalog_table(fcinfo);

	if (PG_ARGISNULL(3) || PG_ARGISNULL(4) || PG_ARGISNULL(5))
		ots_error(PARAMETER_INVALID, "Parameters of a search index must not be NULL.");
	search_catalog_register(t, text_to_cstring(PG_GETARG_TEXT_PP(2)), PG_GETARG_JSONB_P(3), PG_GETARG_INT64(4),
							PG_GETARG_BOOL(5));
	PG_RETURN_VOID();
}

/*
 * search_catalog_comment: a COMMENT ON TABLE of relation relid, whose name
 * is a search index storage's (ddl_guard.c).  On a registered storage only
 * the comment it has may be given again (it carries the index's
 * definition); a comment carrying a definition registers the index of an
 * unregistered storage of its table's owner, as a restore writes it.
 */
void
search_catalog_comment(Oid relid, const char *comment)
{
	const char *carried = comment != NULL ? strstr(comment, SEARCH_CARRIER_LINE) : NULL;
	char	   *current = GetComment(relid, RelationRelationId, 0);
	char	   *name = get_rel_name(relid);
	Oid			nsp = get_rel_namespace(relid);
	Jsonb	   *def;
	JsonbValue	v;
	const char *table;
	const char *index_name;
	const OtsTable *t;
	OtsTable	registered;

	if (current != NULL && strstr(current, SEARCH_CARRIER_LINE) != NULL)
	{
		if (comment != NULL && strcmp(current, comment) == 0)
			return;
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot change the comment of the storage of a search index, %s",
						quote_qualified_identifier(get_namespace_name(nsp), name)),
				 errdetail("Its comment carries the search index's definition, which a restore of the storage registers the index with.")));
	}
	if (carried == NULL)
		return;
	def = search_json_parse(carried + strlen(SEARCH_CARRIER_LINE), strlen(carried + strlen(SEARCH_CARRIER_LINE)));
	if (def == NULL || !JB_ROOT_IS_OBJECT(def) ||
		getKeyJsonValueFromContainer(&def->root, "table_name", 10, &v) == NULL || v.type != jbvString ||
		(table = pnstrdup(v.val.string.val, v.val.string.len)) == NULL ||
		getKeyJsonValueFromContainer(&def->root, "index_name", 10, &v) == NULL || v.type != jbvString ||
		(index_name = pnstrdup(v.val.string.val, v.val.string.len)) == NULL ||
		strcmp(search_storage_name(table, index_name), name) != 0 ||
		getKeyJsonValueFromContainer(&def->root, "time_to_live", 12, &v) == NULL || v.type != jbvNumeric)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the comment of %s does not carry the definition of a search index kept there",
						quote_qualified_identifier(get_namespace_name(nsp), name))));
	if (!catalog_owns(relid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s", quote_qualified_identifier(get_namespace_name(nsp), name))));
	/* the table as ots.tables registers it: a restore makes its view later */
	t = catalog_read_registered(get_namespace_name(nsp), table, &registered) ? &registered : NULL;
	if (t == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("search index %s of ots table %s cannot be registered before its table",
						quote_identifier(index_name), quote_qualified_identifier(get_namespace_name(nsp), table)),
				 errhint("Restore the table's storage table \"%s%s\" first.", table, STORAGE_SUFFIX)));
	{
		JsonbValue	ttl = v;
		JsonbValue	schema;
		JsonbValue	phase;
		bool		building;

		if (getKeyJsonValueFromContainer(&def->root, "index_schema", 12, &schema) == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the comment of %s does not carry the definition of a search index kept there",
							quote_qualified_identifier(get_namespace_name(nsp), name))));
		/* restored building (a dump taken during a background build): the entries dumped, and a build to come */
		building = getKeyJsonValueFromContainer(&def->root, "sync_phase", 10, &phase) != NULL &&
			phase.type == jbvString && phase.val.string.len == 4 && memcmp(phase.val.string.val, "FULL", 4) == 0;
		search_catalog_register(t, index_name, JsonbValueToJsonb(&schema),
								DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(ttl.val.numeric))),
								building);
	}
}

/* ots_catalog_set_search_index_ttl is ots.catalog_set_search_index_ttl(schema_name, table_name, index_name, time_to_live) */
Datum
ots_catalog_set_search_index_ttl(PG_FUNCTION_ARGS)
{
	const OtsTable *t = search_catalog_table(fcinfo);
	Oid			types[4] = {NAMEOID, NAMEOID, TEXTOID, INT8OID};
	Datum		values[4];
	int64		building = 0;

	if (PG_ARGISNULL(3))
		ots_error(PARAMETER_INVALID, "Parameters of a search index must not be NULL.");
	search_catalog_check_ttl(PG_GETARG_INT64(3));
	for (int i = 0; i < 4; i++)
		values[i] = PG_GETARG_DATUM(i);
	/* the phase as the row has it now (a build may have ended since the cache was filled) */
	if (search_catalog_exec("UPDATE ots.search_indexes SET time_to_live = $4"
							" WHERE schema_name OPERATOR(pg_catalog.=) $1 AND table_name OPERATOR(pg_catalog.=) $2"
							" AND index_name OPERATOR(pg_catalog.=) $3"
							" RETURNING (sync_phase OPERATOR(pg_catalog.=) 'FULL')::pg_catalog.int4::pg_catalog.int8",
							4, types, values, &building) != 1)
		ots_error(OBJECT_NOT_EXIST, "Requested search index does not exist.");
	for (int i = 0; i < t->nsearch; i++)
	{
		const SearchIndex *si = search_index_get(t, t->search_data_oids[i], AccessShareLock);

		if (strcmp(si->index_name, text_to_cstring(PG_GETARG_TEXT_PP(2))) == 0)
			search_catalog_carry(t, si->storage_oid, si->index_name, search_schema_jsonb(&si->schema),
								 PG_GETARG_INT64(3), building != 0);
	}
	CacheInvalidateRelcacheByRelid(t->data_oid);
	for (int i = 0; i < t->nsearch; i++)
		CacheInvalidateRelcacheByRelid(t->search_data_oids[i]);
	PG_RETURN_VOID();
}

/*
 * ots_catalog_set_search_index_built is ots.catalog_set_search_index_built(
 * schema_name, table_name, index_name): a search index built in the
 * background is complete (sync phase INCR); false when it already was
 */
Datum
ots_catalog_set_search_index_built(PG_FUNCTION_ARGS)
{
	const OtsTable *t = search_catalog_table(fcinfo);
	Oid			types[3] = {NAMEOID, NAMEOID, TEXTOID};
	Datum		values[3];
	char	   *index_name = text_to_cstring(PG_GETARG_TEXT_PP(2));
	int64		ttl = -1;

	for (int i = 0; i < 3; i++)
		values[i] = PG_GETARG_DATUM(i);
	/* the TTL as the row has it now (update_search_index may have changed it since the cache was filled) */
	if (search_catalog_exec("UPDATE ots.search_indexes SET sync_phase = 'INCR'"
							" WHERE schema_name OPERATOR(pg_catalog.=) $1 AND table_name OPERATOR(pg_catalog.=) $2"
							" AND index_name OPERATOR(pg_catalog.=) $3"
							" AND sync_phase OPERATOR(pg_catalog.=) 'FULL' RETURNING time_to_live",
							3, types, values, &ttl) != 1)
		PG_RETURN_BOOL(false);
	for (int i = 0; i < t->nsearch; i++)
	{
		const SearchIndex *si = search_index_get(t, t->search_data_oids[i], AccessShareLock);

		if (strcmp(si->index_name, index_name) == 0)
		{
			search_catalog_carry(t, si->storage_oid, si->index_name, search_schema_jsonb(&si->schema),
								 ttl, false);
			CacheInvalidateRelcacheByRelid(si->storage_oid);
		}
	}
	CacheInvalidateRelcacheByRelid(t->data_oid);
	PG_RETURN_BOOL(true);
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
							" AND index_name OPERATOR(pg_catalog.=) $3", 3, types, values, NULL) != 1)
		ots_error(OBJECT_NOT_EXIST, "Requested search index does not exist.");
	CacheInvalidateRelcacheByRelid(t->data_oid);
	PG_RETURN_VOID();
}
