/*-------------------------------------------------------------------------
 * src/meta/catalog_load.c
 *	  Loading an ots table's metadata from ots.tables into the catalog's
 *	  cache (catalog.c): its row, its indexes' rows, its storage, checked.
 *
 * ots.tables is written only through ots's functions (catalog_write.c),
 * but a superuser can still change it, or the storage's columns, by hand:
 * every load reads the row as the owner of ots.tables (rows are hidden from
 * roles that may not see the table, the loader must see them all) and
 * checks it against the storage's real catalog (catalog_check.c), so no
 * metadata the hot paths trust can crash a backend or confuse a type.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

#include "asrole.h"
#include "meta/catalog.h"
#include "meta/catalog_internal.h"
#include "meta/storage.h"

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

	ret = catalog_query_metadata("SELECT " CATALOG_ROW_COLUMNS ", table_name FROM ots.tables t"
							   " WHERE schema_name OPERATOR(pg_catalog.=) $1"
							   " AND index_of OPERATOR(pg_catalog.=) $2"
							   " ORDER BY table_name COLLATE \"C\"", args, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read the indexes of an ots table: %s", SPI_result_code_string(ret));
	if (SPI_processed > OTS_MAX_INDEXES)
		catalog_report_damaged(t, psprintf("it has " UINT64_FORMAT " indexes, more than %d",
										   SPI_processed, OTS_MAX_INDEXES));
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
			catalog_report_damaged(t, psprintf("the storage table of its index %s is missing",
											   quote_identifier(NameStr(*name))));
		if (asrole_owner(t->index_data_oids[i]) != asrole_owner(storage_oid(nsp, t->table_name)))
			catalog_report_damaged(t, psprintf("its index %s has another owner than its storage table",
											   quote_identifier(NameStr(*name))));
	}
}

/*
 * catalog_load_search_indexes finds the search indexes of table t in
 * ots.search_indexes (0.3.0; none before ALTER EXTENSION ots UPDATE) and
 * their storage tables; run within catalog_load's SPI connection and role.
 * What each is, search_index.c loads and checks when a write needs it.
 */
static void
catalog_load_search_indexes(OtsTable *t, Oid nsp, Datum *args)
{
	Oid			ots_nsp = get_namespace_oid("ots", true);
	int			ret;

	if (!OidIsValid(get_relname_relid("search_indexes", ots_nsp)))
		return;
	ret = catalog_query_metadata("SELECT storage_name FROM ots.search_indexes t"
							   " WHERE schema_name OPERATOR(pg_catalog.=) $1"
							   " AND table_name OPERATOR(pg_catalog.=) $2"
							   " ORDER BY index_name COLLATE \"C\"", args, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read the search indexes of an ots table: %s", SPI_result_code_string(ret));
	if (SPI_processed > OTS_MAX_SEARCH_INDEXES)
		catalog_report_damaged(t, psprintf("it has " UINT64_FORMAT " search indexes, more than %d",
										   SPI_processed, OTS_MAX_SEARCH_INDEXES));
	t->nsearch = SPI_processed;
	for (int i = 0; i < t->nsearch; i++)
	{
		bool		isnull;
		Name		name = DatumGetName(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));

		t->search_data_oids[i] = get_relname_relid(NameStr(*name), nsp);
		if (!OidIsValid(t->search_data_oids[i]))
			catalog_report_damaged(t, psprintf("the storage table of its search index %s is missing",
											   quote_identifier(NameStr(*name))));
		if (asrole_owner(t->search_data_oids[i]) != asrole_owner(storage_oid(nsp, t->table_name)))
			catalog_report_damaged(t, psprintf("the storage table of its search index %s has another owner than its storage table",
											   quote_identifier(NameStr(*name))));
	}
	if (t->nsearch == 0)
		return;
	/* the columns the fields read (top-level fields: a NESTED one's documents are its column's) */
	ret = catalog_query_metadata("SELECT DISTINCT f OPERATOR(pg_catalog.->>) 'field_name' COLLATE \"C\""
							   " FROM ots.search_indexes t,"
							   " pg_catalog.jsonb_array_elements(t.index_schema OPERATOR(pg_catalog.->) 'field_schemas') f"
							   " WHERE schema_name OPERATOR(pg_catalog.=) $1 AND table_name OPERATOR(pg_catalog.=) $2"
							   " ORDER BY 1", args, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read the search fields of an ots table: %s", SPI_result_code_string(ret));
	t->search_field_off[0] = 0;
	for (uint64 i = 0; i < SPI_processed && !t->search_fields_whole; i++)
	{
		char	   *field = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
		int			at = t->search_field_off[t->search_nfields];

		if (field == NULL)
			continue;
		if (t->search_nfields == OTS_MAX_SEARCH_LOADED_FIELDS ||
			at + strlen(field) > OTS_MAX_SEARCH_LOADED_BYTES)
		{
			t->search_fields_whole = true;
			break;
		}
		memcpy(t->search_field_names + at, field, strlen(field));
		t->search_field_off[++t->search_nfields] = at + strlen(field);
	}
}

/*
 * catalog_read_registered fills t from the row of ots table schema.table in
 * ots.tables (its key and options, checked as every load checks them) and
 * its storage's OID, without the rest a load needs (its view): a restore
 * registers what belongs to a table before the table is whole.  false when
 * no row registers it.
 */
bool
catalog_read_registered(const char *schema, const char *table, OtsTable *t)
{
	Datum		args[2];
	AsRole		saved;
	int			ret;
	bool		found;

	if (!catalog_has_index_columns())
		return false;
	memset(t, 0, sizeof(*t));
	strlcpy(t->schema_name, schema, NAMEDATALEN);
	strlcpy(t->table_name, table, NAMEDATALEN);
	args[0] = DirectFunctionCall1(namein, CStringGetDatum(schema));
	args[1] = DirectFunctionCall1(namein, CStringGetDatum(table));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	asrole_enter(asrole_catalog_owner(), &saved);
	ret = catalog_query_metadata("SELECT " CATALOG_ROW_COLUMNS " FROM ots.tables t"
							   " WHERE schema_name OPERATOR(pg_catalog.=) $1"
							   " AND table_name OPERATOR(pg_catalog.=) $2", args, 1);
	asrole_leave(&saved);
	found = ret == SPI_OK_SELECT && SPI_processed == 1;
	if (found)
		catalog_read_row(t, SPI_tuptable->vals[0], SPI_tuptable->tupdesc);
	SPI_finish();
	t->data_oid = storage_oid(get_namespace_oid(schema, true), table);
	return found && OidIsValid(t->data_oid);
}

/*
 * catalog_load fills t from ots.tables for the view's schema and name; on
 * a miss, t->valid stays false.  The row is read as the owner of
 * ots.tables, who sees every row, into a copy that replaces t only once
 * all of it has been checked.
 */
void
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
							   " FROM ots.tables t WHERE schema_name OPERATOR(pg_catalog.=) $1"
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
	if (found && !loaded.is_index)
		catalog_load_search_indexes(&loaded, nsp, args);
	asrole_leave(&saved);
	SPI_finish();

	if (found && catalog_check_storage(&loaded, nsp))
	{
		loaded.valid = true;
		memcpy(t, &loaded, sizeof(OtsTable));
	}
}
