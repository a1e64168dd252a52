/*-------------------------------------------------------------------------
 * src/ddl/guard_leaf.c
 *	  The storage guard's rules for DDL that changes which rows an ots
 *	  table has below the write point: a leaf joining its storage (ATTACH
 *	  PARTITION, SET ACCESS METHOD ots) or leaving it (DETACH PARTITION,
 *	  DROP of the leaf), and an unlogged leaf.
 *
 * A leaf joins only shaped as ots makes leaves and holding only rows ots
 * could have written; its rows reach the write point, which writes their
 * index entries.  Rows leaving are handed to the write point, which
 * removes their entries, or refused where that cannot be exact (a table
 * with a stream, an index's own storage, DETACH ... CONCURRENTLY).
 * Registration applies the same shape rules to the partitions the
 * storage has already (guard_leaf_check_partitions, catalog_write.c).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_inherits.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "meta/catalog.h"
#include "ddl/guard.h"
#include "ddl/guard_leaf.h"
#include "meta/storage.h"
#include "writepoint/storage_write.h"

/*
 * guard_leaf_attach_lock takes the locks ATTACH PARTITION takes, in its order
 * (the storage, then the partition it resolves), before the guard checks
 * the partition: ATTACH then resolves the name without waiting, so the name
 * cannot come to mean another table in between, and the row check's lock
 * comes in the same order as the statement's
 */
Oid
guard_leaf_attach_lock(Oid storage, RangeVar *part)
{
	LockRelationOid(storage, ShareUpdateExclusiveLock);
	return RangeVarGetRelid(part, AccessExclusiveLock, true);
}

/* guard_leaf_refuse_attach raises the error for a partition ots did not shape */
static void
guard_leaf_refuse_attach(Oid storage, Oid part, const char *why)
{
	guard_raise(psprintf("cannot attach \"%s\" to %s", get_rel_name(part),
						 guard_describe(storage, GUARD_STORAGE)),
				why,
				"Attach a partition ots created, or a table made with CREATE TABLE ... (LIKE ...) USING ots and nothing added.");
}

/*
 * guard_leaf_check_rows: the rows of part join registered storage below the
 * write point (ATTACH, SET ACCESS METHOD ots), so each must be a row ots
 * could have written; those of a table ATTACH makes a leaf (join) reach
 * the write point too, which writes their index entries
 * (storage_write_rows_join)
 */
void
guard_leaf_check_rows(Oid storage, Oid part, bool join)
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
 * guard_leaf_refuse_rows raises the error for DDL that would change which rows
 * ots table t (or index) has below the write point, where its secondary
 * indexes and its stream follow its rows
 */
static void
guard_leaf_refuse_rows(const OtsTable *t, const char *what, const char *hint)
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
 * guard_leaf_keeps_rows: does t keep something that follows its rows at the
 * write point (secondary indexes, a stream), or is it an index?
 */
static bool
guard_leaf_keeps_rows(const OtsTable *t)
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
void
guard_leaf_leaving(Oid storage, Oid leaf, LOCKMODE storage_lock, const char *what)
{
	const OtsTable *t;

	LockRelationOid(storage, storage_lock);
	LockRelationOid(leaf, AccessExclusiveLock);
	t = catalog_lookup_by_data_oid(storage);
	if (t == NULL || get_partition_parent(leaf, true) != storage)
		return;
	if (t->is_index || t->stream_enabled)
		guard_leaf_refuse_rows(t, what,
						  "Disable the table's stream first (ots.update_table ... stream_enabled => false), or delete its rows and keep the partition.");
	if (t->nindexes > 0)
		storage_write_rows_leave(leaf, t);
}

/*
 * guard_leaf_detach: DETACH PARTITION of a leaf of registered storage.  Its
 * rows' index entries go with it (guard_leaf_leaving); CONCURRENTLY, which
 * takes the rows away in two transactions while other sessions still see
 * and write them, is refused where the table keeps anything by its rows.
 */
void
guard_leaf_detach(Oid storage, PartitionCmd *cmd, bool finalize)
{
	/* the statement's lock on the storage first: no lock is upgraded later */
	LOCKMODE	lock = cmd->concurrent || finalize ? ShareUpdateExclusiveLock : AccessExclusiveLock;
	const OtsTable *t;
	Oid			leaf;

	LockRelationOid(storage, lock);
	t = catalog_lookup_by_data_oid(storage);
	if (t == NULL)
		return;
	if (cmd->concurrent && guard_leaf_keeps_rows(t))
		guard_leaf_refuse_rows(t, "detach concurrently a partition",
						  "Detach it without CONCURRENTLY, which removes its rows' index entries with it.");
	leaf = RangeVarGetRelid(cmd->name, NoLock, true);
	if (OidIsValid(leaf))
		guard_leaf_leaving(storage, leaf, lock, "detach a partition");
}

/*
 * guard_leaf_check_unlogged refuses an unlogged leaf of storage whose table
 * keeps anything by its rows: a crash empties an unlogged table below the
 * write point (and a standby has none of its rows), while its indexes and
 * its stream keep theirs.
 */
void
guard_leaf_check_unlogged(Oid storage)
{
	const OtsTable *t = catalog_lookup_by_data_oid(storage);

	if (guard_leaf_keeps_rows(t))
		guard_leaf_refuse_rows(t, "make an unlogged partition",
						  "Keep its partitions logged, or delete its indexes and disable its stream first.");
}

/*
 * guard_leaf_check_attach refuses to attach a table to ots storage unless it is
 * shaped as ots makes leaves: a plain table on the ots access method,
 * without defaults, identity or generated columns, constraints (but a
 * primary key), triggers or rules, and holding only rows ots could have
 * written (guard_leaf_check_rows).  PostgreSQL itself checks that its columns
 * are the storage's (names, types, collations, NOT NULL).
 */
void
guard_leaf_check_attach(Oid storage, Oid part)
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
		guard_leaf_refuse_attach(storage, part, "It is not a plain table.");
	if (form->relam != storage_am_oid())
		guard_leaf_refuse_attach(storage, part,
							"It does not use the ots table access method.");
	if (form->relhasrules)
		guard_leaf_refuse_attach(storage, part, "It has rules.");
	if (form->relpersistence == RELPERSISTENCE_UNLOGGED)
		guard_leaf_check_unlogged(storage);
	ReleaseSysCache(tup);
	{
		const OtsTable *t = catalog_lookup_by_data_oid(storage);

		if (t != NULL && t->is_index)
			guard_leaf_refuse_rows(t, "attach a partition", NULL);
	}
	if (guard_has_triggers(part, true))
		guard_leaf_refuse_attach(storage, part,
							"It has triggers (its own, or those of a foreign key referencing it).");

	for (AttrNumber a = 1;; a++)
	{
		HeapTuple	atup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(part), Int16GetDatum(a));
		Form_pg_attribute att;

		if (!HeapTupleIsValid(atup))
			break;
		att = (Form_pg_attribute) GETSTRUCT(atup);
		if (!att->attisdropped && (att->atthasdef || att->attidentity || att->attgenerated))
			guard_leaf_refuse_attach(storage, part,
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
			guard_leaf_refuse_attach(storage, part,
								psprintf("It has constraint \"%s\".", NameStr(con->conname)));
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	guard_leaf_check_rows(storage, part, true);
}

/* guard_leaf_check_partitions: guard_leaf_check_attach for each partition of storage */
void
guard_leaf_check_partitions(Oid storage)
{
	ListCell   *lc;

	foreach(lc, find_inheritance_children(storage, AccessShareLock))
		guard_leaf_check_attach(storage, lfirst_oid(lc));
}
