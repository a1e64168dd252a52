/*-------------------------------------------------------------------------
 * src/ddl/catalog_write.c
 *	  The only writers of ots.tables: small functions create_table,
 *	  update_table, delete_table and purge call, each for one table.
 *
 * No role but its owner may write ots.tables (PUBLIC may only read the rows
 * it may see), so no role can hand the C code metadata that does not match
 * its storage.  Each function here requires that the caller own the
 * table's storage table (s."t$data"), runs one schema-qualified statement
 * as the owner of ots.tables (asrole: security-restricted, search_path
 * pinned) and checks what it wrote the way every load does
 * (catalog_read_row, catalog_check_storage), so what create_table and
 * update_table validated with Tablestore's messages is also all that a
 * direct call can store.  catalog_insert also requires the view to have the
 * storage's owner and every partition to be shaped as the storage guard
 * lets partitions be attached to registered storage.
 *
 * Every write also makes the storage's comment carry the row it wrote (the
 * table's definition, catalog_write_carry), because ots.tables is no
 * part of a dump: pg_dump writes the comment right after the storage, in
 * every form (whole, --schema-only, -t), and the restore registers the
 * table from it as the comment arrives (catalog_write_restore, which the
 * DDL guard calls), as its owner could with create_table.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/comment.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

#include "asrole.h"
#include "meta/catalog.h"
#include "ddl/catalog_write.h"
#include "errors.h"
#include "ddl/guard_leaf.h"
#include "ddl/guard_publication.h"
#include "meta/storage.h"

PG_FUNCTION_INFO_V1(ots_catalog_insert);
PG_FUNCTION_INFO_V1(ots_catalog_update);
PG_FUNCTION_INFO_V1(ots_catalog_delete);
PG_FUNCTION_INFO_V1(ots_catalog_lock_options);
PG_FUNCTION_INFO_V1(ots_catalog_clear_trimmed);
PG_FUNCTION_INFO_V1(ots_catalog_set_defined);
PG_FUNCTION_INFO_V1(ots_catalog_insert_index);
PG_FUNCTION_INFO_V1(ots_catalog_set_index_phase);
PG_FUNCTION_INFO_V1(ots_catalog_index_forgotten);
PG_FUNCTION_INFO_V1(ots_catalog_set_stream);
PG_FUNCTION_INFO_V1(ots_catalog_carry);

/* the schema and table names every function here takes first */
#define CATALOG_WRITE_KEY \
	" WHERE t.schema_name OPERATOR(pg_catalog.=) $1 AND t.table_name OPERATOR(pg_catalog.=) $2"
static const Oid key_types[3] = {NAMEOID, NAMEOID, TEXTOID};

/*
 * A written row's definition, to be carried by its storage's comment: the
 * row as jsonb, without the names (the storage's own name and schema say
 * them).  CATALOG_WRITE_RETURNING returns it after the columns
 * catalog_read_row checks.
 */
#define CATALOG_DEFINITION \
	"pg_catalog.to_jsonb(t) OPERATOR(pg_catalog.-) 'schema_name'::pg_catalog.text" \
	" OPERATOR(pg_catalog.-) 'table_name'::pg_catalog.text AS ots_definition"
#define CATALOG_WRITE_RETURNING " RETURNING " CATALOG_ROW_COLUMNS ", " CATALOG_DEFINITION

/* the line of a storage's comment that carries its table's definition */
#define CATALOG_CARRIER_LINE "\nots definition: "

/*
 * every column of ots.tables but the names, which a carried definition
 * restores; a definition written by 0.2.0 has no update_full_row nor
 * stream_original_columns
 */
#define CATALOG_RESTORED_COLUMNS_0_2 \
	"pk_names, pk_types, auto_increment, max_versions, time_to_live, max_version_offset," \
	" allow_update, partitions, hash_prefix_length, created_at, trimmed_max_versions," \
	" defined_names, defined_types, index_of, index_type, index_key_count, index_phase," \
	" stream_id, stream_expiration_hours, stream_enabled_at"

static void catalog_write_base_changed(const char *schema, const char *base);

/*
 * catalog_write_owner requires the caller to own the storage table of
 * ots table schema.table and returns the storage's OID; InvalidOid (with
 * missing_ok) or OTSObjectNotExist when there is none.
 */
static Oid
catalog_write_owner(FunctionCallInfo fcinfo, bool missing_ok)
{
	char	   *schema = NameStr(*PG_GETARG_NAME(0));
	char	   *table = NameStr(*PG_GETARG_NAME(1));
	Oid			nsp = get_namespace_oid(schema, true);
	Oid			data_oid = storage_oid(nsp, table);

	if (!OidIsValid(data_oid))
	{
		if (missing_ok)
			return InvalidOid;
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	}
	if (!catalog_owns(data_oid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of ots table %s", quote_qualified_identifier(schema, table))));
	return data_oid;
}

/*
 * catalog_write_carry makes the comment of storage, the storage table of
 * ots table schema.table, carry definition (CATALOG_DEFINITION of its
 * row), so that a dump of the storage alone brings the table back
 * (catalog_write_restore).  Written directly, as a COMMENT would, in the
 * writing transaction: it is ots's, not the owner's to change.
 */
static void
catalog_write_carry(Oid storage, const char *schema, const char *table, Datum definition)
{
	Jsonb	   *def = DatumGetJsonbP(definition);

	CreateComments(storage, RelationRelationId, 0,
				   psprintf("storage of ots table %s; write through the ots.* functions"
							CATALOG_CARRIER_LINE "%s",
							quote_qualified_identifier(schema, table),
							JsonbToCString(NULL, &def->root, VARSIZE(def))));
}

/*
 * catalog_write_exec runs sql with nargs parameters as the owner of
 * ots.tables and, for each row it returns with an ots_definition
 * (CATALOG_WRITE_RETURNING), makes the storage of ots table schema.table
 * carry it; with check, it first checks each row as a load would.
 * Returns the number of rows processed; leaves SPI connected for the
 * caller to read SPI_tuptable and finish.
 */
static uint64
catalog_write_exec(const char *schema, const char *table, const char *sql, int nargs,
				   const Oid *types, Datum *values, const char *nulls, bool check)
{
	AsRole		saved;
	int			ret;
	int			defno;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	asrole_enter(asrole_catalog_owner(), &saved);
	ret = SPI_execute_with_args(sql, nargs, (Oid *) types, values, nulls, false, 0);
	asrole_leave(&saved);
	if (ret < 0)
		elog(ERROR, "ots.tables statement failed: %s", SPI_result_code_string(ret));
	defno = SPI_tuptable != NULL ? SPI_fnumber(SPI_tuptable->tupdesc, "ots_definition") : 0;
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		Oid			nsp = get_namespace_oid(schema, false);
		OtsTable	t;
		bool		isnull;
		Datum		def;

		memset(&t, 0, sizeof(t));
		strlcpy(t.schema_name, schema, NAMEDATALEN);
		strlcpy(t.table_name, table, NAMEDATALEN);
		if (check)
		{
			catalog_read_row(&t, SPI_tuptable->vals[r], SPI_tuptable->tupdesc);
			if (!catalog_check_storage(&t, nsp))
				ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
		}
		if (defno <= 0)
			continue;
		def = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, defno, &isnull);
		if (!isnull && get_rel_relkind(storage_oid(nsp, table)) == RELKIND_PARTITIONED_TABLE)
			catalog_write_carry(storage_oid(nsp, table), schema, table, def);
	}
	return SPI_processed;
}

/*
 * catalog_write_insert is catalog_write_exec of an INSERT into ots.tables:
 * OTSObjectAlreadyExist when the name is registered already (by a
 * concurrent create_table, say); 42710 when a concurrent registration took
 * the stream id the row carries (the index tables_stream_id).
 */
static void
catalog_write_insert(const char *schema, const char *table, const char *sql, int nargs,
					 const Oid *types, Datum *values, const char *nulls, bool check)
{
	MemoryContext cxt = CurrentMemoryContext;

	PG_TRY();
	{
		catalog_write_exec(schema, table, sql, nargs, types, values, nulls, check);
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		if (e->sqlerrcode != ERRCODE_UNIQUE_VIOLATION)
			PG_RE_THROW();
		FlushErrorState();
		if (e->constraint_name != NULL && strcmp(e->constraint_name, "tables_stream_id") == 0)
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_OBJECT),
					 errmsg("ots table %s carries the stream id of another ots table",
							quote_qualified_identifier(schema, table))));
		ots_error(OBJECT_ALREADY_EXIST, "Requested table already exists.");
	}
	PG_END_TRY();
}

/* catalog_write_args: the function's first nargs arguments as SPI parameters */
static void
catalog_write_args(FunctionCallInfo fcinfo, int nargs, Datum *values, char *nulls)
{
	for (int i = 0; i < nargs; i++)
	{
		values[i] = PG_ARGISNULL(i) ? (Datum) 0 : PG_GETARG_DATUM(i);
		nulls[i] = PG_ARGISNULL(i) ? 'n' : ' ';
	}
}

/*
 * catalog_write_run is catalog_write_exec with the function's first nargs
 * arguments (of types types), the first two the schema and table names.
 */
static uint64
catalog_write_run(FunctionCallInfo fcinfo, const char *sql, int nargs, const Oid *types, bool check)
{
	Datum		values[16];
	char		nulls[16];

	Assert(nargs <= lengthof(values));
	catalog_write_args(fcinfo, nargs, values, nulls);
	return catalog_write_exec(NameStr(*PG_GETARG_NAME(0)), NameStr(*PG_GETARG_NAME(1)), sql,
							  nargs, types, values, nulls, check);
}

/*
 * catalog_write_check_names refuses to register ots table schema.table,
 * stored in storage, while a relation of another owner has a name the
 * table takes beside its storage (storage_named_parts: its view, sequence,
 * chunk relation, stream's log and records): registered, the table would
 * claim it, and ots acts on those by name.  A view is also run as its
 * owner.
 */
static void
catalog_write_check_names(Oid storage, const char *schema, const char *table)
{
	for (int i = 0; i < STORAGE_NAMED_PARTS; i++)
	{
		char	   *name = psprintf("%s%s", table, storage_named_parts[i].suffix);
		Oid			relid = get_relname_relid(name, get_rel_namespace(storage));

		if (OidIsValid(relid) && !storage_is_part(relid, storage))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("relation %s is not owned by the owner of the storage table of ots table %s",
							quote_qualified_identifier(schema, name), quote_qualified_identifier(schema, table)),
					 errdetail("ots table %s takes that name for its %s.",
							   quote_qualified_identifier(schema, table), storage_named_parts[i].what)));
	}
}

/*
 * catalog_write_register runs sql, the INSERT of the row of a table or
 * index whose storage (schema and name: the first two arguments) the caller
 * made and owns, after the checks every registration makes: the names it
 * takes are free or its owner's, the partitions are shaped as ots makes
 * them.  OTSObjectAlreadyExist when the name is registered already.
 * Leaves SPI connected, as catalog_write_run does.
 */
static void
catalog_write_register(FunctionCallInfo fcinfo, const char *sql, int nargs, const Oid *types)
{
	Oid			data_oid = catalog_write_owner(fcinfo, false);
	Datum		values[16];
	char		nulls[16];

	catalog_write_check_names(data_oid, NameStr(*PG_GETARG_NAME(0)), NameStr(*PG_GETARG_NAME(1)));
	/* registered, the storage takes only partitions shaped as ots makes them */
	guard_leaf_check_partitions(data_oid);
	Assert(nargs <= lengthof(values));
	catalog_write_args(fcinfo, nargs, values, nulls);
	catalog_write_insert(NameStr(*PG_GETARG_NAME(0)), NameStr(*PG_GETARG_NAME(1)), sql, nargs,
						 types, values, nulls, true);
}

/*
 * ots_catalog_insert is ots.catalog_insert(schema_name, table_name,
 * pk_names, pk_types, auto_increment, max_versions, time_to_live,
 * max_version_offset, allow_update, partitions, hash_prefix_length,
 * update_full_row): create_table's registration of the table it made;
 * OTSObjectAlreadyExist when it is registered already.
 */
Datum
ots_catalog_insert(PG_FUNCTION_ARGS)
{
	static const Oid insert_types[12] = {NAMEOID, NAMEOID, TEXTARRAYOID, TEXTARRAYOID, INT2OID,
	INT4OID, INT8OID, INT8OID, BOOLOID, INT4OID, INT4OID, BOOLOID};
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ots_error(PARAMETER_INVALID, "Parameter table_name is missing.");
	/* 0.2.0's SQL (before ALTER EXTENSION ots UPDATE) passes no update_full_row */
	if (PG_NARGS() < lengthof(insert_types))
		catalog_write_register(fcinfo,
							   "INSERT INTO ots.tables AS t (schema_name, table_name, pk_names, pk_types,"
							   " auto_increment, max_versions, time_to_live, max_version_offset, allow_update,"
							   " partitions, hash_prefix_length)"
							   " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
							   CATALOG_WRITE_RETURNING, 11, insert_types);
	else
		catalog_write_register(fcinfo,
							   "INSERT INTO ots.tables AS t (schema_name, table_name, pk_names, pk_types,"
							   " auto_increment, max_versions, time_to_live, max_version_offset, allow_update,"
							   " partitions, hash_prefix_length, update_full_row)"
							   " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
							   CATALOG_WRITE_RETURNING, 12, insert_types);
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * ots_catalog_update is ots.catalog_update(schema_name, table_name,
 * max_versions, time_to_live, max_version_offset, allow_update):
 * update_table's change of the options (NULL keeps one), which every
 * session sees at its next command after commit.
 */
Datum
ots_catalog_update(PG_FUNCTION_ARGS)
{
	static const Oid update_types[6] = {NAMEOID, NAMEOID, INT4OID, INT8OID, INT8OID, BOOLOID};
	Oid			data_oid;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ots_error(PARAMETER_INVALID, "Parameter table_name is missing.");
	data_oid = catalog_write_owner(fcinfo, false);
	catalog_write_run(fcinfo,
					  "UPDATE ots.tables t"
					  "   SET max_versions = coalesce($3, t.max_versions),"
					  "       time_to_live = coalesce($4, t.time_to_live),"
					  "       max_version_offset = coalesce($5, t.max_version_offset),"
					  "       allow_update = coalesce($6, t.allow_update),"
					  "       trimmed_max_versions = ots.trimmed_after_update(t.trimmed_max_versions,"
					  "                                                      t.max_versions, $3)"
					  CATALOG_WRITE_KEY CATALOG_WRITE_RETURNING, 6, update_types, true);
	SPI_finish();
	CacheInvalidateRelcacheByRelid(data_oid);
	PG_RETURN_VOID();
}

/*
 * ots_catalog_delete is ots.catalog_delete(schema_name, table_name):
 * delete_table's removal of the metadata, before it drops the storage.
 */
Datum
ots_catalog_delete(PG_FUNCTION_ARGS)
{
	catalog_write_owner(fcinfo, false);
	catalog_write_run(fcinfo, "DELETE FROM ots.tables t" CATALOG_WRITE_KEY " RETURNING t.index_of",
					  2, key_types, false);
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		bool		isnull;
		Datum		base = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull);

		/* an index gone: its base table's writers stop maintaining it */
		if (!isnull)
			catalog_write_base_changed(NameStr(*PG_GETARG_NAME(0)), NameStr(*DatumGetName(base)));
	}
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * ots_catalog_lock_options is ots.catalog_lock_options(schema_name,
 * table_name): the table's time_to_live and max_versions, its row of
 * ots.tables locked FOR SHARE until the transaction ends (update_table
 * waits); no row when the table is gone.  For purge.
 */
Datum
ots_catalog_lock_options(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	if (!OidIsValid(catalog_write_owner(fcinfo, true)))
		return (Datum) 0;
	catalog_write_run(fcinfo,
					  "SELECT t.time_to_live, t.max_versions FROM ots.tables t"
					  CATALOG_WRITE_KEY " FOR SHARE", 2, key_types, false);
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		Datum		values[2];
		bool		nulls[2];

		for (int i = 0; i < 2; i++)
			values[i] = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, i + 1, &nulls[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	SPI_finish();
	return (Datum) 0;
}

/*
 * ots_catalog_clear_trimmed is ots.catalog_clear_trimmed(schema_name,
 * table_name, options_xmin): purge's note that the table holds no more
 * versions than max_versions, unless update_table changed its row since
 * (xmin differs from options_xmin).
 */
Datum
ots_catalog_clear_trimmed(PG_FUNCTION_ARGS)
{
	if (!OidIsValid(catalog_write_owner(fcinfo, true)))
		PG_RETURN_VOID();
	catalog_write_run(fcinfo,
					  "UPDATE ots.tables t SET trimmed_max_versions = NULL" CATALOG_WRITE_KEY
					  " AND CAST(t.xmin AS pg_catalog.text) OPERATOR(pg_catalog.=) $3"
					  " RETURNING " CATALOG_DEFINITION, 3, key_types, false);
	SPI_finish();
	PG_RETURN_VOID();
}

/* catalog_write_base_changed makes every session reload the base table of index schema.index */
static void
catalog_write_base_changed(const char *schema, const char *base)
{
	Oid			base_data = storage_oid(get_namespace_oid(schema, false), base);

	if (OidIsValid(base_data))
		CacheInvalidateRelcacheByRelid(base_data);
}

/*
 * ots_catalog_set_defined is ots.catalog_set_defined(schema_name,
 * table_name, defined_names, defined_types): the table's defined columns
 * (create_table, add_defined_column, delete_defined_column have checked
 * them with Tablestore's messages; the load checks them again).
 */
Datum
ots_catalog_set_defined(PG_FUNCTION_ARGS)
{
	static const Oid types[4] = {NAMEOID, NAMEOID, TEXTARRAYOID, TEXTARRAYOID};
	Oid			data_oid;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ots_error(PARAMETER_INVALID, "Parameter table_name is missing.");
	data_oid = catalog_write_owner(fcinfo, false);
	catalog_write_run(fcinfo,
					  "UPDATE ots.tables t SET defined_names = $3, defined_types = $4"
					  CATALOG_WRITE_KEY CATALOG_WRITE_RETURNING, 4, types, true);
	SPI_finish();
	CacheInvalidateRelcacheByRelid(data_oid);
	PG_RETURN_VOID();
}

/*
 * ots_catalog_set_stream is ots.catalog_set_stream(schema_name, table_name,
 * stream_id, stream_expiration_hours, stream_original_columns): the table's
 * stream (NULLs: none), its enable time set when the id changes;
 * ots.stream_sync has made or dropped its relations, which every session's
 * next load checks, and checked the original columns.
 */
Datum
ots_catalog_set_stream(PG_FUNCTION_ARGS)
{
	static const Oid types[5] = {NAMEOID, NAMEOID, TEXTOID, INT4OID, TEXTARRAYOID};
	Oid			data_oid;

#define CATALOG_SET_STREAM \
	"UPDATE ots.tables t SET stream_id = $3, stream_expiration_hours = $4," \
	" stream_enabled_at = CASE WHEN $3 IS NULL THEN NULL" \
	" WHEN $3 OPERATOR(pg_catalog.=) t.stream_id THEN t.stream_enabled_at" \
	" ELSE pg_catalog.clock_timestamp() END"

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ots_error(PARAMETER_INVALID, "Parameter table_name is missing.");
	data_oid = catalog_write_owner(fcinfo, false);
	/* 0.2.0's SQL (before ALTER EXTENSION ots UPDATE) passes no original columns */
	if (PG_NARGS() < lengthof(types))
		catalog_write_run(fcinfo, CATALOG_SET_STREAM CATALOG_WRITE_KEY CATALOG_WRITE_RETURNING,
						  4, types, true);
	else
		catalog_write_run(fcinfo, CATALOG_SET_STREAM ", stream_original_columns = $5"
						  CATALOG_WRITE_KEY CATALOG_WRITE_RETURNING, 5, types, true);
	SPI_finish();
	CacheInvalidateRelcacheByRelid(data_oid);
	PG_RETURN_VOID();
}

/*
 * ots_catalog_insert_index is ots.catalog_insert_index(schema_name,
 * index_name, base_name, pk_names, pk_types, defined_names, defined_types,
 * index_type, index_key_count, index_phase): create_index's registration
 * of the index table it made, with the base table's options; the caller
 * owns both.
 */
Datum
ots_catalog_insert_index(PG_FUNCTION_ARGS)
{
	static const Oid types[10] = {NAMEOID, NAMEOID, NAMEOID, TEXTARRAYOID, TEXTARRAYOID,
	TEXTARRAYOID, TEXTARRAYOID, TEXTOID, INT2OID, TEXTOID};
	char	   *schema;
	char	   *base;
	Oid			base_data;

	for (int i = 0; i < 10; i++)
		if (PG_ARGISNULL(i))
			ots_error(PARAMETER_INVALID, "Parameters of an index must not be NULL.");
	schema = NameStr(*PG_GETARG_NAME(0));
	base = NameStr(*PG_GETARG_NAME(2));
	base_data = storage_oid(get_namespace_oid(schema, false), base);
	if (!OidIsValid(base_data))
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	if (!catalog_owns(base_data))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of ots table %s", quote_qualified_identifier(schema, base))));
	/* a subscriber's ots writes an index's entries itself: its storage is not published */
	guard_publication_check_index(get_namespace_oid(schema, false), NameStr(*PG_GETARG_NAME(1)));
	/* the index's options are its table's (its entries expire with the rows) */
	catalog_write_register(fcinfo,
						   "INSERT INTO ots.tables AS t (schema_name, table_name, pk_names, pk_types,"
						   " max_versions, time_to_live, max_version_offset, allow_update, partitions,"
						   " hash_prefix_length, defined_names, defined_types, index_of, index_type,"
						   " index_key_count, index_phase)"
						   " SELECT $1, $2, $4, $5, 1, b.time_to_live, b.max_version_offset, false,"
						   " b.partitions, 0, $6, $7, $3, $8, $9, $10"
						   " FROM ots.tables b WHERE b.schema_name OPERATOR(pg_catalog.=) $1"
						   " AND b.table_name OPERATOR(pg_catalog.=) $3 AND b.index_of IS NULL"
						   CATALOG_WRITE_RETURNING, 10, types);
	if (SPI_processed != 1)
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	SPI_finish();
	CacheInvalidateRelcacheByRelid(base_data);
	PG_RETURN_VOID();
}

/*
 * ots_catalog_set_index_phase is ots.catalog_set_index_phase(schema_name,
 * index_name, phase): FULL while the backfill runs, INCR once it is done.
 * An index already in that phase keeps its row as it is: the row's xmin is
 * when the index became usable (catalog_index_usable), and a second build
 * that finishes just after the first (the background worker and CALL
 * ots.build_index) must not make it unusable again to snapshots older
 * than its own commit.
 */
Datum
ots_catalog_set_index_phase(PG_FUNCTION_ARGS)
{
	static const Oid types[3] = {NAMEOID, NAMEOID, TEXTOID};
	Oid			data_oid;
	bool		isnull;
	Datum		base;
	uint64		changed;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ots_error(PARAMETER_INVALID, "Parameter table_name is missing.");
	data_oid = catalog_write_owner(fcinfo, false);
	/* a row another build changed meanwhile is checked again as it now is (EvalPlanQual) */
	changed = catalog_write_run(fcinfo,
								"UPDATE ots.tables t SET index_phase = $3"
								CATALOG_WRITE_KEY " AND t.index_of IS NOT NULL"
								" AND t.index_phase OPERATOR(pg_catalog.<>) $3" CATALOG_WRITE_RETURNING,
								3, types, true);
	if (changed == 1)
	{
		base = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 12, &isnull);
		catalog_write_base_changed(NameStr(*PG_GETARG_NAME(0)), NameStr(*DatumGetName(base)));
	}
	SPI_finish();
	if (changed == 1)
	{
		CacheInvalidateRelcacheByRelid(data_oid);
		PG_RETURN_VOID();
	}
	/* in that phase already, or no such index */
	changed = catalog_write_run(fcinfo,
								"SELECT 1 FROM ots.tables t" CATALOG_WRITE_KEY
								" AND t.index_of IS NOT NULL AND t.index_phase OPERATOR(pg_catalog.=) $3",
								3, types, false);
	SPI_finish();
	if (changed != 1)
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	PG_RETURN_VOID();
}

/*
 * ots_catalog_index_forgotten is ots.catalog_index_forgotten(schema_name,
 * table_name): makes every session reload table schema.table_name, one of
 * whose indexes a DROP removed (its writers stop maintaining it).  Only the
 * drop clean-up calls it (no EXECUTE for PUBLIC).
 */
Datum
ots_catalog_index_forgotten(PG_FUNCTION_ARGS)
{
	catalog_write_base_changed(NameStr(*PG_GETARG_NAME(0)), NameStr(*PG_GETARG_NAME(1)));
	PG_RETURN_VOID();
}

/*
 * catalog_write_registered_base: is base (in schema) a registered table,
 * not an index, whose storage has the same owner as index storage idx?
 */
static bool
catalog_write_registered_base(const char *schema, const char *base, Oid idx)
{
	Oid			base_data = storage_oid(get_namespace_oid(schema, false), base);
	Datum		values[2];
	uint64		n;

	if (!OidIsValid(base_data) || asrole_owner(base_data) != asrole_owner(idx))
		return false;
	values[0] = DirectFunctionCall1(namein, CStringGetDatum(schema));
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(base));
	n = catalog_write_exec(schema, base, "SELECT FROM ots.tables t" CATALOG_WRITE_KEY
						   " AND t.index_of IS NULL", 2, key_types, values, NULL, false);
	SPI_finish();
	return n == 1;
}

/*
 * catalog_write_restore_indexes registers the indexes of table (just
 * registered, in schema nsp) that a restore made before it: storage of
 * schema nsp whose comment carries the definition of an index of table
 * (an index's storage may come before its table's in a dump)
 */
static void
catalog_write_restore_indexes(Oid nsp, const char *table)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1] = {ObjectIdGetDatum(nsp)};
	List	   *relids = NIL;
	List	   *comments = NIL;
	ListCell   *lc_relid;
	ListCell   *lc_comment;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT c.oid, d.description FROM pg_catalog.pg_class c"
							  " JOIN pg_catalog.pg_description d ON d.objoid OPERATOR(pg_catalog.=) c.oid"
							  " AND d.classoid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass"
							  " AND d.objsubid OPERATOR(pg_catalog.=) 0"
							  " WHERE c.relnamespace OPERATOR(pg_catalog.=) $1"
							  " AND c.relkind OPERATOR(pg_catalog.=) 'p'"
							  " AND pg_catalog.strpos(d.description, E'" "\\n" "ots definition: ')"
							  " OPERATOR(pg_catalog.>) 0",
							  1, argtypes, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not look for the indexes of a restored ots table");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		bool		isnull;
		Oid			relid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc,
														   1, &isnull));
		MemoryContext old = MemoryContextSwitchTo(CurTransactionContext);

		relids = lappend_oid(relids, relid);
		comments = lappend(comments, SPI_getvalue(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 2));
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	/* another role's storage is its business: only the storage the caller owns */
	forboth(lc_relid, relids, lc_comment, comments)
		if (catalog_owns(lfirst_oid(lc_relid)))
			catalog_write_restore(lfirst_oid(lc_relid), lfirst(lc_comment), table);
}

/*
 * catalog_write_restore registers the ots table (or index) whose storage
 * storage has just been given comment comment (by a restore: pg_dump writes
 * the comment right after the storage, whose definition it carries,
 * catalog_write_carry); false when the comment carries none.  Only the
 * storage's owner may (42501), as for create_table, and only a definition
 * catalog_read_row accepts, of storage shaped as it says (22023 otherwise,
 * catalog_check_definition); the storage itself is checked at every load,
 * once the restore has made all of it.  An index is registered with its
 * table: now if the table is registered already (and has the index's
 * owner), else when the table's own comment comes
 * (catalog_write_restore_indexes; only_index_of, when set, says which
 * table that is).  The names the table takes beside its storage must be
 * free or its owner's (catalog_write_check_names).  A stream id another
 * table has, or another owner's table had, is refused (the trigger
 * ots.tables_stream_id, src/sql/20_catalog.sql): a consumer of that stream
 * must never be handed this one's records.  A chunk relation the restore
 * does not bring is made when the storage gets its primary key
 * (catalog_write_restore_chunk).
 */
bool
catalog_write_restore(Oid storage, const char *comment, const char *only_index_of)
{
	static const Oid types[3] = {NAMEOID, NAMEOID, JSONBOID};
	const char *carried = comment != NULL ? strstr(comment, CATALOG_CARRIER_LINE) : NULL;
	char	   *table = storage_table_of(get_rel_name(storage), STORAGE_SUFFIX);
	Oid			nsp = get_rel_namespace(storage);
	char	   *schema = get_namespace_name(nsp);
	Datum		values[3];
	Jsonb	   *def;
	JsonbValue	key;
	JsonbValue *index_of;
	char	   *base = NULL;
	OtsTable	t;

	if (carried == NULL || table == NULL || schema == NULL ||
		get_rel_relkind(storage) != RELKIND_PARTITIONED_TABLE)
		return false;
	if (!catalog_owns(storage))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of ots table %s", quote_qualified_identifier(schema, table))));
	catalog_write_check_names(storage, schema, table);
	def = DatumGetJsonbP(DirectFunctionCall1(jsonb_in,
											 CStringGetDatum(carried + strlen(CATALOG_CARRIER_LINE))));
	if (!JB_ROOT_IS_OBJECT(def))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the comment of ots storage table %s does not carry an ots table's definition",
						quote_qualified_identifier(schema, get_rel_name(storage)))));
	key.type = jbvString;
	key.val.string.val = "index_of";
	key.val.string.len = strlen("index_of");
	index_of = findJsonbValueFromContainer(&def->root, JB_FOBJECT, &key);
	if (index_of != NULL && index_of->type == jbvString)
		base = pnstrdup(index_of->val.string.val, index_of->val.string.len);
	if ((only_index_of != NULL && (base == NULL || strcmp(base, only_index_of) != 0)) ||
		(base != NULL && !catalog_write_registered_base(schema, base, storage)))
		return true;			/* an index, registered with its table */

	values[0] = DirectFunctionCall1(namein, CStringGetDatum(schema));
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(table));
	values[2] = JsonbPGetDatum(def);
	/*
	 * a 0.2.0 ots.tables (before ALTER EXTENSION ots UPDATE) has no
	 * update_full_row, nor stream_original_columns, which came with it
	 */
	catalog_write_insert(schema, table,
						 get_attnum(get_relname_relid("tables", get_namespace_oid("ots", false)),
									"update_full_row") != InvalidAttrNumber ?
						 "INSERT INTO ots.tables AS t (schema_name, table_name, "
						 CATALOG_RESTORED_COLUMNS_0_2 ", update_full_row, stream_original_columns)"
						 " SELECT $1, $2, " CATALOG_RESTORED_COLUMNS_0_2 ", coalesce(update_full_row, false),"
						 " stream_original_columns"
						 " FROM pg_catalog.jsonb_populate_record(NULL::ots.tables, $3) r"
						 " RETURNING " CATALOG_ROW_COLUMNS :
						 "INSERT INTO ots.tables AS t (schema_name, table_name, "
						 CATALOG_RESTORED_COLUMNS_0_2 ")"
						 " SELECT $1, $2, " CATALOG_RESTORED_COLUMNS_0_2
						 " FROM pg_catalog.jsonb_populate_record(NULL::ots.tables, $3) r"
						 " RETURNING " CATALOG_ROW_COLUMNS,
						 3, types, values, NULL, false);
	memset(&t, 0, sizeof(t));
	strlcpy(t.schema_name, schema, NAMEDATALEN);
	strlcpy(t.table_name, table, NAMEDATALEN);
	/* real ots storage, as far as a restore has made it yet (the rest: at every load) */
	catalog_check_definition(&t, SPI_tuptable->vals[0], SPI_tuptable->tupdesc, nsp);
	SPI_finish();
	if (base == NULL)
		catalog_write_restore_indexes(nsp, table);
	else
		CacheInvalidateRelcacheByRelid(storage_oid(nsp, base));
	return true;
}

/*
 * catalog_write_restore_chunk makes the chunk relation of the registered
 * table (or index) whose storage a restore is about to give its primary
 * key, when the restore brought none: a dump of 0.2.0, or of the storage
 * without it.  A dump of 0.3.0 makes every table before it adds primary
 * keys (pre-data before post-data, with -j too), so its chunk relation is
 * there by then.  As the restoring role, who owns the storage, through
 * ots.create_chunk_relation (src/sql/30_tables.sql), the one maker of its
 * DDL, which gives it the storage's owner.
 */
void
catalog_write_restore_chunk(Oid storage)
{
	char	   *table = storage_table_of(get_rel_name(storage), STORAGE_SUFFIX);
	char	   *schema = get_namespace_name(get_rel_namespace(storage));
	Datum		values[2];

	if (table == NULL || schema == NULL ||
		OidIsValid(get_relname_relid(psprintf("%s%s", table, STORAGE_CHUNK_SUFFIX),
									 get_rel_namespace(storage))))
		return;
	values[0] = DirectFunctionCall1(namein, CStringGetDatum(schema));
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(table));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT ots.create_chunk_relation(t.schema_name, t.table_name, t.pk_names,"
							  " t.pk_types, t.hash_prefix_length) FROM ots.tables t" CATALOG_WRITE_KEY,
							  2, (Oid *) key_types, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not make the chunk relation of ots table %s",
			 quote_qualified_identifier(schema, table));
	SPI_finish();
}

/*
 * catalog_write_carry_table makes the comment of ots table schema.table's
 * storage carry its definition as ots.tables now has it (nothing when
 * there is no such row)
 */
void
catalog_write_carry_table(const char *schema, const char *table)
{
	Datum		values[2];

	values[0] = DirectFunctionCall1(namein, CStringGetDatum(schema));
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(table));
	catalog_write_exec(schema, table, "SELECT " CATALOG_DEFINITION " FROM ots.tables t" CATALOG_WRITE_KEY,
					   2, key_types, values, NULL, false);
	SPI_finish();
}

/*
 * ots_catalog_carry is ots.catalog_carry(schema_name, table_name):
 * catalog_write_carry_table, for the writers of ots.tables that are not
 * the functions above (the drop clean-up, the upgrade from 0.1.0); no
 * EXECUTE for PUBLIC, and the caller must own the storage.
 */
Datum
ots_catalog_carry(PG_FUNCTION_ARGS)
{
	if (OidIsValid(catalog_write_owner(fcinfo, true)))
		catalog_write_carry_table(NameStr(*PG_GETARG_NAME(0)), NameStr(*PG_GETARG_NAME(1)));
	PG_RETURN_VOID();
}
