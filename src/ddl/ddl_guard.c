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
 *	 - the same on its chunk relation s."t$chunk" (registered storage's,
 *	   with its owner), which is also neither made unlogged, nor the parent
 *	   of another table, nor dropped but with its table (guard_drop_chunk);
 *	 - partitions that are not shaped as ots makes them, on the ots table
 *	   access method, whose write point every row change passes (ATTACH
 *	   PARTITION and CREATE TABLE ... PARTITION OF check the new leaf,
 *	   guard_leaf.c);
 *	 - the storage becoming a partition of another table;
 *	 - renaming or moving the storage, the view, the sequence or the chunk
 *	   relation (leaves may be);
 *	 - on the view s.t: triggers (but ots's own write trigger, which
 *	   pg_restore re-creates), rules, column defaults;
 *	 - a partition, the view, the sequence s."t$seq", the chunk relation or
 *	   the stream ("t$log", "t$rec") given another owner
 *	   than the storage's: OWNER TO on the storage gives them its new owner
 *	   first (guard_owner.c), so all parts keep one owner;
 *	 - a comment on the storage: it carries the table's definition, which
 *	   ots writes (catalog_write.c).  A comment carrying one, given to
 *	   storage not registered yet (a restore writes it right after the
 *	   storage), registers its table (catalog_write_restore);
 *	 - DDL that changes which rows a table has below the write point:
 *	   ATTACH PARTITION, DETACH PARTITION and DROP of a leaf hand the rows
 *	   to the write point, which keeps the table's indexes, or are refused
 *	   where that cannot be exact (a table with a stream, an index's own
 *	   storage, DETACH ... CONCURRENTLY, an unlogged leaf; guard_leaf.c);
 *	 - publications of what a subscriber's ots writes itself: an index's
 *	   storage (and chunk relation), ots's catalog, schemas holding
 *	   either, FOR ALL TABLES; and of a table's storage without its chunk
 *	   relation (guard_publication.c).
 *	 - GRANT, REVOKE and row security on a chunk relation alone: they are
 *	   its storage's (guard_access.c).
 * Everything else passes: row-level security, storage options,
 * statistics, storage and compression of columns, replica identity,
 * clustering, tablespace, validating or dropping other constraints,
 * disabling triggers, indexes, policies, other comments, grants.
 * ots's own DDL passes: create_table runs before the table's row in
 * ots.tables exists, the rest of it (indexes, DROP) is allowed, and ots's
 * install and upgrade scripts are not checked.
 *
 * This file dispatches each statement and holds the rules of ALTER TABLE,
 * CREATE TABLE, TRIGGER and SCHEMA, RENAME, SET SCHEMA, RULE, DROP and
 * COMMENT; what a relation is to ots (guard_kind) and the errors are
 * guard.c's.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_constraint.h"
#include "commands/comment.h"
#include "commands/defrem.h"
#include "commands/event_trigger.h"
#include "commands/extension.h"
#include "fmgr.h"
#include "nodes/parsenodes.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "meta/catalog.h"
#include "ddl/catalog_write.h"
#include "ddl/search_catalog.h"
#include "search/search_index.h"
#include "ddl/guard.h"
#include "ddl/guard_access.h"
#include "ddl/guard_leaf.h"
#include "ddl/guard_owner.h"
#include "ddl/guard_publication.h"
#include "writepoint/restore.h"
#include "meta/storage.h"

PG_FUNCTION_INFO_V1(ots_storage_guard);

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
			return guard_owner_change(cmd, relid, kind);

			/* harmless: ots neither reads nor bypasses these */
		case AT_EnableRowSecurity:
		case AT_DisableRowSecurity:
		case AT_ForceRowSecurity:
		case AT_NoForceRowSecurity:
			/* a chunk relation's follows its storage's (guard_access.c) */
			if (kind == GUARD_CHUNK && !restore_running_dump())
				return "change row security of";
			return NULL;
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
					/*
					 * pg_restore adds it (PostgreSQL refuses a second one),
					 * after every table of the dump: a restored table
					 * whose dump has no chunk relation gets one now
					 */
					if (kind == GUARD_STORAGE && !catalog_has_primary_key(relid))
						catalog_write_restore_chunk(relid);
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
				guard_leaf_check_attach(relid, guard_leaf_attach_lock(relid, ((PartitionCmd *) cmd->def)->name));
			return NULL;
		case AT_DetachPartition:
		case AT_DetachPartitionFinalize:
			if (kind == GUARD_STORAGE)
				guard_leaf_detach(relid, (PartitionCmd *) cmd->def,
							 cmd->subtype == AT_DetachPartitionFinalize);
			return NULL;
		case AT_SetUnLogged:
			if (kind == GUARD_LEAF)
				guard_leaf_check_unlogged(get_partition_parent(relid, true));
			else if (kind == GUARD_CHUNK)
				guard_raise(psprintf("cannot make %s unlogged", guard_describe(relid, kind)),
							"A crash would empty it below the write point, while the leaves of its table keep the heads of the rows whose cells it holds.",
							"Keep the chunk relation logged.");
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

					guard_leaf_check_rows(storage, relid, false);
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
		/* ... nor a chunk relation the parent of another table */
		else if (cmd->subtype == AT_AddInherit)
		{
			Oid			parent;

			if (guard_kind_of((RangeVar *) cmd->def, &parent) == GUARD_CHUNK)
				guard_refuse(parent, GUARD_CHUNK, "inherit from %s");
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
	{
		/* a child's rows would be read as the chunk relation's */
		foreach(lc, stmt->inhRelations)
		{
			Oid			parent = guard_relid(lfirst(lc));

			if (guard_kind(parent) == GUARD_CHUNK)
				guard_refuse(parent, GUARD_CHUNK, "inherit from %s");
		}
		return InvalidOid;
	}
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
			guard_leaf_check_unlogged(parent);
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
		guard_publication_move_leaf(relid, ((AlterObjectSchemaStmt *) parsetree)->newschema);
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
 * guard_drop_chunk: a DROP TABLE of chunk relation chunk, which holds the
 * cells of its table's split rows, goes only with the table: its storage
 * dropped by the same statement (whose clean-up drops the rest), or a dump's
 * script dropping it along with its table (restore_cleaning: pg_restore
 * --clean drops each relation on its own).
 */
static void
guard_drop_chunk(Oid chunk, List *dropped_storages)
{
	if (list_member_oid(dropped_storages, storage_chunk_of(chunk)) || restore_cleaning(chunk))
		return;
	guard_raise(psprintf("cannot drop %s alone", guard_describe(chunk, GUARD_CHUNK)),
				"It holds the cells of its table's split rows, which the table's leaves hold the heads of.",
				"Drop the whole table: ots.delete_table, or DROP TABLE of its storage table or DROP VIEW of its view, which drop the chunk relation with it.");
}

/*
 * guard_drop: DROP TABLE of a leaf without its storage, and DROP SCHEMA
 * ... CASCADE of a schema holding a leaf whose storage lives elsewhere
 * (a leaf may be moved), take rows away from their table; DROP TABLE of a
 * chunk relation without its storage is refused.
 */
static void
guard_drop(DropStmt *stmt)
{
	List	   *storages = NIL;
	List	   *leaves = NIL;
	List	   *chunks = NIL;
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
			else if (kind == GUARD_CHUNK)
				chunks = lappend_oid(chunks, relid);
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
	foreach(lc, chunks)
		guard_drop_chunk(lfirst_oid(lc), storages);
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
	if (OidIsValid(relid) && get_rel_relkind(relid) == RELKIND_RELATION &&
		strstr(get_rel_name(relid), SEARCH_STORAGE_INFIX) != NULL)
	{
		search_catalog_comment(relid, stmt->comment);
		return;
	}
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
		case T_GrantStmt:
			guard_access_check_grant((GrantStmt *) parsetree);
			break;
		case T_CreatePublicationStmt:
			guard_publication_check(NULL, ((CreatePublicationStmt *) parsetree)->pubobjects,
									((CreatePublicationStmt *) parsetree)->for_all_tables,
									AP_SetObjects);
			break;
		case T_AlterPublicationStmt:
			guard_publication_check(((AlterPublicationStmt *) parsetree)->pubname,
									((AlterPublicationStmt *) parsetree)->pubobjects, false,
									((AlterPublicationStmt *) parsetree)->action);
			break;
		default:
			break;
	}
	PG_RETURN_VOID();
}
