/*-------------------------------------------------------------------------
 * src/meta/catalog.c
 *	  Per-backend cache of ots table metadata (ots.tables), resolved from
 *	  the names users pass to ots functions.
 *
 * Entries live in a hash keyed by the user-facing view's OID and are never
 * freed, only marked invalid and reloaded in place, so a pointer cached in
 * fn_extra by the per-row view functions stays safe.  A relcache
 * invalidation of the view or the storage table (sent by update_table and
 * delete_table, and by DROP/ALTER) marks an entry invalid in every backend.
 *
 * An entry is loaded from ots.tables (catalog_load.c) and checked against
 * the storage's real catalog (catalog_check.c).  A lookup also locks the
 * storage table and loads again when that let in an invalidation (as
 * RangeVarGetRelidExtended does), so a call that waited for a concurrent
 * delete_table finds the table gone instead of a dropped OID.
 *
 * Also here: which role may see a table (catalog_may_see), and the SQL
 * functions over names and entries (ots.resolve_name,
 * ots.invalidate_table, ots.table_visible, ots.table_problem).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "asrole.h"
#include "cache.h"
#include "meta/catalog.h"
#include "meta/catalog_internal.h"
#include "errors.h"
#include "format/names.h"
#include "meta/storage.h"
#include "subxact.h"

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

static void catalog_table_stale(void *entry);
static bool catalog_table_concerns(const void *entry, Oid relid);
static void catalog_name_stale(void *entry);

/* the tables, by view: invalidating the view or the storage marks the entry */
static OtsCache tables_by_view = {
	.name = "ots tables by view",
	.keysize = sizeof(Oid),
	.entrysize = sizeof(OtsTable),
	.stale = catalog_table_stale,
	.concerns = catalog_table_concerns,
};

/* the same tables by storage: pointers into tables_by_view, whose validity they follow */
static OtsCache tables_by_data = {
	.name = "ots tables by storage",
	.keysize = sizeof(Oid),
	.entrysize = sizeof(DataOidEntry),
};

/* unqualified names resolved under names_path: any relation or schema change marks them */
static OtsCache names = {
	.name = "ots table names",
	.keysize = NAMEDATALEN,
	.entrysize = sizeof(NameEntry),
	.string_keys = true,
	.stale = catalog_name_stale,
};
static OverrideSearchPath *names_path = NULL;

static OtsTable *catalog_get(Oid view_oid);

void
catalog_init(void)
{
	/* a new, renamed or dropped relation or schema may change what a name means */
	cache_watch_syscache(&names, RELNAMENSP);
	cache_watch_syscache(&names, NAMESPACEOID);
}

/* catalog_name_stale forgets what a name resolved to */
static void
catalog_name_stale(void *entry)
{
	((NameEntry *) entry)->view_oid = InvalidOid;
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

	if (names_path == NULL || !OverrideSearchPathMatchesCurrent(names_path))
	{
		cache_mark_stale(&names);
		if (names_path != NULL)
		{
			OverrideSearchPath *stale = names_path;

			names_path = NULL;
			list_free(stale->schemas);
			pfree(stale);
		}
		names_path = GetOverrideSearchPath(CacheMemoryContext);
	}
	e = cache_find(&names, relname);
	if (e != NULL && OidIsValid(e->view_oid))
		return e->view_oid;
	view_oid = RelnameGetRelid(relname);
	if (OidIsValid(view_oid))
	{
		e = cache_lookup(&names, relname, &found);
		e->view_oid = view_oid;
	}
	return view_oid;
}

/* catalog_table_stale marks a table's metadata for reloading */
static void
catalog_table_stale(void *entry)
{
	((OtsTable *) entry)->valid = false;
}

/*
 * catalog_table_concerns: is relid the table's view, storage or chunk
 * relation?  (A chunk relation made for a table that had none, by the
 * update to 0.3.0 or a restore, comes with an invalidation of the storage.)
 */
static bool
catalog_table_concerns(const void *entry, Oid relid)
{
	const OtsTable *t = entry;

	return t->view_oid == relid || t->data_oid == relid ||
		(OidIsValid(t->chunk_oid) && t->chunk_oid == relid);
}

OtsTable *
catalog_index_base(const OtsTable *t)
{
	Oid			nsp = get_namespace_oid(t->schema_name, false);
	Oid			view_oid = get_relname_relid(t->index_of, nsp);
	OtsTable   *base;

	for (;;)
	{
		Oid			data_oid;

		base = OidIsValid(view_oid) ? catalog_get(view_oid) : NULL;
		if (base == NULL)
			catalog_report_damaged(t, psprintf("its base table %s is gone",
											   quote_identifier(t->index_of)));
		data_oid = base->data_oid;
		LockRelationOid(data_oid, AccessShareLock);
		if (base->valid && base->data_oid == data_oid)
		{
			/* a table of that name that does not list the index is not its table */
			for (int i = 0; i < base->nindexes; i++)
				if (base->index_data_oids[i] == t->data_oid)
					return base;
			catalog_report_damaged(t, psprintf("its table %s does not list it as an index",
											   quote_identifier(t->index_of)));
		}
		view_oid = get_relname_relid(t->index_of, nsp);
	}
}

void
catalog_check_index_readable(const OtsTable *t)
{
	if (t->is_index && !catalog_index_usable(t, GetActiveSnapshot()))
		ots_error(PARAMETER_INVALID, "Disallow read index table in building base state");
}

bool
catalog_index_usable(const OtsTable *t, Snapshot snapshot)
{
	if (t->index_building)
		return false;
	/*
	 * the transaction that made it complete must be visible to the reader:
	 * an older snapshot sees the table's rows without the entries the build
	 * wrote (PostgreSQL's indcheckxmin, more precisely)
	 */
	return snapshot == NULL || !TransactionIdIsNormal(t->index_ready_xmin) ||
		TransactionIdIsCurrentTransactionId(t->index_ready_xmin) ||
		!XidInMVCCSnapshot(t->index_ready_xmin, snapshot);
}

/*
 * catalog_get returns the valid entry for a view OID, loading it if
 * needed (catalog_load); NULL when the relation is not an ots table.
 */
static OtsTable *
catalog_get(Oid view_oid)
{
	OtsTable   *t;
	bool		found;

	t = cache_lookup(&tables_by_view, &view_oid, &found);
	if (!t->valid)
	{
		catalog_load(t, view_oid);
		if (t->valid)
		{
			/* and by its storage */
			DataOidEntry *e = cache_lookup(&tables_by_data, &t->data_oid, &found);

			e->table = t;
		}
	}
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
 * catalog_resolve finds the relation a table-name argument names (it may
 * not be an ots table); InvalidOid when none, or (quietly) when the name
 * is not a valid one.
 */
static Oid
catalog_resolve(text *name, bool quiet)
{
	char	   *full = text_to_cstring(name);
	char	   *dot = strrchr(full, '.');
	char	   *relname = dot ? dot + 1 : full;
	char	   *schema;
	Oid			nsp;

	if (quiet && !names_valid(relname, strlen(relname), NAMES_MAX_TABLE_LEN))
		return InvalidOid;
	names_check_table(relname, strlen(relname));
	if (dot == NULL)
		return catalog_resolve_unqualified(relname);
	*dot = '\0';
	schema = catalog_schema_name(full);
	/* like schema.t in SQL: needs USAGE on the schema (42501 otherwise) */
	nsp = LookupExplicitNamespace(schema, true);
	return OidIsValid(nsp) ? get_relname_relid(relname, nsp) : InvalidOid;
}

/*
 * catalog_lock locks t's storage (AccessShareLock, until the end of the
 * transaction); false when taking the lock let in an invalidation of t
 * (the table was dropped or changed while this call waited)
 */
static bool
catalog_lock(OtsTable *t)
{
	Oid			data_oid = t->data_oid;

	LockRelationOid(data_oid, AccessShareLock);
	return t->valid && t->data_oid == data_oid;
}

/*
 * catalog_find resolves a table-name argument; NULL when no ots table has
 * that name, or (quietly) when the name is not a valid one.  With lock, the
 * storage table is locked (AccessShareLock, until the end of the
 * transaction) and the answer holds for that lock: when taking it let in
 * an invalidation (the table was dropped or changed while this call
 * waited), the name is resolved and loaded again.
 */
static OtsTable *
catalog_find(text *name, bool quiet, bool lock)
{
	for (;;)
	{
		Oid			view_oid = catalog_resolve(name, quiet);
		OtsTable   *t = OidIsValid(view_oid) ? catalog_get(view_oid) : NULL;

		if (t == NULL || !lock || catalog_lock(t))
			return t;
	}
}

OtsTable *
catalog_lookup(text *name)
{
	OtsTable   *t = catalog_find(name, false, true);

	if (t == NULL)
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	return t;
}

OtsTable *
catalog_lookup_quiet(text *name)
{
	return catalog_find(name, true, true);
}

OtsTable *
catalog_lookup_by_view_oid(Oid view_oid)
{
	return catalog_get(view_oid);
}

OtsTable *
catalog_lookup_view(Oid view_oid)
{
	for (;;)
	{
		OtsTable   *t = catalog_get(view_oid);

		if (t == NULL)
			ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
		if (catalog_lock(t))
			return t;
	}
}

OtsTable *
catalog_lookup_by_data_oid(Oid data_oid)
{
	DataOidEntry *e;

	e = cache_find(&tables_by_data, &data_oid);
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
		char	   *relname = storage_table_of(get_rel_name(data_oid), STORAGE_SUFFIX);

		if (relname != NULL)
		{
			Oid			view_oid = get_relname_relid(relname, get_rel_namespace(data_oid));

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
		/* DDL takes its own locks: locking here would deadlock two deletes */
		OtsTable   *t = catalog_find(name, false, false);

		if (t == NULL)
			ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");

		schema = t->schema_name;
		relname = t->table_name;
	}
	else
	{
		char	   *full = text_to_cstring(name);
		char	   *dot = strrchr(full, '.');

		Oid			nsp;

		relname = dot ? dot + 1 : full;
		names_check_table(relname, strlen(relname));
		if (dot == NULL)
			nsp = RangeVarGetCreationNamespace(makeRangeVar(NULL, relname, -1));
		else
		{
			*dot = '\0';
			schema = catalog_schema_name(full);
			nsp = strcmp(schema, "pg_temp") == 0 ? InvalidOid : get_namespace_oid(schema, true);
			if (!OidIsValid(nsp) && strcmp(schema, "pg_temp") != 0)
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_SCHEMA),
						 errmsg("schema \"%s\" does not exist", schema)));
		}
		/*
		 * Temporary tables would vanish at session end behind ots's back
		 * (metadata, jobs and counters left to whichever session next gets
		 * that temporary schema), and other sessions, purge among them,
		 * cannot read them.
		 */
		if (!OidIsValid(nsp) || isAnyTempNamespace(nsp))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("ots tables cannot be created in a temporary schema"),
					 errdetail("ots tables cannot be temporary.")));
		schema = get_namespace_name(nsp);
	}
	values[0] = DirectFunctionCall1(namein, CStringGetDatum(schema));
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(relname));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

/*
 * ots_invalidate_table makes every backend drop its cached metadata of the
 * table stored in "storage" at the next command (after commit).  Only the
 * table's owner may.
 */
Datum
ots_invalidate_table(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);

	if (!catalog_owns(relid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s", get_rel_name(relid) ? get_rel_name(relid) : "?")));
	CacheInvalidateRelcacheByRelid(relid);
	PG_RETURN_VOID();
}

/*
 * catalog_owns: does the current user own the relation (or is a member of
 * its owner)?  false when the relation does not exist.
 */
bool
catalog_owns(Oid relid)
{
	Oid			owner = asrole_owner(relid);

	return OidIsValid(owner) && has_privs_of_role(GetUserId(), owner);
}

OtsTable *
catalog_lookup_owned(const char *schema, const char *table)
{
	Oid			data_oid = storage_oid(get_namespace_oid(schema, true), table);
	OtsTable   *t = OidIsValid(data_oid) ? catalog_lookup_by_data_oid(data_oid) : NULL;

	if (t == NULL)
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	if (!catalog_owns(t->data_oid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of ots table %s", quote_qualified_identifier(schema, table))));
	return t;
}

/* catalog_has_any_privilege: has the current user any privilege on the relation? */
static bool
catalog_has_any_privilege(Oid relid)
{
	bool		missing = false;

	return OidIsValid(relid) &&
		pg_class_aclmask_ext(relid, GetUserId(), ACL_ALL_RIGHTS_RELATION, ACLMASK_ANY,
							 &missing) != 0 && !missing;
}

/*
 * catalog_may_see is the rule of what ots shows a role of an ots table
 * (ots.tables, ots.stats, ots.list_table): the table's owner sees it, and
 * so does a role with USAGE on its schema and some privilege on its view
 * or its storage table.
 */
bool
catalog_may_see(Oid nsp, const char *table_name)
{
	Oid			data_oid = storage_oid(nsp, table_name);

	if (OidIsValid(data_oid) && catalog_owns(data_oid))
		return true;
	return pg_namespace_aclcheck(nsp, GetUserId(), ACL_USAGE) == ACLCHECK_OK &&
		(catalog_has_any_privilege(data_oid) ||
		 catalog_has_any_privilege(get_relname_relid(table_name, nsp)));
}

/*
 * catalog_may_see_storage is catalog_may_see for a storage table's (or
 * chunk relation's) OID; a superuser may see any, also the leftovers of a
 * storage that is gone
 */
bool
catalog_may_see_storage(Oid data_oid)
{
	char	   *relname;

	if (superuser())
		return true;
	relname = storage_table_of(get_rel_name(data_oid), STORAGE_SUFFIX);
	if (relname == NULL)
		relname = storage_table_of(get_rel_name(data_oid), STORAGE_CHUNK_SUFFIX);
	return relname != NULL && catalog_may_see(get_rel_namespace(data_oid), relname);
}

PG_FUNCTION_INFO_V1(ots_table_visible);
PG_FUNCTION_INFO_V1(ots_table_problem);

/*
 * ots_table_visible is ots.table_visible(schema_name, table_name), the row
 * filter of ots.tables and ots.purge_stats: catalog_may_see by names.
 */
Datum
ots_table_visible(PG_FUNCTION_ARGS)
{
	Oid			nsp = get_namespace_oid(NameStr(*PG_GETARG_NAME(0)), true);

	PG_RETURN_BOOL(OidIsValid(nsp) && catalog_may_see(nsp, NameStr(*PG_GETARG_NAME(1))));
}

/* what catalog_table_load found: the table, or nothing (not whole) */
typedef struct TableLoad
{
	Oid			view_oid;
	bool		loaded;
} TableLoad;

static bool
catalog_table_load(void *arg)
{
	TableLoad  *load = arg;

	load->loaded = catalog_get(load->view_oid) != NULL;
	return true;
}

static bool
catalog_catch_damage(int sqlerrcode)
{
	return sqlerrcode == ERRCODE_DATA_CORRUPTED;
}

/*
 * ots_table_problem is ots.table_problem(schema_name, table_name): why
 * registered ots table schema.table_name does not load, or NULL when it
 * does: it is not whole (its view, storage or primary key missing: a
 * restore did not make all of it, or a role made only its storage and
 * comment), or damaged (the error a load raises, caught).  For the calls
 * that act on every table a role owns, which go on past such a table; the
 * caller must own it (42501), as only its owner may see all of that.
 */
Datum
ots_table_problem(PG_FUNCTION_ARGS)
{
	Oid			nsp = get_namespace_oid(NameStr(*PG_GETARG_NAME(0)), true);
	Oid			view_oid = OidIsValid(nsp) ? get_relname_relid(NameStr(*PG_GETARG_NAME(1)), nsp) : InvalidOid;
	TableLoad	load = {view_oid, false};
	ErrorData  *error;
	bool		kept;

	if (!catalog_owns(storage_oid(nsp, NameStr(*PG_GETARG_NAME(1)))))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of ots table %s",
						quote_qualified_identifier(NameStr(*PG_GETARG_NAME(0)), NameStr(*PG_GETARG_NAME(1))))));
	if (get_rel_relkind(view_oid) != RELKIND_VIEW)
		PG_RETURN_TEXT_P(cstring_to_text("it is not whole: it has no view (a restore that did not finish?)"));
	error = subxact_run(catalog_table_load, &load, catalog_catch_damage, &kept);
	if (error != NULL)
		PG_RETURN_TEXT_P(cstring_to_text(error->message));
	if (!load.loaded)
		PG_RETURN_TEXT_P(cstring_to_text("it is not whole: its storage or the storage's primary key is missing (a restore that did not finish?)"));
	PG_RETURN_NULL();
}
