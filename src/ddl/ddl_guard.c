/*-------------------------------------------------------------------------
 * src/ddl/ddl_guard.c
 *	  The event trigger that keeps ots storage in the shape ots.create_table
 *	  gave it (ots.storage_guard, at ddl_command_start).
 *
 * ots writes rows through its own functions, straight into the leaves:
 * they do not run triggers or rules and do not apply defaults or
 * constraints, and ots finds a table's view and storage by name.  So DDL
 * that would add such things to an ots table, or rename or move it, is
 * refused before anything changes, for every role (superusers too):
 *	 - on the storage s."t$data" (registered in ots.tables) and each of its
 *	   partitions (leaves): triggers, rules, adding, dropping or altering
 *	   columns (type, default, NOT NULL, identity, generated), constraints
 *	   other than the primary key, dropping the primary key, enabling
 *	   triggers or rules, inheritance, typed-table changes, an access
 *	   method other than ots, renaming columns, foreign keys of other
 *	   tables referencing it;
 *	 - partitions that are not shaped as ots makes them, on the ots table
 *	   access method, whose write point every row change passes (ATTACH
 *	   PARTITION and CREATE TABLE ... PARTITION OF check the new leaf);
 *	 - the storage becoming a partition of another table;
 *	 - renaming or moving the storage, the view or the sequence (leaves may be);
 *	 - on the view s.t: triggers (but ots's own write trigger, which
 *	   pg_restore re-creates), rules, column defaults;
 *	 - a partition, the view, the sequence s."t$seq" or the stream
 *	   ("t$log", "t$rec") given another owner
 *	   than the storage's: OWNER TO on the storage gives them its new owner
 *	   first (guard_propagate_owner), so all parts keep one owner;
 *	 - a comment on the storage: it carries the table's definition, which
 *	   ots writes (catalog_write.c).  A comment carrying one, given to
 *	   storage not registered yet (a restore writes it right after the
 *	   storage), registers its table (catalog_write_restore);
 *	 - DDL that changes which rows a table has below the write point:
 *	   ATTACH PARTITION, DETACH PARTITION and DROP of a leaf hand the rows
 *	   to the write point, which keeps the table's indexes, or are refused
 *	   where that cannot be exact (a table with a stream, an index's own
 *	   storage, DETACH ... CONCURRENTLY, an unlogged leaf);
 *	 - publications of what a subscriber's ots writes itself: an index's
 *	   storage, ots's catalog, schemas holding either, FOR ALL TABLES.
 * Everything else passes: row-level security, storage options,
 * statistics, storage and compression of columns, replica identity,
 * clustering, tablespace, validating or dropping other constraints,
 * disabling triggers, indexes, policies, other comments, grants.
 * ots's own DDL passes: create_table runs before the table's row in
 * ots.tables exists, the rest of it (indexes, DROP) is allowed, and ots's
 * install and upgrade scripts are not checked.
 *
 * Metadata is read directly (not through SQL), so neither the caller's
 * privileges on ots.tables nor row-level security on it matter.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_publication.h"
#include "catalog/pg_trigger.h"
#include "commands/comment.h"
#include "commands/defrem.h"
#include "commands/event_trigger.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "asrole.h"
#include "meta/catalog.h"
#include "ddl/ddl_guard.h"
#include "writepoint/restore.h"
#include "meta/storage.h"
#include "writepoint/storage_write.h"

/* what a relation is to ots */
typedef enum GuardKind
{
	GUARD_NONE,					/* not part of an ots table */
	GUARD_STORAGE,				/* s."t$data" */
	GUARD_LEAF,					/* a partition of s."t$data" */
	GUARD_VIEW,					/* s.t */
	GUARD_SEQUENCE				/* s."t$seq" */
} GuardKind;


/* set while guard_propagate_owner runs its own OWNER TO statements */
static bool guard_propagating = false;

static bool guard_registered(Oid nsp, const char *table_name);
static List *guard_tables_where(Oid nsp, const char *column, const char *value,
								List **index_of_out);
static GuardKind guard_kind(Oid relid);
static Oid	guard_relid(RangeVar *rv);
static void guard_raise(const char *message, const char *detail, const char *hint);
static void guard_refuse(Oid relid, GuardKind kind, const char *what);
static void guard_refuse_access_method(Oid relid, GuardKind kind, const char *what);
static void guard_refuse_rename(Oid relid, GuardKind kind, const char *what);
static void guard_refuse_attach(Oid storage, Oid part, const char *why);
static bool guard_has_triggers(Oid relid, bool internal_too);
static void guard_check_attach(Oid storage, Oid part);
static void guard_check_references(List *elts);
static void guard_check_constraint_refs(Constraint *con);
static const char *guard_alter_refusal(AlterTableCmd *cmd, Oid relid, GuardKind kind);
static void guard_alter_table(AlterTableStmt *stmt);
static Oid	guard_create_table(CreateStmt *stmt, bool foreign);
static void guard_create_trigger(CreateTrigStmt *stmt);
static void guard_publish_table(Oid relid);

PG_FUNCTION_INFO_V1(ots_storage_guard);

/*
 * guard_tables_where: the names of the rows of ots.tables in schema nsp
 * whose column (table_name or index_of) is value, read directly with the
 * latest snapshot (neither the caller's privileges nor RLS on ots.tables
 * matter, and a table being repaired need not load); none when ots.tables
 * does not exist (yet), or has no such column (0.1.0's has no index_of)
 */
static List *
guard_tables_where(Oid nsp, const char *column, const char *value, List **index_of_out)
{
	Oid			ots_nsp = get_namespace_oid("ots", true);
	Oid			tables = OidIsValid(ots_nsp) ? get_relname_relid("tables", ots_nsp) : InvalidOid;
	char	   *nspname = get_namespace_name(nsp);
	AttrNumber	attno = OidIsValid(tables) ? get_attnum(tables, column) : InvalidAttrNumber;
	Relation	rel;
	ScanKeyData keys[2];
	SysScanDesc scan;
	Snapshot	snapshot;
	NameData	schema_name;
	NameData	name;
	HeapTuple	tup;
	Oid			pkey;
	List	   *names = NIL;

	if (attno == InvalidAttrNumber || nspname == NULL || strlen(value) >= NAMEDATALEN)
		return NIL;
	namestrcpy(&schema_name, nspname);
	namestrcpy(&name, value);
	rel = table_open(tables, AccessShareLock);
	ScanKeyInit(&keys[0], get_attnum(tables, "schema_name"), BTEqualStrategyNumber, F_NAMEEQ,
				NameGetDatum(&schema_name));
	ScanKeyInit(&keys[1], attno, BTEqualStrategyNumber, F_NAMEEQ, NameGetDatum(&name));
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	/* the primary key (schema_name, table_name) serves a look-up by name */
	pkey = strcmp(column, "table_name") == 0 ? RelationGetPrimaryKeyIndex(rel) : InvalidOid;
	scan = systable_beginscan(rel, pkey, OidIsValid(pkey), snapshot, 2, keys);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, get_attnum(tables, "table_name"), RelationGetDescr(rel),
									 &isnull);

		if (!isnull)
			names = lappend(names, pstrdup(NameStr(*DatumGetName(d))));
		if (index_of_out != NULL)
		{
			AttrNumber	index_of = get_attnum(tables, "index_of");

			d = index_of != InvalidAttrNumber ?
				heap_getattr(tup, index_of, RelationGetDescr(rel), &isnull) : (Datum) 0;
			*index_of_out = lappend(*index_of_out, index_of == InvalidAttrNumber || isnull ? NULL :
									pstrdup(NameStr(*DatumGetName(d))));
		}
	}
	systable_endscan(scan);
	UnregisterSnapshot(snapshot);
	table_close(rel, AccessShareLock);
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
static GuardKind
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
ddl_guard_is_storage(Oid relid)
{
	GuardKind	kind = guard_kind(relid);

	return kind == GUARD_STORAGE || kind == GUARD_LEAF;
}

/* guard_relid resolves a statement's relation without locking or erroring */
static Oid
guard_relid(RangeVar *rv)
{
	return rv == NULL ? InvalidOid : RangeVarGetRelid(rv, NoLock, true);
}

/*
 * guard_attach_lock takes the locks ATTACH PARTITION takes, in its order
 * (the storage, then the partition it resolves), before the guard checks
 * the partition: ATTACH then resolves the name without waiting, so the name
 * cannot come to mean another table in between, and the row check's lock
 * comes in the same order as the statement's
 */
static Oid
guard_attach_lock(Oid storage, RangeVar *part)
{
	LockRelationOid(storage, ShareUpdateExclusiveLock);
	return RangeVarGetRelid(part, AccessExclusiveLock, true);
}

/* guard_kind_of resolves a statement's relation into *relid and says what it is to ots */
static GuardKind
guard_kind_of(RangeVar *rv, Oid *relid)
{
	*relid = guard_relid(rv);
	return guard_kind(*relid);
}

/* guard_describe: how errors name a guarded relation */
static char *
guard_describe(Oid relid, GuardKind kind)
{
	return psprintf("%s \"%s.%s\"", kind == GUARD_VIEW ? "ots table view" :
					kind == GUARD_SEQUENCE ? "ots sequence" : "ots storage table",
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
static void
guard_raise(const char *message, const char *detail, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg_internal("%s", message),
			 errdetail_internal("%s", detail),
			 errhint("%s", hint)));
}

/* guard_refuse raises the error for a change ots's writes would bypass */
static void
guard_refuse(Oid relid, GuardKind kind, const char *what)
{
	guard_raise(psprintf("cannot %s", guard_change(relid, kind, what)),
				"ots writes rows through its own functions, straight into the storage: they do not run triggers or rules and do not apply defaults or constraints.",
				"Check values before writing them, and keep other columns, triggers and constraints on tables of your own.");
}

/* guard_refuse_rename raises the error for renaming or moving an ots table */
static void
guard_refuse_rename(Oid relid, GuardKind kind, const char *what)
{
	guard_raise(psprintf("cannot %s", guard_change(relid, kind, what)),
				"ots finds an ots table's view, storage and key columns by name.",
				"Create a new ots table and copy the rows into it.");
}

/* guard_refuse_access_method raises the error for a leaf off the ots access method */
static void
guard_refuse_access_method(Oid relid, GuardKind kind, const char *what)
{
	guard_raise(psprintf("cannot %s", guard_change(relid, kind, what)),
				"Every change of a row of ots storage passes the write point of the ots table access method; a leaf on another access method would escape it.",
				"Create leaves with USING ots (pg_dump sets default_table_access_method = ots).");
}

/* guard_refuse_attach raises the error for a partition ots did not shape */
static void
guard_refuse_attach(Oid storage, Oid part, const char *why)
{
	guard_raise(psprintf("cannot attach \"%s\" to %s", get_rel_name(part),
						 guard_describe(storage, GUARD_STORAGE)),
				why,
				"Attach a partition ots created, or a table made with CREATE TABLE ... (LIKE ...) USING ots and nothing added.");
}

/*
 * guard_has_triggers: has the relation triggers (user triggers only,
 * unless internal_too: those of foreign keys)?
 */
static bool
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

/* guard_relam: the table access method of relation relid */
static Oid
guard_relam(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			am = InvalidOid;

	if (HeapTupleIsValid(tup))
	{
		am = ((Form_pg_class) GETSTRUCT(tup))->relam;
		ReleaseSysCache(tup);
	}
	return am;
}

/*
 * guard_check_rows: the rows of part join registered storage below the
 * write point (ATTACH, SET ACCESS METHOD ots), so each must be a row ots
 * could have written; those of a table ATTACH makes a leaf (join) reach
 * the write point too, which writes their index entries
 * (storage_write_rows_join)
 */
static void
guard_check_rows(Oid storage, Oid part, bool join)
{
	const OtsTable *t = catalog_lookup_by_data_oid(storage);

	if (t == NULL)
		return;
	if (join)
		storage_write_rows_join(part, t);
	else
		storage_write_check_rows(part, t);
}

/*
 * guard_refuse_rows raises the error for DDL that would change which rows
 * ots table t (or index) has below the write point, where its secondary
 * indexes and its stream follow its rows
 */
static void
guard_refuse_rows(const OtsTable *t, const char *what, const char *hint)
{
	char	   *name = quote_qualified_identifier(t->schema_name, t->table_name);

	if (t->is_index)
		guard_raise(psprintf("cannot %s of the storage of ots index %s", what, name),
					"An index holds an entry for each row of its table; ots alone writes them, as the rows change.",
					"Delete the index and create it again (ots.delete_index, ots.create_index).");
	guard_raise(psprintf("cannot %s of ots table %s, which has %s", what, name,
						 t->stream_enabled ? "a stream" : "secondary indexes"),
				t->stream_enabled ?
				"A stream's shards are the table's partitions, and it records every change of the table's rows at the write point, which this statement bypasses." :
				"Its indexes follow its rows at the write point, which this statement bypasses.",
				hint);
}

/*
 * guard_keeps_rows: does t keep something that follows its rows at the
 * write point (secondary indexes, a stream), or is it an index?
 */
static bool
guard_keeps_rows(const OtsTable *t)
{
	return t != NULL && (t->is_index || t->nindexes > 0 || t->stream_enabled);
}

/*
 * guard_leaf_leaving: the rows of leaf are about to leave the storage of
 * its table below the write point (DETACH PARTITION, DROP of the leaf):
 * with the statement's locks taken first (storage_lock on the storage, in
 * the statement's order), refused on an index's storage and on a table
 * with a stream (a stream's shards are the partitions), and handed to the
 * write point as leaving on a table with indexes, which removes their
 * entries in this transaction (storage_write_rows_leave).
 */
static void
guard_leaf_leaving(Oid storage, Oid leaf, LOCKMODE storage_lock, const char *what)
{
	const OtsTable *t;

	LockRelationOid(storage, storage_lock);
	LockRelationOid(leaf, AccessExclusiveLock);
	t = catalog_lookup_by_data_oid(storage);
	if (t == NULL || get_partition_parent(leaf, true) != storage)
		return;
	if (t->is_index || t->stream_enabled)
		guard_refuse_rows(t, what,
						  "Disable the table's stream first (ots.update_table ... stream_enabled => false), or delete its rows and keep the partition.");
	if (t->nindexes > 0)
		storage_write_rows_leave(leaf, t);
}

/*
 * guard_detach: DETACH PARTITION of a leaf of registered storage.  Its
 * rows' index entries go with it (guard_leaf_leaving); CONCURRENTLY, which
 * takes the rows away in two transactions while other sessions still see
 * and write them, is refused where the table keeps anything by its rows.
 */
static void
guard_detach(Oid storage, PartitionCmd *cmd, bool finalize)
{
	/* the statement's lock on the storage first: no lock is upgraded later */
	LOCKMODE	lock = cmd->concurrent || finalize ? ShareUpdateExclusiveLock : AccessExclusiveLock;
	const OtsTable *t;
	Oid			leaf;

	LockRelationOid(storage, lock);
	t = catalog_lookup_by_data_oid(storage);
	if (t == NULL)
		return;
	if (cmd->concurrent && guard_keeps_rows(t))
		guard_refuse_rows(t, "detach concurrently a partition",
						  "Detach it without CONCURRENTLY, which removes its rows' index entries with it.");
	leaf = RangeVarGetRelid(cmd->name, NoLock, true);
	if (OidIsValid(leaf))
		guard_leaf_leaving(storage, leaf, lock, "detach a partition");
}

/*
 * guard_check_unlogged refuses an unlogged leaf of storage whose table
 * keeps anything by its rows: a crash empties an unlogged table below the
 * write point (and a standby has none of its rows), while its indexes and
 * its stream keep theirs.
 */
static void
guard_check_unlogged(Oid storage)
{
	const OtsTable *t = catalog_lookup_by_data_oid(storage);

	if (guard_keeps_rows(t))
		guard_refuse_rows(t, "make an unlogged partition",
						  "Keep its partitions logged, or delete its indexes and disable its stream first.");
}

/*
 * guard_check_attach refuses to attach a table to ots storage unless it is
 * shaped as ots makes leaves: a plain table on the ots access method,
 * without defaults, identity or generated columns, constraints (but a
 * primary key), triggers or rules, and holding only rows ots could have
 * written (guard_check_rows).  PostgreSQL itself checks that its columns
 * are the storage's (names, types, collations, NOT NULL).
 */
static void
guard_check_attach(Oid storage, Oid part)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(part));
	Form_pg_class form;
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;

	if (!HeapTupleIsValid(tup))
		return;					/* PostgreSQL reports it */
	form = (Form_pg_class) GETSTRUCT(tup);
	if (form->relkind != RELKIND_RELATION)
		guard_refuse_attach(storage, part, "It is not a plain table.");
	if (form->relam != storage_am_oid())
		guard_refuse_attach(storage, part,
							"It does not use the ots table access method.");
	if (form->relhasrules)
		guard_refuse_attach(storage, part, "It has rules.");
	if (form->relpersistence == RELPERSISTENCE_UNLOGGED)
		guard_check_unlogged(storage);
	ReleaseSysCache(tup);
	{
		const OtsTable *t = catalog_lookup_by_data_oid(storage);

		if (t != NULL && t->is_index)
			guard_refuse_rows(t, "attach a partition", NULL);
	}
	if (guard_has_triggers(part, true))
		guard_refuse_attach(storage, part,
							"It has triggers (its own, or those of a foreign key referencing it).");

	for (AttrNumber a = 1;; a++)
	{
		HeapTuple	atup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(part), Int16GetDatum(a));
		Form_pg_attribute att;

		if (!HeapTupleIsValid(atup))
			break;
		att = (Form_pg_attribute) GETSTRUCT(atup);
		if (!att->attisdropped && (att->atthasdef || att->attidentity || att->attgenerated))
			guard_refuse_attach(storage, part,
								psprintf("Column \"%s\" has a default, or is an identity or generated column.",
										 NameStr(att->attname)));
		ReleaseSysCache(atup);
	}

	rel = table_open(ConstraintRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_constraint_conrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(part));
	scan = systable_beginscan(rel, ConstraintRelidTypidNameIndexId, true, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_constraint con = (Form_pg_constraint) GETSTRUCT(tup);

		if (con->contype != CONSTRAINT_PRIMARY)
			guard_refuse_attach(storage, part,
								psprintf("It has constraint \"%s\".", NameStr(con->conname)));
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	guard_check_rows(storage, part, true);
}

/* ddl_guard_check_partitions: guard_check_attach for each partition of storage */
void
ddl_guard_check_partitions(Oid storage)
{
	ListCell   *lc;

	foreach(lc, find_inheritance_children(storage, AccessShareLock))
		guard_check_attach(storage, lfirst_oid(lc));
}

/* guard_check_constraint_refs refuses a foreign key referencing ots storage */
static void
guard_check_constraint_refs(Constraint *con)
{
	Oid			relid;
	GuardKind	kind;

	if (con == NULL || con->contype != CONSTR_FOREIGN)
		return;
	if ((kind = guard_kind_of(con->pktable, &relid)) != GUARD_NONE)
		guard_refuse(relid, kind, "reference %s in a foreign key");
}

/*
 * guard_check_references walks table elements (column definitions and
 * table constraints) for foreign keys referencing ots storage.
 */
static void
guard_check_references(List *elts)
{
	ListCell   *lc;

	foreach(lc, elts)
	{
		Node	   *elt = lfirst(lc);

		if (IsA(elt, Constraint))
			guard_check_constraint_refs((Constraint *) elt);
		else if (IsA(elt, ColumnDef))
		{
			ListCell   *c;

			foreach(c, ((ColumnDef *) elt)->constraints)
				guard_check_constraint_refs(lfirst(c));
		}
	}
}

/*
 * guard_storage_of: the storage of a guarded relation (itself for the
 * storage, the parent for a leaf, s."t$data" for the view and sequence)
 */
static Oid
guard_storage_of(Oid relid, GuardKind kind)
{
	char	   *name = get_rel_name(relid);

	if (kind == GUARD_STORAGE)
		return relid;
	if (kind == GUARD_LEAF)
		return get_partition_parent(relid, true);
	if (kind == GUARD_SEQUENCE)
		name = storage_table_of(name, STORAGE_SEQUENCE_SUFFIX);
	return storage_oid(get_rel_namespace(relid), name);
}

/*
 * guard_index_owner_statements: the OWNER TO statements that give the
 * secondary indexes of the table whose storage is storage (their storage,
 * partitions and view) the owner role
 */
static List *
guard_index_owner_statements(Oid storage, const char *role)
{
	char	   *table = storage_table_of(get_rel_name(storage), STORAGE_SUFFIX);
	List	   *stmts = NIL;
	ListCell   *lc_index;

	if (table == NULL)
		return NIL;
	foreach(lc_index, guard_tables_where(get_rel_namespace(storage), "index_of", table, NULL))
	{
		Oid			idx = storage_oid(get_rel_namespace(storage), lfirst(lc_index));
		char	   *nsp = get_namespace_name(get_rel_namespace(storage));
		char	   *name = lfirst(lc_index);
		ListCell   *lc;

		if (!OidIsValid(idx))
			continue;

		stmts = lappend(stmts, psprintf("ALTER TABLE %s OWNER TO %s",
										quote_qualified_identifier(nsp, get_rel_name(idx)), role));
		foreach(lc, find_inheritance_children(idx, NoLock))
			stmts = lappend(stmts, psprintf("ALTER TABLE %s OWNER TO %s",
											quote_qualified_identifier(nsp, get_rel_name(lfirst_oid(lc))),
											role));
		if (storage_is_part(get_relname_relid(name, get_rel_namespace(idx)), idx))
			stmts = lappend(stmts, psprintf("ALTER VIEW %s OWNER TO %s",
											quote_qualified_identifier(nsp, name), role));
	}
	return stmts;
}

/*
 * guard_propagate_owner gives the storage's partitions, the relations
 * beside it that are its table's (its view, sequence and stream's:
 * storage_is_part), and its table's secondary indexes, the owner OWNER TO
 * is about to give the storage, by running OWNER TO on each as the current
 * user (so PostgreSQL checks the same rights as for the storage); the
 * statement itself then changes the storage.  It all happens in the
 * statement's transaction, so an error undoes all of it.
 */
static void
guard_propagate_owner(Oid storage, RoleSpec *newowner)
{
	const char *role = quote_identifier(get_rolespec_name(newowner));
	char	   *nsp = get_namespace_name(get_rel_namespace(storage));
	char	   *name = storage_table_of(get_rel_name(storage), STORAGE_SUFFIX);
	List	   *stmts = NIL;
	ListCell   *lc;

	foreach(lc, find_inheritance_children(storage, NoLock))
		stmts = lappend(stmts, psprintf("ALTER TABLE %s OWNER TO %s",
										quote_qualified_identifier(get_namespace_name(get_rel_namespace(lfirst_oid(lc))),
																   get_rel_name(lfirst_oid(lc))),
										role));
	for (int i = 0; i < STORAGE_NAMED_PARTS; i++)
	{
		char	   *part = psprintf("%s%s", name, storage_named_parts[i].suffix);
		Oid			relid = get_relname_relid(part, get_rel_namespace(storage));

		if (storage_is_part(relid, storage))
			stmts = lappend(stmts, psprintf("ALTER %s %s OWNER TO %s",
											get_rel_relkind(relid) == RELKIND_VIEW ? "VIEW" :
											get_rel_relkind(relid) == RELKIND_SEQUENCE ? "SEQUENCE" : "TABLE",
											quote_qualified_identifier(nsp, part), role));
	}
	stmts = list_concat(stmts, guard_index_owner_statements(storage, role));

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	guard_propagating = true;
	PG_TRY();
	{
		foreach(lc, stmts)
			if (SPI_execute(lfirst(lc), false, 0) != SPI_OK_UTILITY)
				elog(ERROR, "could not run \"%s\"", (char *) lfirst(lc));
	}
	PG_FINALLY();
	{
		guard_propagating = false;
	}
	PG_END_TRY();
	SPI_finish();
}

/*
 * guard_index_base: the storage of the table whose index has storage
 * relid, or InvalidOid when relid is no index's storage
 */
static Oid
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

/*
 * guard_change_owner: OWNER TO on the storage carries its parts along;
 * on a part alone it may only give the storage's owner (as pg_restore
 * does), which keeps one owner for all parts.
 */
static const char *
guard_change_owner(AlterTableCmd *cmd, Oid relid, GuardKind kind)
{
	Oid			storage;

	if (guard_propagating)
		return NULL;
	if (kind == GUARD_STORAGE)
	{
		Oid			base = guard_index_base(relid);

		/* an index is its table's owner's: it changes owner with its table only */
		if (OidIsValid(base) && get_rolespec_oid(cmd->newowner, false) != asrole_owner(base))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot change the owner of the storage of ots index %s alone",
							quote_identifier(get_rel_name(relid))),
					 errdetail("A secondary index has the owner of the table it indexes."),
					 errhint("Change the owner of the table's storage table \"%s\", which changes its indexes too.",
							 get_rel_name(base))));
		guard_propagate_owner(relid, cmd->newowner);
		return NULL;
	}
	storage = guard_storage_of(relid, kind);
	if (OidIsValid(storage) &&
		get_rolespec_oid(cmd->newowner, false) == asrole_owner(storage))
		return NULL;
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot change the owner of %s alone", guard_describe(relid, kind)),
			 errdetail("The storage, its partitions, the view and the sequence of an ots table have one owner."),
			 errhint("Change the owner of the storage table \"%s\", which changes all of them, or use REASSIGN OWNED.",
					 OidIsValid(storage) ? get_rel_name(storage) : "?")));
	return NULL;				/* not reached */
}

/*
 * guard_alter_refusal: what an ALTER TABLE subcommand on a guarded
 * relation would do that ots refuses ("add a column to", ...), or NULL
 * when it is allowed.
 */
static const char *
guard_alter_refusal(AlterTableCmd *cmd, Oid relid, GuardKind kind)
{
	switch (cmd->subtype)
	{
		case AT_ChangeOwner:
			return guard_change_owner(cmd, relid, kind);

			/* harmless: ots neither reads nor bypasses these */
		case AT_EnableRowSecurity:
		case AT_DisableRowSecurity:
		case AT_ForceRowSecurity:
		case AT_NoForceRowSecurity:
		case AT_SetRelOptions:
		case AT_ResetRelOptions:
		case AT_ReplaceRelOptions:
		case AT_SetStatistics:
		case AT_SetOptions:
		case AT_ResetOptions:
		case AT_SetStorage:
		case AT_SetCompression:
		case AT_ReplicaIdentity:
		case AT_ClusterOn:
		case AT_DropCluster:
		case AT_SetTableSpace:
		case AT_SetLogged:
		case AT_DropOids:
		case AT_ValidateConstraint:
			/* turning triggers or rules off only stops them running */
		case AT_DisableTrig:
		case AT_DisableTrigAll:
		case AT_DisableTrigUser:
		case AT_DisableRule:
			return NULL;

			/* turning them on is a no-op unless some were left from before */
		case AT_EnableTrig:
		case AT_EnableAlwaysTrig:
		case AT_EnableReplicaTrig:
		case AT_EnableTrigAll:
		case AT_EnableTrigUser:
			return guard_has_triggers(relid, false) ? "enable triggers on" : NULL;
		case AT_EnableRule:
		case AT_EnableAlwaysRule:
		case AT_EnableReplicaRule:
			return "enable rules on";

		case AT_AddConstraint:
			switch (((Constraint *) cmd->def)->contype)
			{
				case CONSTR_PRIMARY:
					/* pg_restore adds it; PostgreSQL refuses a second one */
					return NULL;
				case CONSTR_CHECK:
					return "add a CHECK constraint to";
				case CONSTR_FOREIGN:
					return "add a foreign key to";
				case CONSTR_UNIQUE:
					return "add a UNIQUE constraint to";
				case CONSTR_EXCLUSION:
					return "add an exclusion constraint to";
				default:
					return "add a constraint to";
			}
		case AT_DropConstraint:
			{
				/* constraints left from before may go; the primary key stays */
				Oid			conid = get_relation_constraint_oid(relid, cmd->name, true);
				HeapTuple	tup = SearchSysCache1(CONSTROID, ObjectIdGetDatum(conid));
				bool		primary = false;

				if (HeapTupleIsValid(tup))
				{
					primary = ((Form_pg_constraint) GETSTRUCT(tup))->contype == CONSTRAINT_PRIMARY;
					ReleaseSysCache(tup);
				}
				return primary ? "drop the primary key of" : NULL;
			}
		case AT_AttachPartition:
			/*
			 * a restore attaches the partitions it made (as they were,
			 * empty) before it adds the storage's primary key
			 */
			if (kind == GUARD_STORAGE && catalog_has_primary_key(relid))
				guard_check_attach(relid, guard_attach_lock(relid, ((PartitionCmd *) cmd->def)->name));
			return NULL;
		case AT_DetachPartition:
		case AT_DetachPartitionFinalize:
			if (kind == GUARD_STORAGE)
				guard_detach(relid, (PartitionCmd *) cmd->def,
							 cmd->subtype == AT_DetachPartitionFinalize);
			return NULL;
		case AT_SetUnLogged:
			if (kind == GUARD_LEAF)
				guard_check_unlogged(get_partition_parent(relid, true));
			return NULL;

		case AT_AddColumn:
		case AT_AddColumnRecurse:
		case AT_AddColumnToView:
			return "add a column to";
		case AT_DropColumn:
		case AT_DropColumnRecurse:
			return "drop a column of";
		case AT_AlterColumnType:
			return "change the type of a column of";
		case AT_ColumnDefault:
		case AT_CookedColumnDefault:
			return "change a column default of";
		case AT_SetNotNull:
		case AT_DropNotNull:
		case AT_CheckNotNull:
			return "change NOT NULL of a column of";
		case AT_DropExpression:
		case AT_AddIdentity:
		case AT_SetIdentity:
		case AT_DropIdentity:
			return "change a generated or identity column of";
		case AT_AddInherit:
		case AT_DropInherit:
			return "change the inheritance of";
		case AT_AddOf:
		case AT_DropOf:
			return "change the composite type of";
		case AT_SetAccessMethod:
			/* onto ots is allowed (a leaf restored without it): its rows are checked */
			if (get_table_am_oid(cmd->name, false) == storage_am_oid())
			{
				if (kind == GUARD_LEAF && guard_relam(relid) != storage_am_oid())
				{
					Oid			storage = get_partition_parent(relid, true);

					guard_check_rows(storage, relid, false);
					/* a table of a dump of 0.1.0 (which had no such comment), repaired */
					catalog_write_carry_table(get_namespace_name(get_rel_namespace(storage)),
											  storage_table_of(get_rel_name(storage), STORAGE_SUFFIX));
				}
				return NULL;
			}
			return "give an access method other than ots to";
		default:
			return "run this ALTER TABLE subcommand on";
	}
}

/* guard_alter_table checks each subcommand of ALTER TABLE / VIEW */
static void
guard_alter_table(AlterTableStmt *stmt)
{
	Oid			relid;
	GuardKind	kind = guard_kind_of(stmt->relation, &relid);
	ListCell   *lc;

	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst(lc);
		const char *what;

		/* whatever the table: no foreign key into ots storage ... */
		if (cmd->subtype == AT_AddConstraint)
			guard_check_constraint_refs((Constraint *) cmd->def);
		else if (cmd->subtype == AT_AddColumn)
			guard_check_references(list_make1(cmd->def));
		/* ... and ots storage is a partition of nothing */
		else if (cmd->subtype == AT_AttachPartition && kind != GUARD_STORAGE)
		{
			Oid			part;
			GuardKind	part_kind = guard_kind_of(((PartitionCmd *) cmd->def)->name, &part);

			if (part_kind != GUARD_NONE)
				guard_refuse(part, part_kind, "attach %s to another table");
		}
		if (kind == GUARD_SEQUENCE && cmd->subtype != AT_ChangeOwner)
			continue;			/* ALTER SEQUENCE does not reach ots's use of it */
		if (kind != GUARD_NONE && (what = guard_alter_refusal(cmd, relid, kind)) != NULL)
		{
			if (cmd->subtype == AT_SetAccessMethod)
				guard_refuse_access_method(relid, kind, what);
			else
				guard_refuse(relid, kind, what);
		}
	}
}

/*
 * guard_create_table: no foreign key referencing ots storage, and a
 * partition of ots storage only as ots makes them (no constraints,
 * defaults, sub-partitions or other kinds); returns the storage the new
 * table is a partition of, or InvalidOid.
 */
static Oid
guard_create_table(CreateStmt *stmt, bool foreign)
{
	ListCell   *lc;
	Oid			storage = InvalidOid;

	guard_check_references(stmt->tableElts);
	guard_check_references(stmt->constraints);
	if (stmt->partbound == NULL)
		return InvalidOid;
	foreach(lc, stmt->inhRelations)
	{
		Oid			parent = guard_relid(lfirst(lc));

		if (guard_kind(parent) != GUARD_STORAGE)
			continue;
		storage = parent;
		if (foreign)
			guard_refuse(parent, GUARD_STORAGE, "create a foreign table as a partition of %s");
		if (stmt->partspec != NULL)
			guard_refuse(parent, GUARD_STORAGE, "create a partitioned table as a partition of %s");
		if (stmt->tableElts != NIL || stmt->constraints != NIL)
			guard_refuse(parent, GUARD_STORAGE,
						 "create a partition of %s with its own defaults or constraints");
		if (get_table_am_oid(stmt->accessMethod != NULL ? stmt->accessMethod :
							 default_table_access_method, false) != storage_am_oid())
			guard_refuse_access_method(parent, GUARD_STORAGE,
									   "create a partition of %s without the ots table access method");
		if (stmt->relation->relpersistence == RELPERSISTENCE_UNLOGGED)
			guard_check_unlogged(parent);
	}
	return storage;
}

/*
 * guard_create_schema checks the statements of CREATE SCHEMA, which fire no
 * event trigger of their own: a partition of ots storage among its tables as
 * guard_create_table does, and no trigger on such a partition (a trigger on
 * an existing relation is not one of CREATE SCHEMA's: it names a relation
 * of the new schema).
 */
static void
guard_create_schema(CreateSchemaStmt *stmt)
{
	ListCell   *lc;
	ListCell   *lc2;

	foreach(lc, stmt->schemaElts)
	{
		CreateStmt *table = lfirst(lc);
		Oid			storage;

		if (!IsA(table, CreateStmt) ||
			!OidIsValid(storage = guard_create_table(table, false)))
			continue;
		foreach(lc2, stmt->schemaElts)
		{
			CreateTrigStmt *trigger = lfirst(lc2);

			if (IsA(trigger, CreateTrigStmt) &&
				strcmp(trigger->relation->relname, table->relation->relname) == 0)
				guard_refuse(storage, GUARD_STORAGE, "create a trigger on a new partition of %s");
		}
	}
}

/*
 * guard_create_trigger refuses triggers on ots storage and views, but for
 * ots's own write trigger on a view (which pg_restore re-creates).
 */
static void
guard_create_trigger(CreateTrigStmt *stmt)
{
	Oid			relid;
	GuardKind	kind = guard_kind_of(stmt->relation, &relid);
	Oid			ours;
	Oid			legacy;

	if (kind == GUARD_NONE)
		return;
	ours = LookupFuncName(list_make2(makeString("ots"), makeString("view_write")),
						  0, NULL, true);
	/* 0.1.0's name of it, which a dump of 0.1.0 names */
	legacy = LookupFuncName(list_make2(makeString("ots"), makeString("view_write_rejected")),
							0, NULL, true);
	if (kind == GUARD_VIEW &&
		((OidIsValid(ours) && LookupFuncName(stmt->funcname, 0, NULL, true) == ours) ||
		 (OidIsValid(legacy) && LookupFuncName(stmt->funcname, 0, NULL, true) == legacy)))
		return;
	guard_refuse(relid, kind, "add a trigger to");
}

/*
 * guard_move_leaf: a partition of an index's storage moved into a schema
 * a publication takes in whole would be published (guard_publish_table)
 */
static void
guard_move_leaf(Oid leaf, const char *schema)
{
	Oid			nsp = get_namespace_oid(schema, true);
	Oid			storage = get_partition_parent(leaf, true);

	if (OidIsValid(nsp) && OidIsValid(storage) && OidIsValid(guard_index_base(storage)) &&
		GetSchemaPublications(nsp) != NIL)
		guard_publish_table(leaf);
}

/*
 * guard_relation_statement checks CREATE RULE, RENAME and ALTER ... SET
 * SCHEMA on relation: no rule on any part of an ots table, no column
 * renamed; its view, storage and sequence neither renamed nor moved (ots
 * finds them by name), while a leaf may be (ots finds it by its parent).
 */
static void
guard_relation_statement(Node *parsetree, RangeVar *relation)
{
	Oid			relid;
	GuardKind	kind = guard_kind_of(relation, &relid);

	if (kind == GUARD_NONE)
		return;
	if (IsA(parsetree, RuleStmt))
		guard_refuse(relid, kind, "add a rule to");
	else if (IsA(parsetree, RenameStmt))
	{
		ObjectType	type = ((RenameStmt *) parsetree)->renameType;

		if (type == OBJECT_COLUMN)
			guard_refuse_rename(relid, kind, "rename a column of");
		if (kind != GUARD_LEAF &&
			(type == OBJECT_TABLE || type == OBJECT_VIEW ||
			 type == OBJECT_FOREIGN_TABLE || type == OBJECT_SEQUENCE))
			guard_refuse_rename(relid, kind, "rename");
	}
	else if (kind != GUARD_LEAF)
		guard_refuse_rename(relid, kind, "move");
	else
		guard_move_leaf(relid, ((AlterObjectSchemaStmt *) parsetree)->newschema);
}

/*
 * guard_drop_leaf: a DROP is about to take leaf's rows away from its
 * table, whose storage the statement does not drop (guard_leaf_leaving).
 * Not a leaf pg_restore --clean drops right before the table's view and
 * storage, whose DROP takes the whole ots table with its indexes and
 * stream (restore_cleaning, src/writepoint/restore.c): the table's sequence or
 * stream may be gone already.
 */
static void
guard_drop_leaf(Oid leaf, List *dropped_storages, List *dropped_schemas)
{
	Oid			storage = get_partition_parent(leaf, true);

	if (!OidIsValid(storage) || list_member_oid(dropped_storages, storage) ||
		list_member_oid(dropped_schemas, get_rel_namespace(storage)) ||
		guard_kind(storage) != GUARD_STORAGE || restore_cleaning(leaf))
		return;
	guard_leaf_leaving(storage, leaf, AccessExclusiveLock, "drop a partition");
}

/*
 * guard_drop: DROP TABLE of a leaf without its storage, and DROP SCHEMA
 * ... CASCADE of a schema holding a leaf whose storage lives elsewhere
 * (a leaf may be moved), take rows away from their table.
 */
static void
guard_drop(DropStmt *stmt)
{
	List	   *storages = NIL;
	List	   *leaves = NIL;
	List	   *schemas = NIL;
	ListCell   *lc;

	if (stmt->removeType == OBJECT_TABLE)
	{
		foreach(lc, stmt->objects)
		{
			Oid			relid = RangeVarGetRelid(makeRangeVarFromNameList(lfirst(lc)), NoLock, true);
			GuardKind	kind = guard_kind(relid);

			if (kind == GUARD_STORAGE)
				storages = lappend_oid(storages, relid);
			else if (kind == GUARD_LEAF)
				leaves = lappend_oid(leaves, relid);
		}
	}
	else if (stmt->removeType == OBJECT_SCHEMA && stmt->behavior == DROP_CASCADE)
	{
		Relation	rel;
		ScanKeyData key;
		SysScanDesc scan;
		HeapTuple	tup;

		foreach(lc, stmt->objects)
		{
			Oid			nsp = get_namespace_oid(strVal(lfirst(lc)), true);

			if (OidIsValid(nsp))
				schemas = lappend_oid(schemas, nsp);
		}
		rel = table_open(RelationRelationId, AccessShareLock);
		foreach(lc, schemas)
		{
			ScanKeyInit(&key, Anum_pg_class_relnamespace, BTEqualStrategyNumber, F_OIDEQ,
						ObjectIdGetDatum(lfirst_oid(lc)));
			scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
			while (HeapTupleIsValid(tup = systable_getnext(scan)))
				if (((Form_pg_class) GETSTRUCT(tup))->relispartition)
					leaves = lappend_oid(leaves, ((Form_pg_class) GETSTRUCT(tup))->oid);
			systable_endscan(scan);
		}
		table_close(rel, AccessShareLock);
	}
	foreach(lc, leaves)
		guard_drop_leaf(lfirst_oid(lc), storages, schemas);
}

/* guard_refuse_publish raises the error for publishing what a subscriber's ots writes itself */
static void
guard_refuse_publish(const char *message, const char *detail)
{
	guard_raise(message, detail,
				"Publish the storage of ots tables by name: CREATE PUBLICATION ... FOR TABLE s.\"t$data\" [, ...] WITH (publish_via_partition_root = true); a table's stream relations (\"t$log\", \"t$rec\") may be published with it.");
}

#define GUARD_INDEX_NOT_PUBLISHED \
	"A subscriber's ots writes each index's entries from the table rows it applies: the publisher's entries would be written twice."

/*
 * guard_publish_table refuses to publish ots's catalog (ots.tables,
 * ots.purge_stats: each database's ots writes its own) and the storage of
 * a secondary index or its partitions (guard_refuse_publish)
 */
static void
guard_publish_table(Oid relid)
{
	Oid			ots = get_extension_oid("ots", true);
	Oid			storage = relid;

	if (!OidIsValid(relid))
		return;
	if (OidIsValid(ots) && getExtensionOfObject(RelationRelationId, relid) == ots)
		guard_refuse_publish(psprintf("cannot publish ots's catalog table %s",
									  quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
																 get_rel_name(relid))),
							 "Each database's ots writes its own catalog, with ots's functions; a subscriber makes its ots tables itself.");
	if (get_rel_relispartition(relid))
		storage = get_partition_parent(relid, true);
	if (OidIsValid(storage) && OidIsValid(guard_index_base(storage)))
		guard_refuse_publish(psprintf("cannot publish the storage of ots index %s",
									  quote_qualified_identifier(get_namespace_name(get_rel_namespace(storage)),
																 storage_table_of(get_rel_name(storage), STORAGE_SUFFIX))),
							 GUARD_INDEX_NOT_PUBLISHED);
}

/*
 * guard_publish_schema refuses to publish the tables of ots's own schema,
 * or of a schema holding the storage of a secondary index
 */
static void
guard_publish_schema(Oid nsp)
{
	char	   *nspname = OidIsValid(nsp) ? get_namespace_name(nsp) : NULL;
	List	   *index_of = NIL;
	List	   *names;
	ListCell   *lc_name;
	ListCell   *lc_of;

	if (nspname == NULL)
		return;
	if (nsp == get_namespace_oid("ots", true))
		guard_refuse_publish(psprintf("cannot publish the tables of schema %s, ots's own",
									  quote_identifier(nspname)),
							 "It holds ots's catalog, which each database's ots writes itself.");
	names = guard_tables_where(nsp, "schema_name", nspname, &index_of);
	forboth(lc_name, names, lc_of, index_of)
		if (lfirst(lc_of) != NULL)
			guard_refuse_publish(psprintf("cannot publish the tables of schema %s, which holds the storage of ots index %s",
										  quote_identifier(nspname),
										  quote_qualified_identifier(nspname, lfirst(lc_name))),
								 GUARD_INDEX_NOT_PUBLISHED);
}

/*
 * ddl_guard_check_index_unpublished refuses to register index index of
 * schema nsp while a publication takes in every table of the schema (FOR
 * TABLES IN SCHEMA) or of the database (FOR ALL TABLES): it would publish
 * the index's storage, which guard_publish_table refuses by name
 */
void
ddl_guard_check_index_unpublished(Oid nsp, const char *index)
{
	List	   *pubs = list_concat(GetAllTablesPublications(), GetSchemaPublications(nsp));

	if (pubs != NIL)
		guard_refuse_publish(psprintf("cannot create ots index %s: publication %s publishes every table of its schema",
									  quote_qualified_identifier(get_namespace_name(nsp), index),
									  quote_identifier(get_publication_name(linitial_oid(pubs), false))),
							 GUARD_INDEX_NOT_PUBLISHED);
}

/*
 * guard_publication checks what CREATE PUBLICATION and ALTER PUBLICATION
 * ... ADD / SET publish: not FOR ALL TABLES (ots's catalog and index
 * storage among them), and no table or schema guard_publish_table or
 * guard_publish_schema refuses.  create_index refuses an index whose
 * storage a publication would take in (a schema published whole).
 */
static void
guard_publication(List *pubobjects, bool all_tables)
{
	ListCell   *lc;

	if (all_tables)
		guard_refuse_publish("cannot publish all tables of a database with ots",
							 "FOR ALL TABLES publishes ots's catalog and the storage of secondary indexes, which a subscriber's ots writes itself.");
	foreach(lc, pubobjects)
	{
		PublicationObjSpec *obj = lfirst(lc);

		if (obj->pubobjtype == PUBLICATIONOBJ_TABLE && obj->pubtable != NULL)
			guard_publish_table(RangeVarGetRelid(obj->pubtable->relation, NoLock, true));
		else if (obj->pubobjtype == PUBLICATIONOBJ_TABLES_IN_SCHEMA)
			guard_publish_schema(get_namespace_oid(obj->name, true));
		else if (obj->pubobjtype == PUBLICATIONOBJ_TABLES_IN_CUR_SCHEMA)
		{
			List	   *path = fetch_search_path(false);

			if (path != NIL)
				guard_publish_schema(linitial_oid(path));
		}
	}
}

/*
 * guard_comment: COMMENT ON TABLE of a registered storage table is refused
 * (its comment carries the table's definition: a dump of it alone restores
 * the table, catalog_write.c) unless it gives the comment it has; of a
 * storage table not registered, a comment carrying a definition registers
 * the table first (catalog_write_restore), as the restore that writes it
 * wants.
 */
static void
guard_comment(CommentStmt *stmt)
{
	Oid			relid;
	char	   *current;

	if (stmt->objtype != OBJECT_TABLE)
		return;
	relid = RangeVarGetRelid(makeRangeVarFromNameList(castNode(List, stmt->object)), NoLock, true);
	if (!OidIsValid(relid) || get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		return;
	if (guard_kind(relid) != GUARD_STORAGE)
	{
		(void) catalog_write_restore(relid, stmt->comment, NULL);
		return;
	}
	current = GetComment(relid, RelationRelationId, 0);
	if (current != NULL && stmt->comment != NULL && strcmp(current, stmt->comment) == 0)
		return;
	guard_raise(psprintf("cannot change the comment of %s", guard_describe(relid, GUARD_STORAGE)),
				"The comment of an ots table's storage carries the table's definition, which a restore of the storage registers the table with.",
				"Comment on the table's view instead.");
}

/*
 * ots_storage_guard is the event trigger ots.storage_guard() (at
 * ddl_command_start): raises an error for DDL that ots's storage cannot
 * follow (see the file header), and does nothing otherwise.
 */
Datum
ots_storage_guard(PG_FUNCTION_ARGS)
{
	Node	   *parsetree;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_EVENT_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function \"%s\" was not called by the event trigger manager",
						"ots.storage_guard")));
	parsetree = ((EventTriggerData *) fcinfo->context)->parsetree;
	/* ots's own install and upgrade scripts may reshape its storage */
	if (creating_extension && CurrentExtensionObject == get_extension_oid("ots", true))
		PG_RETURN_VOID();

	switch (nodeTag(parsetree))
	{
		case T_AlterTableStmt:
			guard_alter_table((AlterTableStmt *) parsetree);
			break;
		case T_CreateStmt:
			(void) guard_create_table((CreateStmt *) parsetree, false);
			break;
		case T_CreateForeignTableStmt:
			(void) guard_create_table((CreateStmt *) parsetree, true);
			break;
		case T_CreateTrigStmt:
			guard_create_trigger((CreateTrigStmt *) parsetree);
			break;
		case T_RuleStmt:
			guard_relation_statement(parsetree, ((RuleStmt *) parsetree)->relation);
			break;
		case T_RenameStmt:
			guard_relation_statement(parsetree, ((RenameStmt *) parsetree)->relation);
			break;
		case T_AlterObjectSchemaStmt:
			guard_relation_statement(parsetree,
									 ((AlterObjectSchemaStmt *) parsetree)->relation);
			break;
		case T_CreateSchemaStmt:
			guard_create_schema((CreateSchemaStmt *) parsetree);
			break;
		case T_CommentStmt:
			guard_comment((CommentStmt *) parsetree);
			break;
		case T_DropStmt:
			guard_drop((DropStmt *) parsetree);
			break;
		case T_CreatePublicationStmt:
			guard_publication(((CreatePublicationStmt *) parsetree)->pubobjects,
							  ((CreatePublicationStmt *) parsetree)->for_all_tables);
			break;
		case T_AlterPublicationStmt:
			if (((AlterPublicationStmt *) parsetree)->action != AP_DropObjects)
				guard_publication(((AlterPublicationStmt *) parsetree)->pubobjects, false);
			break;
		default:
			break;
	}
	PG_RETURN_VOID();
}

/*
 * The view ots.sync_table_view is making again in this transaction: its
 * DROP must not drop the ots table (ots.forget_dropped_tables asks).
 */
static Oid	replacing_view = InvalidOid;
static LocalTransactionId replacing_lxid = InvalidLocalTransactionId;
static SubTransactionId replacing_subxid = InvalidSubTransactionId;

PG_FUNCTION_INFO_V1(ots_view_replacing);
PG_FUNCTION_INFO_V1(ots_view_replaced);

/* ots_view_replacing is ots.view_replacing(view oid): the caller, its owner, is about to make it again (0: done) */
Datum
ots_view_replacing(PG_FUNCTION_ARGS)
{
	Oid			view = PG_GETARG_OID(0);

	if (OidIsValid(view) && !pg_class_ownercheck(view, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_VIEW, get_rel_name(view));
	replacing_view = view;
	replacing_lxid = MyProc->lxid;
	replacing_subxid = GetCurrentSubTransactionId();
	PG_RETURN_VOID();
}

/*
 * ots_view_replaced is ots.view_replaced(): the view being made again in
 * this (sub)transaction, or 0.  A mark left by a failed replacement (its
 * subtransaction rolled back) counts for nothing.
 */
Datum
ots_view_replaced(PG_FUNCTION_ARGS)
{
	PG_RETURN_OID(replacing_lxid == MyProc->lxid &&
				  replacing_subxid == GetCurrentSubTransactionId() ? replacing_view : InvalidOid);
}
