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

#include <math.h>

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "commands/comment.h"
#include "commands/tablecmds.h"
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
PG_FUNCTION_INFO_V1(ots_catalog_set_search_index_flow);
PG_FUNCTION_INFO_V1(ots_catalog_switch_search_index);
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
 * search_catalog_exec runs sql (nulls as SPI takes them, NULL: none) as the
 * owner of ots.search_indexes; the rows it processed, and in *first (unless
 * NULL) the int8 its first row returned
 */
static uint64
search_catalog_exec(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls, int64 *first)
{
	AsRole		saved;
	int			ret;
	uint64		n;
	bool		isnull;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	asrole_enter(asrole_catalog_owner(), &saved);
	ret = SPI_execute_with_args(sql, nargs, types, values, nulls, false, 0);
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
 * search_catalog_carry makes the comment of search index storage carry the
 * index's definition as its catalog row has it now (table_name,
 * index_name, index_schema, time_to_live, and while set sync_phase FULL, a
 * background build's, brother_index_name and query_flow_weights), so that
 * a dump of the storage registers the index again as the restore writes it
 * (search_catalog_comment).  Written directly, as a COMMENT would, in the
 * writing transaction.
 */
static void
search_catalog_carry(const OtsTable *t, Oid storage)
{
	Oid			types[3] = {NAMEOID, NAMEOID, NAMEOID};
	Datum		values[3];
	AsRole		saved;
	char	   *index_name = NULL;
	char	   *def = NULL;
	MemoryContext callercxt = CurrentMemoryContext;

	values[0] = DirectFunctionCall1(namein, CStringGetDatum(t->schema_name));
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(t->table_name));
	values[2] = DirectFunctionCall1(namein, CStringGetDatum(get_rel_name(storage)));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	asrole_enter(asrole_catalog_owner(), &saved);
	if (SPI_execute_with_args("SELECT s.index_name, (pg_catalog.jsonb_build_object('table_name', s.table_name,"
							  " 'index_name', s.index_name, 'index_schema', s.index_schema, 'time_to_live', s.time_to_live)"
							  " OPERATOR(pg_catalog.||) CASE WHEN s.sync_phase OPERATOR(pg_catalog.=) 'FULL'"
							  " THEN pg_catalog.jsonb_build_object('sync_phase', s.sync_phase) ELSE '{}' END"
							  " OPERATOR(pg_catalog.||) CASE WHEN s.brother_index_name IS NOT NULL"
							  " THEN pg_catalog.jsonb_build_object('brother_index_name', s.brother_index_name) ELSE '{}' END"
							  " OPERATOR(pg_catalog.||) CASE WHEN s.query_flow_weights IS NOT NULL"
							  " THEN pg_catalog.jsonb_build_object('query_flow_weights', s.query_flow_weights) ELSE '{}' END)::pg_catalog.text"
							  " FROM ots.search_indexes s WHERE s.schema_name OPERATOR(pg_catalog.=) $1"
							  " AND s.table_name OPERATOR(pg_catalog.=) $2 AND s.storage_name OPERATOR(pg_catalog.=) $3",
							  3, types, values, NULL, false, 1) == SPI_OK_SELECT && SPI_processed == 1)
	{
		index_name = MemoryContextStrdup(callercxt, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
		def = MemoryContextStrdup(callercxt, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2));
	}
	asrole_leave(&saved);
	SPI_finish();
	if (def == NULL)
		elog(ERROR, "search index storage %u has no catalog row to carry", storage);
	CreateComments(storage, RelationRelationId, 0,
				   psprintf("search index %s of ots table %s; kept by ots" SEARCH_CARRIER_LINE "%s",
							quote_identifier(index_name),
							quote_qualified_identifier(t->schema_name, t->table_name), def));
}

static Jsonb *search_catalog_weights(Jsonb *given, char **names, int *weights);

/* search_catalog_storage: the storage of search index index_name of t, as its catalog row names it; InvalidOid without one */
static Oid
search_catalog_storage(const OtsTable *t, const char *index_name)
{
	const SearchIndex *si = search_index_named(t, index_name, AccessShareLock);

	return si != NULL ? si->storage_oid : InvalidOid;
}

/*
 * search_catalog_register registers search index index_name of t, kept in
 * its storage beside t's (of t's owner), with schema (checked again, as a
 * load would) and ttl, in sync phase FULL when building (a background build
 * fills it: index_build.c), with brother and weights as a restore carries
 * them, and makes the storage carry it.  made_from: brother is the index it
 * is made from (create_search_index's source_index_name), which gets it as
 * its brother.
 */
static void
search_catalog_register(const OtsTable *t, const char *index_name, Jsonb *schema, int64 ttl, bool building,
						const char *brother, Jsonb *weights, bool made_from)
{
	const char *storage = search_storage_name(t->table_name, index_name);
	Oid			storage_relid = get_relname_relid(storage, get_rel_namespace(t->data_oid));
	SearchSchema s;
	Jsonb	   *shown;
	Oid			types[9] = {NAMEOID, NAMEOID, TEXTOID, NAMEOID, JSONBOID, INT8OID, TEXTOID, TEXTOID, JSONBOID};
	Datum		values[9];
	char		nulls[10] = "         ";
	MemoryContext cxt;
	Oid			brother_storage = InvalidOid;

	if (!OidIsValid(storage_relid) || get_rel_relkind(storage_relid) != RELKIND_RELATION ||
		asrole_owner(storage_relid) != asrole_owner(t->data_oid))
		ots_error(PARAMETER_INVALID, "The storage of a search index is missing or not the table owner's.");
	search_schema_read(schema, t, &s);
	shown = search_schema_jsonb(&s);
	search_catalog_check_ttl(ttl);
	/* a table loads with at most that many (catalog_load.c) */
	if (t->nsearch >= OTS_MAX_SEARCH_INDEXES)
		ots_error(PARAMETER_INVALID, "Number of search index per table exceeds the quota:%d.", OTS_MAX_SEARCH_INDEXES);
	if (made_from)
	{
		size_t		len = strlen(index_name);
		Oid			key_types[3] = {NAMEOID, NAMEOID, TEXTOID};
		Datum		key[3];
		int64		found = 0;

		/* Tablestore's rule (the Go SDK's test says so): the new index's name ends with _reindex */
		if (len < strlen("_reindex") || strcmp(index_name + len - strlen("_reindex"), "_reindex") != 0)
			ots_parameter_invalid(psprintf("The name of search index [%s] made from [%s] does not end with _reindex.",
										   index_name, brother),
								  "An index made from another (source_index_name) to change its schema is named <name>_reindex.");
		brother_storage = search_catalog_storage(t, brother);
		if (!OidIsValid(brother_storage))
			ots_error(OBJECT_NOT_EXIST, "search index [%s] does not exist", brother);
		key[0] = DirectFunctionCall1(namein, CStringGetDatum(t->schema_name));
		key[1] = DirectFunctionCall1(namein, CStringGetDatum(t->table_name));
		key[2] = CStringGetTextDatum(brother);
		/* one index made from another at a time, and from one that was made from none */
		if (search_catalog_exec("SELECT 1::pg_catalog.int8 FROM ots.search_indexes"
								" WHERE schema_name OPERATOR(pg_catalog.=) $1 AND table_name OPERATOR(pg_catalog.=) $2"
								" AND index_name OPERATOR(pg_catalog.=) $3 AND brother_index_name IS NULL FOR UPDATE",
								3, key_types, key, NULL, &found) != 1)
			ots_parameter_invalid(psprintf("Search index [%s] has an index made from it, or was made from one, already.", brother),
								  "Switch to it (update_search_index's switch_index_name) or delete it first.");
	}
	values[0] = DirectFunctionCall1(namein, CStringGetDatum(t->schema_name));
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(t->table_name));
	values[2] = CStringGetTextDatum(index_name);
	values[3] = DirectFunctionCall1(namein, CStringGetDatum(storage));
	values[4] = JsonbPGetDatum(shown);
	values[5] = Int64GetDatum(ttl);
	values[6] = CStringGetTextDatum(building ? "FULL" : "INCR");
	values[7] = brother != NULL ? CStringGetTextDatum(brother) : (Datum) 0;
	nulls[7] = brother != NULL ? ' ' : 'n';
	values[8] = weights != NULL ? JsonbPGetDatum(weights) : (Datum) 0;
	nulls[8] = weights != NULL ? ' ' : 'n';
	cxt = CurrentMemoryContext;
	PG_TRY();
	{
		search_catalog_exec("INSERT INTO ots.search_indexes"
							" (schema_name, table_name, index_name, storage_name, index_schema, time_to_live, sync_phase,"
							" brother_index_name, query_flow_weights)"
							" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)", 9, types, values, nulls, NULL);
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
	search_catalog_carry(t, storage_relid);
	/*
	 * an index that names this one as its brother but is not its brother
	 * (a dangling name: its brother was dropped, or restored without it)
	 * has none now
	 */
	for (int i = 0; i < t->nsearch; i++)
	{
		const SearchIndex *other = search_index_get(t, t->search_data_oids[i], AccessShareLock);

		if (other->brother != NULL && strcmp(other->brother, index_name) == 0 &&
			(brother == NULL || strcmp(other->index_name, brother) != 0))
		{
			Oid			key_types[3] = {NAMEOID, NAMEOID, TEXTOID};
			Datum		key[3] = {values[0], values[1], CStringGetTextDatum(other->index_name)};
			Oid			other_storage = other->storage_oid;

			search_catalog_exec("UPDATE ots.search_indexes SET brother_index_name = NULL, query_flow_weights = NULL"
								" WHERE schema_name OPERATOR(pg_catalog.=) $1 AND table_name OPERATOR(pg_catalog.=) $2"
								" AND index_name OPERATOR(pg_catalog.=) $3", 3, key_types, key, NULL, NULL);
			search_catalog_carry(t, other_storage);
			CacheInvalidateRelcacheByRelid(other_storage);
		}
	}
	if (made_from)
	{
		values[2] = CStringGetTextDatum(brother);
		values[3] = CStringGetTextDatum(index_name);
		types[3] = TEXTOID;
		search_catalog_exec("UPDATE ots.search_indexes SET brother_index_name = $4"
							" WHERE schema_name OPERATOR(pg_catalog.=) $1 AND table_name OPERATOR(pg_catalog.=) $2"
							" AND index_name OPERATOR(pg_catalog.=) $3", 4, types, values, NULL, NULL);
		search_catalog_carry(t, brother_storage);
		CacheInvalidateRelcacheByRelid(brother_storage);
	}
	CacheInvalidateRelcacheByRelid(t->data_oid);
}

/*
 * ots_catalog_insert_search_index is ots.catalog_insert_search_index(
 * schema_name, table_name, index_name, index_schema, time_to_live,
 * building, source_index_name): registers the search index whose storage
 * (search_storage_name) the caller made, with the schema
 * search_schema_check showed, to be filled by a background build when
 * building, made from source_index_name (its brother from then on) unless
 * that is NULL.
 */
Datum
ots_catalog_insert_search_index(PG_FUNCTION_ARGS)
{
	const OtsTable *t = search_catalog_table(fcinfo);

	if (PG_ARGISNULL(3) || PG_ARGISNULL(4) || PG_ARGISNULL(5))
		ots_error(PARAMETER_INVALID, "Parameters of a search index must not be NULL.");
	search_catalog_register(t, text_to_cstring(PG_GETARG_TEXT_PP(2)), PG_GETARG_JSONB_P(3), PG_GETARG_INT64(4),
							PG_GETARG_BOOL(5), PG_ARGISNULL(6) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(6)),
							NULL, !PG_ARGISNULL(6));
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
		JsonbValue	brother;
		JsonbValue	weights;
		char	   *names[2];
		int			shares[2];
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
								building,
								getKeyJsonValueFromContainer(&def->root, "brother_index_name", 18, &brother) != NULL &&
								brother.type == jbvString ? pnstrdup(brother.val.string.val, brother.val.string.len) : NULL,
								getKeyJsonValueFromContainer(&def->root, "query_flow_weights", 18, &weights) != NULL &&
								weights.type == jbvBinary ?
								search_catalog_weights(JsonbValueToJsonb(&weights), names, shares) : NULL, false);
	}
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
	search_catalog_check_ttl(PG_GETARG_INT64(3));
	for (int i = 0; i < 4; i++)
		values[i] = PG_GETARG_DATUM(i);
	if (search_catalog_exec("UPDATE ots.search_indexes SET time_to_live = $4"
							" WHERE schema_name OPERATOR(pg_catalog.=) $1 AND table_name OPERATOR(pg_catalog.=) $2"
							" AND index_name OPERATOR(pg_catalog.=) $3", 4, types, values, NULL, NULL) != 1)
		ots_error(OBJECT_NOT_EXIST, "Requested search index does not exist.");
	search_catalog_carry(t, search_catalog_storage(t, text_to_cstring(PG_GETARG_TEXT_PP(2))));
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
	Oid			storage;

	for (int i = 0; i < 3; i++)
		values[i] = PG_GETARG_DATUM(i);
	if (search_catalog_exec("UPDATE ots.search_indexes SET sync_phase = 'INCR'"
							" WHERE schema_name OPERATOR(pg_catalog.=) $1 AND table_name OPERATOR(pg_catalog.=) $2"
							" AND index_name OPERATOR(pg_catalog.=) $3"
							" AND sync_phase OPERATOR(pg_catalog.=) 'FULL'", 3, types, values, NULL, NULL) != 1)
		PG_RETURN_BOOL(false);
	storage = search_catalog_storage(t, index_name);
	search_catalog_carry(t, storage);
	CacheInvalidateRelcacheByRelid(storage);
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
	char	   *index_name = text_to_cstring(PG_GETARG_TEXT_PP(2));
	Oid			brother = InvalidOid;

	/* its brother, found while both have their catalog rows */
	for (int i = 0; i < t->nsearch; i++)
	{
		const SearchIndex *si = search_index_get(t, t->search_data_oids[i], AccessShareLock);

		if (si->brother != NULL && strcmp(si->brother, index_name) == 0)
			brother = si->storage_oid;
	}
	for (int i = 0; i < 3; i++)
		values[i] = PG_GETARG_DATUM(i);
	if (search_catalog_exec("DELETE FROM ots.search_indexes"
							" WHERE schema_name OPERATOR(pg_catalog.=) $1 AND table_name OPERATOR(pg_catalog.=) $2"
							" AND index_name OPERATOR(pg_catalog.=) $3", 3, types, values, NULL, NULL) != 1)
		ots_error(OBJECT_NOT_EXIST, "Requested search index does not exist.");
	/* its brother has none now, nor searches going to it */
	if (OidIsValid(brother))
	{
		search_catalog_exec("UPDATE ots.search_indexes SET brother_index_name = NULL, query_flow_weights = NULL"
							" WHERE schema_name OPERATOR(pg_catalog.=) $1 AND table_name OPERATOR(pg_catalog.=) $2"
							" AND brother_index_name OPERATOR(pg_catalog.=) $3", 3, types, values, NULL, NULL);
		search_catalog_carry(t, brother);
		CacheInvalidateRelcacheByRelid(brother);
	}
	CacheInvalidateRelcacheByRelid(t->data_oid);
	PG_RETURN_VOID();
}

/* search_catalog_brother: search index index_name of t, refused unless brother is its brother */
static const SearchIndex *
search_catalog_brother(const OtsTable *t, const char *index_name, const char *brother, const char *what)
{
	const SearchIndex *si = search_index_named(t, index_name, AccessShareLock);

	if (si == NULL)
		ots_error(OBJECT_NOT_EXIST, "search index [%s] does not exist", index_name);
	if (si->brother == NULL || strcmp(si->brother, brother) != 0)
		ots_parameter_invalid(psprintf("Search index [%s] is no brother of [%s]: %s names the index made from it, or the one it was made from.",
									   brother, index_name, what),
							  si->brother != NULL ? psprintf("Its brother is [%s].", si->brother) :
							  "It has none: make one with create_search_index's source_index_name.");
	return si;
}

/*
 * search_catalog_weights: query_flow_weights as the catalog keeps them,
 * [{"index_name", "weight"} twice, whole weights 0 to 100, not both 0],
 * rebuilt from given (names[] and weights[] set); NULL when given is not so
 */
static Jsonb *
search_catalog_weights(Jsonb *given, char **names, int *weights)
{
	JsonbParseState *st = NULL;
	JsonbValue	k;
	JsonbValue	v;

	if (!JB_ROOT_IS_ARRAY(given) || JB_ROOT_IS_SCALAR(given) || JB_ROOT_COUNT(given) != 2)
		return NULL;
	for (int i = 0; i < 2; i++)
	{
		JsonbValue *w = getIthJsonbValueFromContainer(&given->root, i);
		JsonbValue	name;
		JsonbValue	weight;
		double		d;

		if (w->type != jbvBinary || !JsonContainerIsObject(w->val.binary.data) ||
			getKeyJsonValueFromContainer(w->val.binary.data, "index_name", 10, &name) == NULL || name.type != jbvString ||
			getKeyJsonValueFromContainer(w->val.binary.data, "weight", 6, &weight) == NULL || weight.type != jbvNumeric)
			return NULL;
		d = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, NumericGetDatum(weight.val.numeric)));
		if (!(d >= 0 && d <= 100) || d != floor(d))
			return NULL;
		names[i] = pnstrdup(name.val.string.val, name.val.string.len);
		weights[i] = (int) d;
	}
	if (weights[0] + weights[1] == 0 || strcmp(names[0], names[1]) == 0)
		return NULL;
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < 2; i++)
	{
		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		k.type = v.type = jbvString;
		k.val.string.val = "index_name", k.val.string.len = strlen("index_name");
		v.val.string.val = names[i], v.val.string.len = strlen(names[i]);
		pushJsonbValue(&st, WJB_KEY, &k);
		pushJsonbValue(&st, WJB_VALUE, &v);
		k.val.string.val = "weight", k.val.string.len = strlen("weight");
		v.type = jbvNumeric, v.val.numeric = int64_to_numeric(weights[i]);
		pushJsonbValue(&st, WJB_KEY, &k);
		pushJsonbValue(&st, WJB_VALUE, &v);
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	}
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL));
}

/*
 * ots_catalog_set_search_index_flow is ots.catalog_set_search_index_flow(
 * schema_name, table_name, index_name, query_flow_weights): the searches of
 * the index go to it and to its brother by weight, [{"index_name", "weight"}
 * of each, 0 to 100, not both 0]
 */
Datum
ots_catalog_set_search_index_flow(PG_FUNCTION_ARGS)
{
	const OtsTable *t = search_catalog_table(fcinfo);
	char	   *index_name = text_to_cstring(PG_GETARG_TEXT_PP(2));
	char	   *names[2];
	int			weights[2];
	Jsonb	   *kept;
	const SearchIndex *si;
	Oid			types[4] = {NAMEOID, NAMEOID, TEXTOID, JSONBOID};
	Datum		values[4];
	const char *shape = "query_flow_weights is [{\"index_name\": <the index>, \"weight\": 0-100}, {\"index_name\": <its brother>, \"weight\": 0-100}], whole numbers, not both 0.";

	if (PG_ARGISNULL(3))
		ots_error(PARAMETER_INVALID, "Parameters of a search index must not be NULL.");
	if ((kept = search_catalog_weights(PG_GETARG_JSONB_P(3), names, weights)) == NULL)
		ots_parameter_invalid("Invalid query_flow_weights: the index's and its brother's.", shape);
	/* the index and its brother, in either order */
	si = search_catalog_brother(t, index_name, strcmp(names[0], index_name) == 0 ? names[1] : names[0],
								"query_flow_weights");
	if (strcmp(names[0], index_name) != 0 && strcmp(names[1], index_name) != 0)
		ots_parameter_invalid("Invalid query_flow_weights: the index's and its brother's.", shape);
	values[0] = PG_GETARG_DATUM(0);
	values[1] = PG_GETARG_DATUM(1);
	values[2] = PG_GETARG_DATUM(2);
	values[3] = JsonbPGetDatum(kept);
	search_catalog_exec("UPDATE ots.search_indexes SET query_flow_weights = $4"
						" WHERE schema_name OPERATOR(pg_catalog.=) $1 AND table_name OPERATOR(pg_catalog.=) $2"
						" AND index_name OPERATOR(pg_catalog.=) $3", 4, types, values, NULL, NULL);
	search_catalog_carry(t, si->storage_oid);
	CacheInvalidateRelcacheByRelid(si->storage_oid);
	CacheInvalidateRelcacheByRelid(t->data_oid);
	PG_RETURN_VOID();
}

/*
 * ots_catalog_switch_search_index is ots.catalog_switch_search_index(
 * schema_name, table_name, index_name, switch_index_name): the index and
 * its brother exchange names: each storage takes the other's name (renamed
 * below SQL, as ots's own), each catalog row the other's definition, and
 * searches of a name find what the other held.  Weights are cleared; the
 * two stay brothers, so the one of the old definition can be deleted.
 */
Datum
ots_catalog_switch_search_index(PG_FUNCTION_ARGS)
{
	const OtsTable *t = search_catalog_table(fcinfo);
	char	   *index_name = text_to_cstring(PG_GETARG_TEXT_PP(2));
	char	   *other_name;
	Oid			mine;
	Oid			theirs;
	char	   *mine_name;
	char	   *theirs_name;
	Oid			types[4] = {NAMEOID, NAMEOID, TEXTOID, TEXTOID};
	Datum		values[4];

	if (PG_ARGISNULL(3))
		ots_error(PARAMETER_INVALID, "Parameters of a search index must not be NULL.");
	other_name = text_to_cstring(PG_GETARG_TEXT_PP(3));
	/*
	 * as update_search_index: one change of the table's definition at a time,
	 * and its writers (which keep both storages) ended first
	 */
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(psprintf("LOCK TABLE %s IN SHARE UPDATE EXCLUSIVE MODE",
							 quote_qualified_identifier(t->schema_name, psprintf("%s" STORAGE_SUFFIX, t->table_name))),
					false, 0) != SPI_OK_UTILITY ||
		SPI_execute(psprintf("LOCK TABLE %s IN SHARE MODE",
							 quote_qualified_identifier(t->schema_name, psprintf("%s" STORAGE_SUFFIX, t->table_name))),
					false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not lock the storage of ots table %s", quote_qualified_identifier(t->schema_name, t->table_name));
	SPI_finish();
	t = catalog_lookup_owned(t->schema_name, t->table_name);
	mine = search_catalog_brother(t, index_name, other_name, "switch_index_name")->storage_oid;
	theirs = search_catalog_storage(t, other_name);
	if (!OidIsValid(theirs))
		ots_error(OBJECT_NOT_EXIST, "search index [%s] does not exist", other_name);
	/* the searches using either end first; both storages locked in the order searches lock them */
	for (int i = 0; i < t->nsearch; i++)
		if (t->search_data_oids[i] == mine || t->search_data_oids[i] == theirs)
			LockRelationOid(t->search_data_oids[i], AccessExclusiveLock);
	if (search_index_get(t, mine, AccessExclusiveLock)->building || search_index_get(t, theirs, AccessExclusiveLock)->building)
		ots_parameter_invalid(psprintf("Search index [%s] or [%s] is being built (sync_phase FULL).", index_name, other_name),
							  "Switch once both builds have ended (ots.describe_search_index shows sync_phase INCR).");
	mine_name = get_rel_name(mine);
	theirs_name = get_rel_name(theirs);
	/* the storages exchange names through a third that no relation has */
	RenameRelationInternal(mine, psprintf("ots$switch$%u", mine), true, false);
	CommandCounterIncrement();
	RenameRelationInternal(theirs, mine_name, true, false);
	CommandCounterIncrement();
	RenameRelationInternal(mine, theirs_name, true, false);
	CommandCounterIncrement();
	for (int i = 0; i < 4; i++)
		values[i] = PG_GETARG_DATUM(i);
	/* each row the other's definition; its name and its storage's stay */
	search_catalog_exec("UPDATE ots.search_indexes s SET index_schema = o.index_schema, time_to_live = o.time_to_live,"
						" created_at = o.created_at, sync_phase = o.sync_phase, query_flow_weights = NULL"
						" FROM ots.search_indexes o"
						" WHERE s.schema_name OPERATOR(pg_catalog.=) $1 AND s.table_name OPERATOR(pg_catalog.=) $2"
						" AND o.schema_name OPERATOR(pg_catalog.=) $1 AND o.table_name OPERATOR(pg_catalog.=) $2"
						" AND ((s.index_name OPERATOR(pg_catalog.=) $3 AND o.index_name OPERATOR(pg_catalog.=) $4)"
						" OR (s.index_name OPERATOR(pg_catalog.=) $4 AND o.index_name OPERATOR(pg_catalog.=) $3))",
						4, types, values, NULL, NULL);
	CommandCounterIncrement();
	search_catalog_carry(t, mine);
	search_catalog_carry(t, theirs);
	CacheInvalidateRelcacheByRelid(mine);
	CacheInvalidateRelcacheByRelid(theirs);
	CacheInvalidateRelcacheByRelid(t->data_oid);
	PG_RETURN_VOID();
}
