/*-------------------------------------------------------------------------
 * src/catalog_write.c
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
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

#include "asrole.h"
#include "catalog.h"
#include "ddl_guard.h"
#include "errors.h"
#include "storage.h"

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

/* the schema and table names every function here takes first */
#define CATALOG_WRITE_KEY \
	" WHERE t.schema_name OPERATOR(pg_catalog.=) $1 AND t.table_name OPERATOR(pg_catalog.=) $2"
static const Oid key_types[3] = {NAMEOID, NAMEOID, TEXTOID};

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
 * catalog_write_run runs sql with the function's first nargs arguments
 * (of types types) as the owner of ots.tables; with RETURNING
 * CATALOG_ROW_COLUMNS, it checks every row it wrote as a load would.
 * Returns the number of rows processed; leaves SPI connected for the
 * caller to read SPI_tuptable and finish.
 */
static uint64
catalog_write_run(FunctionCallInfo fcinfo, const char *sql, int nargs, const Oid *types, bool check)
{
	Datum		values[16];
	char		nulls[16];
	AsRole		saved;
	int			ret;

	Assert(nargs <= lengthof(values));
	for (int i = 0; i < nargs; i++)
	{
		values[i] = PG_ARGISNULL(i) ? (Datum) 0 : PG_GETARG_DATUM(i);
		nulls[i] = PG_ARGISNULL(i) ? 'n' : ' ';
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	asrole_enter(asrole_catalog_owner(), &saved);
	ret = SPI_execute_with_args(sql, nargs, (Oid *) types, values, nulls, false, 0);
	asrole_leave(&saved);
	if (ret < 0)
		elog(ERROR, "ots.tables statement failed: %s", SPI_result_code_string(ret));
	for (uint64 r = 0; check && r < SPI_processed; r++)
	{
		OtsTable	t;

		memset(&t, 0, sizeof(t));
		strlcpy(t.schema_name, NameStr(*PG_GETARG_NAME(0)), NAMEDATALEN);
		strlcpy(t.table_name, NameStr(*PG_GETARG_NAME(1)), NAMEDATALEN);
		catalog_read_row(&t, SPI_tuptable->vals[r], SPI_tuptable->tupdesc);
		if (!catalog_check_storage(&t, get_namespace_oid(t.schema_name, false)))
			ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	}
	return SPI_processed;
}

/*
 * catalog_write_register runs sql, the INSERT of the row of a table or
 * index whose storage (schema and name: the first two arguments) the caller
 * made and owns, after the checks every registration makes: the view has
 * the storage's owner, the partitions are shaped as ots makes them.
 * OTSObjectAlreadyExist when the name is registered already.  Leaves SPI
 * connected, as catalog_write_run does.
 */
static void
catalog_write_register(FunctionCallInfo fcinfo, const char *sql, int nargs, const Oid *types)
{
	Oid			data_oid = catalog_write_owner(fcinfo, false);
	Oid			view_oid = get_relname_relid(NameStr(*PG_GETARG_NAME(1)), get_rel_namespace(data_oid));

	/* create_table makes both as one role; a view is run as its owner */
	if (OidIsValid(view_oid) && asrole_owner(view_oid) != asrole_owner(data_oid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("the view of ots table %s is not owned by the owner of its storage table",
						quote_qualified_identifier(NameStr(*PG_GETARG_NAME(0)), NameStr(*PG_GETARG_NAME(1))))));
	/* registered, the storage takes only partitions shaped as ots makes them */
	ddl_guard_check_partitions(data_oid);
	PG_TRY();
	{
		catalog_write_run(fcinfo, sql, nargs, types, true);
	}
	PG_CATCH();
	{
		if (geterrcode() == ERRCODE_UNIQUE_VIOLATION)
		{
			/* registered already (by a concurrent create_table, say) */
			FlushErrorState();
			ots_error(OBJECT_ALREADY_EXIST, "Requested table already exists.");
		}
		PG_RE_THROW();
	}
	PG_END_TRY();
}

/*
 * ots_catalog_insert is ots.catalog_insert(schema_name, table_name,
 * pk_names, pk_types, auto_increment, max_versions, time_to_live,
 * max_version_offset, allow_update, partitions, hash_prefix_length):
 * create_table's registration of the table it made; OTSObjectAlreadyExist
 * when it is registered already.
 */
Datum
ots_catalog_insert(PG_FUNCTION_ARGS)
{
	static const Oid insert_types[11] = {NAMEOID, NAMEOID, TEXTARRAYOID, TEXTARRAYOID, INT2OID,
	INT4OID, INT8OID, INT8OID, BOOLOID, INT4OID, INT4OID};
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ots_error(PARAMETER_INVALID, "Parameter table_name is missing.");
	catalog_write_register(fcinfo,
						   "INSERT INTO ots.tables AS t (schema_name, table_name, pk_names, pk_types,"
						   " auto_increment, max_versions, time_to_live, max_version_offset, allow_update,"
						   " partitions, hash_prefix_length)"
						   " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
						   " RETURNING " CATALOG_ROW_COLUMNS, 11, insert_types);
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
					  CATALOG_WRITE_KEY " RETURNING " CATALOG_ROW_COLUMNS, 6, update_types, true);
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
					  " AND CAST(t.xmin AS pg_catalog.text) OPERATOR(pg_catalog.=) $3", 3, key_types, false);
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
					  CATALOG_WRITE_KEY " RETURNING " CATALOG_ROW_COLUMNS, 4, types, true);
	SPI_finish();
	CacheInvalidateRelcacheByRelid(data_oid);
	PG_RETURN_VOID();
}

/*
 * ots_catalog_set_stream is ots.catalog_set_stream(schema_name, table_name,
 * stream_id, stream_expiration_hours): the table's stream (NULLs: none),
 * its enable time set when the id changes; ots.stream_sync has made or
 * dropped its relations, which every session's next load checks.
 */
Datum
ots_catalog_set_stream(PG_FUNCTION_ARGS)
{
	static const Oid types[4] = {NAMEOID, NAMEOID, TEXTOID, INT4OID};
	Oid			data_oid;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ots_error(PARAMETER_INVALID, "Parameter table_name is missing.");
	data_oid = catalog_write_owner(fcinfo, false);
	catalog_write_run(fcinfo,
					  "UPDATE ots.tables t SET stream_id = $3, stream_expiration_hours = $4,"
					  " stream_enabled_at = CASE WHEN $3 IS NULL THEN NULL"
					  " WHEN $3 OPERATOR(pg_catalog.=) t.stream_id THEN t.stream_enabled_at"
					  " ELSE pg_catalog.clock_timestamp() END"
					  CATALOG_WRITE_KEY " RETURNING " CATALOG_ROW_COLUMNS, 4, types, true);
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
	ddl_guard_check_index_unpublished(get_namespace_oid(schema, false), NameStr(*PG_GETARG_NAME(1)));
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
						   " RETURNING " CATALOG_ROW_COLUMNS, 10, types);
	if (SPI_processed != 1)
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	SPI_finish();
	CacheInvalidateRelcacheByRelid(base_data);
	PG_RETURN_VOID();
}

/*
 * ots_catalog_set_index_phase is ots.catalog_set_index_phase(schema_name,
 * index_name, phase): FULL while the backfill runs, INCR once it is done.
 */
Datum
ots_catalog_set_index_phase(PG_FUNCTION_ARGS)
{
	static const Oid types[3] = {NAMEOID, NAMEOID, TEXTOID};
	Oid			data_oid;
	bool		isnull;
	Datum		base;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ots_error(PARAMETER_INVALID, "Parameter table_name is missing.");
	data_oid = catalog_write_owner(fcinfo, false);
	catalog_write_run(fcinfo,
					  "UPDATE ots.tables t SET index_phase = $3"
					  CATALOG_WRITE_KEY " AND t.index_of IS NOT NULL RETURNING "
					  CATALOG_ROW_COLUMNS, 3, types, true);
	if (SPI_processed != 1)
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	base = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 12, &isnull);
	catalog_write_base_changed(NameStr(*PG_GETARG_NAME(0)), NameStr(*DatumGetName(base)));
	SPI_finish();
	CacheInvalidateRelcacheByRelid(data_oid);
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
