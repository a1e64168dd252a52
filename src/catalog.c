/*-------------------------------------------------------------------------
 * src/catalog.c
 *	  Per-backend cache of ots table metadata (ots.tables), resolved from
 *	  the names users pass to ots functions.
 *
 * Entries live in a hash keyed by the user-facing view's OID and are never
 * freed, only marked invalid and reloaded in place, so a pointer cached in
 * fn_extra by the per-row view functions stays safe.  A relcache
 * invalidation of the view or the storage table (sent by update_table and
 * delete_table, and by DROP/ALTER) marks an entry invalid in every backend.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "nodes/makefuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "catalog.h"
#include "errors.h"

/* PostgreSQL identifiers hold NAMEDATALEN-1 bytes; storage adds "$p1023" */
#define CATALOG_MAX_TABLE_NAME_LEN (NAMEDATALEN - 1 - 6)

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

static HTAB *tables_by_view = NULL;
static HTAB *tables_by_data = NULL;
static HTAB *names = NULL;
static OverrideSearchPath *names_path = NULL;

static void catalog_create_hashes(void);
static void catalog_invalidate(Datum arg, Oid relid);
static void catalog_invalidate_names(Datum arg, int cacheid, uint32 hashvalue);
static void catalog_load(OtsTable *t, Oid view_oid);
static OtsValueType catalog_type_from_name(const char *name);
static bool catalog_name_valid(const char *name, int len, int maxlen);

void
catalog_init(void)
{
	CacheRegisterRelcacheCallback(catalog_invalidate, (Datum) 0);
	/* a new, renamed or dropped relation or schema may change what a name means */
	CacheRegisterSyscacheCallback(RELNAMENSP, catalog_invalidate_names, (Datum) 0);
	CacheRegisterSyscacheCallback(NAMESPACEOID, catalog_invalidate_names, (Datum) 0);
}

static void
catalog_create_hashes(void)
{
	HASHCTL		ctl;

	if (tables_by_view != NULL)
		return;
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(OtsTable);
	ctl.hcxt = CacheMemoryContext;
	tables_by_view = hash_create("ots tables by view", 64, &ctl,
								 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	ctl.entrysize = sizeof(DataOidEntry);
	tables_by_data = hash_create("ots tables by storage", 64, &ctl,
								 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	ctl.keysize = NAMEDATALEN;
	ctl.entrysize = sizeof(NameEntry);
	names = hash_create("ots table names", 64, &ctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
}

/* catalog_invalidate_names forgets every resolved name */
static void
catalog_invalidate_names(Datum arg, int cacheid, uint32 hashvalue)
{
	HASH_SEQ_STATUS seq;
	NameEntry  *e;

	if (names == NULL)
		return;
	hash_seq_init(&seq, names);
	while ((e = hash_seq_search(&seq)) != NULL)
		hash_search(names, e->name, HASH_REMOVE, NULL);
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

	catalog_create_hashes();
	if (names_path == NULL || !OverrideSearchPathMatchesCurrent(names_path))
	{
		catalog_invalidate_names((Datum) 0, RELNAMENSP, 0);
		if (names_path != NULL)
		{
			OverrideSearchPath *stale = names_path;

			names_path = NULL;
			list_free(stale->schemas);
			pfree(stale);
		}
		names_path = GetOverrideSearchPath(CacheMemoryContext);
	}
	e = hash_search(names, relname, HASH_FIND, NULL);
	if (e != NULL)
		return e->view_oid;
	view_oid = RelnameGetRelid(relname);
	if (OidIsValid(view_oid))
	{
		e = hash_search(names, relname, HASH_ENTER, &found);
		e->view_oid = view_oid;
	}
	return view_oid;
}

/*
 * catalog_invalidate marks entries of the invalidated relation (or all of
 * them) for reloading.
 */
static void
catalog_invalidate(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS seq;
	OtsTable   *t;

	if (tables_by_view == NULL)
		return;
	hash_seq_init(&seq, tables_by_view);
	while ((t = hash_seq_search(&seq)) != NULL)
		if (relid == InvalidOid || t->view_oid == relid || t->data_oid == relid)
			t->valid = false;
}

static OtsValueType
catalog_type_from_name(const char *name)
{
	if (strcmp(name, "STRING") == 0)
		return OTS_VT_STRING;
	if (strcmp(name, "INTEGER") == 0)
		return OTS_VT_INTEGER;
	if (strcmp(name, "BINARY") == 0)
		return OTS_VT_BINARY;
	elog(ERROR, "unknown primary key type \"%s\" in ots.tables", name);
	return OTS_VT_STRING;		/* keep compiler quiet */
}

/*
 * catalog_load fills t from ots.tables for the view's schema and name; on
 * a miss, t->valid stays false.
 */
static void
catalog_load(OtsTable *t, Oid view_oid)
{
	Oid			nsp = get_rel_namespace(view_oid);
	char	   *relname = get_rel_name(view_oid);
	char	   *nspname = OidIsValid(nsp) ? get_namespace_name(nsp) : NULL;
	Oid			argtypes[2] = {NAMEOID, NAMEOID};
	Datum		args[2];
	char		storage[NAMEDATALEN * 2];
	int			ret;

	t->valid = false;
	if (relname == NULL || nspname == NULL || get_rel_relkind(view_oid) != RELKIND_VIEW)
		return;
	args[0] = DirectFunctionCall1(namein, CStringGetDatum(nspname));
	args[1] = DirectFunctionCall1(namein, CStringGetDatum(relname));

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	ret = SPI_execute_with_args(
								"SELECT pk_names, pk_types, auto_increment, max_versions, time_to_live,"
								" max_version_offset, allow_update, partitions, hash_prefix_length"
								" FROM ots.tables WHERE schema_name OPERATOR(pg_catalog.=) $1"
								" AND table_name OPERATOR(pg_catalog.=) $2",
								2, argtypes, args, NULL, true, 1);
	if (ret == SPI_OK_SELECT && SPI_processed == 1)
	{
		HeapTuple	tup = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		Datum	   *names;
		Datum	   *types;
		int			nnames;
		int			ntypes;
		Datum		d;

		deconstruct_array(DatumGetArrayTypeP(SPI_getbinval(tup, desc, 1, &isnull)),
						  TEXTOID, -1, false, TYPALIGN_INT, &names, NULL, &nnames);
		deconstruct_array(DatumGetArrayTypeP(SPI_getbinval(tup, desc, 2, &isnull)),
						  TEXTOID, -1, false, TYPALIGN_INT, &types, NULL, &ntypes);
		if (nnames != ntypes || nnames < 1 || nnames > OTS_MAX_PK_COLUMNS)
			elog(ERROR, "corrupt primary key schema in ots.tables for %s.%s", nspname, relname);

		t->npk = nnames;
		d = SPI_getbinval(tup, desc, 3, &isnull);
		t->auto_increment_col = isnull ? -1 : DatumGetInt16(d) - 1;
		for (int i = 0; i < nnames; i++)
		{
			char	   *name = TextDatumGetCString(names[i]);
			char	   *type = TextDatumGetCString(types[i]);

			strlcpy(t->pk[i].name, name, NAMEDATALEN);
			t->pk[i].namelen = strlen(t->pk[i].name);
			t->pk[i].type = catalog_type_from_name(type);
			t->pk[i].auto_increment = (i == t->auto_increment_col);
		}
		t->max_versions = DatumGetInt32(SPI_getbinval(tup, desc, 4, &isnull));
		t->time_to_live = DatumGetInt64(SPI_getbinval(tup, desc, 5, &isnull));
		t->max_version_offset = DatumGetInt64(SPI_getbinval(tup, desc, 6, &isnull));
		t->allow_update = DatumGetBool(SPI_getbinval(tup, desc, 7, &isnull));
		t->partitions = DatumGetInt32(SPI_getbinval(tup, desc, 8, &isnull));
		t->hash_prefix_len = DatumGetInt32(SPI_getbinval(tup, desc, 9, &isnull));

		strlcpy(t->schema_name, nspname, NAMEDATALEN);
		strlcpy(t->table_name, relname, NAMEDATALEN);
		snprintf(storage, sizeof(storage), "%s$data", relname);
		t->data_oid = get_relname_relid(storage, nsp);
		snprintf(storage, sizeof(storage), "%s$seq", relname);
		t->seq_oid = t->auto_increment_col >= 0 ? get_relname_relid(storage, nsp) : InvalidOid;
		t->valid = OidIsValid(t->data_oid);
	}
	SPI_finish();

	if (t->valid)
	{
		bool		found;
		DataOidEntry *e = hash_search(tables_by_data, &t->data_oid, HASH_ENTER, &found);

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

	catalog_create_hashes();
	t = hash_search(tables_by_view, &view_oid, HASH_ENTER, &found);
	if (!found)
	{
		memset(((char *) t) + sizeof(Oid), 0, sizeof(OtsTable) - sizeof(Oid));
		t->valid = false;
	}
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
 * catalog_find resolves a table-name argument; NULL when no ots table has
 * that name, or (quietly) when the name is not a valid one.
 */
static OtsTable *
catalog_find(text *name, bool quiet)
{
	char	   *full = text_to_cstring(name);
	char	   *dot = strrchr(full, '.');
	char	   *relname = dot ? dot + 1 : full;
	Oid			view_oid;

	if (quiet && !catalog_name_valid(relname, strlen(relname), CATALOG_MAX_TABLE_NAME_LEN))
		return NULL;
	catalog_check_table_name(relname, strlen(relname));
	if (dot == NULL)
		view_oid = catalog_resolve_unqualified(relname);
	else
	{
		char	   *schema = full;
		Oid			nsp;

		*dot = '\0';
		schema = catalog_schema_name(schema);
		/* like schema.t in SQL: needs USAGE on the schema (42501 otherwise) */
		nsp = LookupExplicitNamespace(schema, true);
		view_oid = OidIsValid(nsp) ? get_relname_relid(relname, nsp) : InvalidOid;
	}
	return OidIsValid(view_oid) ? catalog_get(view_oid) : NULL;
}

OtsTable *
catalog_lookup(text *name)
{
	OtsTable   *t = catalog_find(name, false);

	if (t == NULL)
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	return t;
}

OtsTable *
catalog_lookup_quiet(text *name)
{
	return catalog_find(name, true);
}

OtsTable *
catalog_lookup_by_data_oid(Oid data_oid)
{
	DataOidEntry *e;

	catalog_create_hashes();
	e = hash_search(tables_by_data, &data_oid, HASH_FIND, NULL);
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
		char	   *relname = get_rel_name(data_oid);
		Oid			nsp = get_rel_namespace(data_oid);
		size_t		len = relname ? strlen(relname) : 0;

		if (len > 5 && strcmp(relname + len - 5, "$data") == 0)
		{
			Oid			view_oid;

			relname[len - 5] = '\0';
			view_oid = get_relname_relid(relname, nsp);
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
		OtsTable   *t = catalog_lookup(name);

		schema = t->schema_name;
		relname = t->table_name;
	}
	else
	{
		char	   *full = text_to_cstring(name);
		char	   *dot = strrchr(full, '.');

		relname = dot ? dot + 1 : full;
		catalog_check_table_name(relname, strlen(relname));
		if (dot == NULL)
			schema = get_namespace_name(RangeVarGetCreationNamespace(makeRangeVar(NULL, relname, -1)));
		else
		{
			*dot = '\0';
			schema = catalog_schema_name(full);
			if (!OidIsValid(get_namespace_oid(schema, true)))
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_SCHEMA),
						 errmsg("schema \"%s\" does not exist", schema)));
		}
	}
	values[0] = DirectFunctionCall1(namein, CStringGetDatum(schema));
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(relname));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

/*
 * ots_invalidate_table makes every backend drop its cached metadata of the
 * table stored in "storage" at the next command (after commit).
 */
Datum
ots_invalidate_table(PG_FUNCTION_ARGS)
{
	CacheInvalidateRelcacheByRelid(PG_GETARG_OID(0));
	PG_RETURN_VOID();
}
