/*-------------------------------------------------------------------------
 * src/ddl/guard.c
 *	  What the storage guard (src/ddl/ddl_guard.c and its rules,
 *	  guard_leaf.c, guard_publication.c, guard_owner.c) knows of a
 *	  relation: whether it is part of a registered ots table, and which
 *	  part (guard_kind: storage, leaf, view, sequence, chunk relation); and
 *	  how the guard's errors name it and refuse.
 *
 * Metadata is read directly (not through SQL), so neither the caller's
 * privileges on ots.tables nor row-level security on it matter.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_trigger.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "ddl/guard.h"
#include "meta/storage.h"

/*
 * guard_catalog_scan: of the rows of ots catalog table catalog in schema
 * nsp (its schema_name column) whose column is value, the names in column
 * first (into *first) and, when second is set, in column second (into
 * *second, NULL where null or when the catalog has no such column), read
 * directly with the latest snapshot: neither the caller's privileges nor
 * row-level security on the catalog matter (OWNER TO runs with
 * row_security off in a restore), and a table being repaired need not
 * load.  Nothing when the catalog or column does not exist (yet: an older
 * version's).
 */
static void
guard_catalog_scan(const char *catalog, Oid nsp, const char *column, const char *value,
				   const char *first, List **first_out, const char *second, List **second_out)
{
	Oid			ots_nsp = get_namespace_oid("ots", true);
	Oid			relid = OidIsValid(ots_nsp) ? get_relname_relid(catalog, ots_nsp) : InvalidOid;
	char	   *nspname = get_namespace_name(nsp);
	AttrNumber	attno = OidIsValid(relid) ? get_attnum(relid, column) : InvalidAttrNumber;
	Relation	rel;
	ScanKeyData keys[2];
	SysScanDesc scan;
	Snapshot	snapshot;
	NameData	schema_name;
	NameData	name;
	HeapTuple	tup;
	Oid			pkey;

	if (attno == InvalidAttrNumber || nspname == NULL || strlen(value) >= NAMEDATALEN)
		return;
	namestrcpy(&schema_name, nspname);
	namestrcpy(&name, value);
	rel = table_open(relid, AccessShareLock);
	ScanKeyInit(&keys[0], get_attnum(relid, "schema_name"), BTEqualStrategyNumber, F_NAMEEQ,
				NameGetDatum(&schema_name));
	ScanKeyInit(&keys[1], attno, BTEqualStrategyNumber, F_NAMEEQ, NameGetDatum(&name));
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	/* ots.tables' primary key (schema_name, table_name) serves a look-up by name */
	pkey = strcmp(catalog, "tables") == 0 && strcmp(column, "table_name") == 0 ?
		RelationGetPrimaryKeyIndex(rel) : InvalidOid;
	scan = systable_beginscan(rel, pkey, OidIsValid(pkey), snapshot, 2, keys);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, get_attnum(relid, first), RelationGetDescr(rel), &isnull);

		if (!isnull)
			*first_out = lappend(*first_out, pstrdup(NameStr(*DatumGetName(d))));
		if (second_out != NULL)
		{
			AttrNumber	second_attno = get_attnum(relid, second);

			d = second_attno != InvalidAttrNumber ?
				heap_getattr(tup, second_attno, RelationGetDescr(rel), &isnull) : (Datum) 0;
			*second_out = lappend(*second_out, second_attno == InvalidAttrNumber || isnull ? NULL :
								  pstrdup(NameStr(*DatumGetName(d))));
		}
	}
	systable_endscan(scan);
	UnregisterSnapshot(snapshot);
	table_close(rel, AccessShareLock);
}

/*
 * guard_tables_where: the names of the rows of ots.tables in schema nsp
 * whose column (table_name or index_of) is value (guard_catalog_scan);
 * none when ots.tables has no such column (0.1.0's has no index_of)
 */
List *
guard_tables_where(Oid nsp, const char *column, const char *value, List **index_of_out)
{
	List	   *names = NIL;

	guard_catalog_scan("tables", nsp, column, value, "table_name", &names, "index_of", index_of_out);
	return names;
}

/*
 * guard_search_storages: the storage names (ots.search_indexes.storage_name)
 * of the search indexes of table table_name in schema nsp (guard_catalog_scan);
 * none before 0.3.0, which made ots.search_indexes
 */
List *
guard_search_storages(Oid nsp, const char *table_name)
{
	List	   *names = NIL;

	guard_catalog_scan("search_indexes", nsp, "table_name", table_name, "storage_name", &names, NULL, NULL);
	return names;
}

/* guard_registered: does ots.tables hold the table (schema nsp, name)? */
static bool
guard_registered(Oid nsp, const char *table_name)
{
	return guard_tables_where(nsp, "table_name", table_name, NULL) != NIL;
}

/*
 * guard_part_of: is relid, named as a part of ots table table beside its
 * storage (in relid's schema), a part of that registered table: has it the
 * storage's owner (storage_is_part)?
 */
static bool
guard_part_of(Oid relid, const char *table)
{
	Oid			nsp = get_rel_namespace(relid);

	return storage_is_part(relid, storage_oid(nsp, table)) && guard_registered(nsp, table);
}

/* guard_kind: what the relation is to ots (GUARD_NONE for InvalidOid) */
GuardKind
guard_kind(Oid relid)
{
	char		relkind;
	char	   *relname;
	char	   *table;

	if (!OidIsValid(relid) || (relname = get_rel_name(relid)) == NULL)
		return GUARD_NONE;
	relkind = get_rel_relkind(relid);
	if (relkind == RELKIND_VIEW)
		return guard_part_of(relid, relname) ? GUARD_VIEW : GUARD_NONE;
	if (relkind == RELKIND_SEQUENCE &&
		(table = storage_table_of(relname, STORAGE_SEQUENCE_SUFFIX)) != NULL)
		return guard_part_of(relid, table) ? GUARD_SEQUENCE : GUARD_NONE;
	if (relkind == RELKIND_RELATION && !get_rel_relispartition(relid) &&
		(table = storage_table_of(relname, STORAGE_CHUNK_SUFFIX)) != NULL)
		return guard_part_of(relid, table) ? GUARD_CHUNK : GUARD_NONE;
	if (relkind == RELKIND_PARTITIONED_TABLE &&
		(table = storage_table_of(relname, STORAGE_SUFFIX)) != NULL &&
		guard_registered(get_rel_namespace(relid), table))
		return GUARD_STORAGE;
	if (get_rel_relispartition(relid) &&
		guard_kind(get_partition_parent(relid, true)) == GUARD_STORAGE)
		return GUARD_LEAF;
	return GUARD_NONE;
}

bool
guard_is_storage(Oid relid)
{
	GuardKind	kind = guard_kind(relid);

	return kind == GUARD_STORAGE || kind == GUARD_LEAF || kind == GUARD_CHUNK;
}

/* guard_relid resolves a statement's relation without locking or erroring */
Oid
guard_relid(RangeVar *rv)
{
	return rv == NULL ? InvalidOid : RangeVarGetRelid(rv, NoLock, true);
}

/* guard_kind_of resolves a statement's relation into *relid and says what it is to ots */
GuardKind
guard_kind_of(RangeVar *rv, Oid *relid)
{
	*relid = guard_relid(rv);
	return guard_kind(*relid);
}

/* guard_describe: how errors name a guarded relation */
char *
guard_describe(Oid relid, GuardKind kind)
{
	return psprintf("%s \"%s.%s\"", kind == GUARD_VIEW ? "ots table view" :
					kind == GUARD_SEQUENCE ? "ots sequence" :
					kind == GUARD_CHUNK ? "ots chunk relation" : "ots storage table",
					get_namespace_name(get_rel_namespace(relid)), get_rel_name(relid));
}

/*
 * guard_change: "cannot <what> <relation>", or what with the relation put
 * in place of its %s
 */
static char *
guard_change(Oid relid, GuardKind kind, const char *what)
{
	if (strstr(what, "%s") != NULL)
		return psprintf(what, guard_describe(relid, kind));
	return psprintf("%s %s", what, guard_describe(relid, kind));
}

/* guard_raise raises one of the guard's errors */
void
guard_raise(const char *message, const char *detail, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg_internal("%s", message),
			 errdetail_internal("%s", detail),
			 errhint("%s", hint)));
}

/* guard_refuse raises the error for a change ots's writes would bypass */
void
guard_refuse(Oid relid, GuardKind kind, const char *what)
{
	guard_raise(psprintf("cannot %s", guard_change(relid, kind, what)),
				"ots writes rows through its own functions, straight into the storage: they do not run triggers or rules and do not apply defaults or constraints.",
				"Check values before writing them, and keep other columns, triggers and constraints on tables of your own.");
}

/* guard_refuse_rename raises the error for renaming or moving an ots table */
void
guard_refuse_rename(Oid relid, GuardKind kind, const char *what)
{
	guard_raise(psprintf("cannot %s", guard_change(relid, kind, what)),
				"ots finds an ots table's view, storage and key columns by name.",
				"Create a new ots table and copy the rows into it.");
}

/* guard_refuse_access_method raises the error for a leaf off the ots access method */
void
guard_refuse_access_method(Oid relid, GuardKind kind, const char *what)
{
	guard_raise(psprintf("cannot %s", guard_change(relid, kind, what)),
				"Every change of a row of ots storage passes the write point of the ots table access method; a leaf on another access method would escape it.",
				"Create leaves with USING ots (pg_dump sets default_table_access_method = ots).");
}

/*
 * guard_has_triggers: has the relation triggers (user triggers only,
 * unless internal_too: those of foreign keys)?
 */
bool
guard_has_triggers(Oid relid, bool internal_too)
{
	Relation	rel = table_open(TriggerRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	bool		found = false;

	ScanKeyInit(&key, Anum_pg_trigger_tgrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, TriggerRelidNameIndexId, true, NULL, 1, &key);
	while (!found && HeapTupleIsValid(tup = systable_getnext(scan)))
		found = internal_too || !((Form_pg_trigger) GETSTRUCT(tup))->tgisinternal;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * guard_index_base: the storage of the table whose index has storage
 * relid, or InvalidOid when relid is no index's storage
 */
Oid
guard_index_base(Oid relid)
{
	char	   *name = storage_table_of(get_rel_name(relid), STORAGE_SUFFIX);
	List	   *index_of = NIL;

	if (name == NULL)
		return InvalidOid;
	(void) guard_tables_where(get_rel_namespace(relid), "table_name", name, &index_of);
	if (index_of == NIL || linitial(index_of) == NULL)
		return InvalidOid;
	return storage_oid(get_rel_namespace(relid), linitial(index_of));
}
