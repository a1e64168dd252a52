/*-------------------------------------------------------------------------
 * src/ddl/guard_owner.c
 *	  One owner for every part of an ots table: OWNER TO on the storage
 *	  gives its partitions, view, sequence, chunk relation, stream relations,
 *	  secondary indexes and search indexes' storages its new owner first; OWNER TO on a part alone may only give
 *	  the storage's owner (as pg_restore does).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "asrole.h"
#include "ddl/guard.h"
#include "ddl/guard_owner.h"
#include "meta/storage.h"

/* set while guard_owner_propagate runs its own OWNER TO statements */
static bool guard_propagating = false;

/*
 * guard_owner_storage_of: the storage of a guarded relation (itself for the
 * storage, the parent for a leaf, s."t$data" for the view, sequence and
 * chunk relation)
 */
static Oid
guard_owner_storage_of(Oid relid, GuardKind kind)
{
	char	   *name = get_rel_name(relid);

	if (kind == GUARD_STORAGE)
		return relid;
	if (kind == GUARD_LEAF)
		return get_partition_parent(relid, true);
	if (kind == GUARD_SEQUENCE)
		name = storage_table_of(name, STORAGE_SEQUENCE_SUFFIX);
	else if (kind == GUARD_CHUNK)
		name = storage_table_of(name, STORAGE_CHUNK_SUFFIX);
	return storage_oid(get_rel_namespace(relid), name);
}

/*
 * guard_owner_index_statements: the OWNER TO statements that give the
 * secondary indexes of the table whose storage is storage (their storage,
 * partitions, chunk relation and view) the owner role
 */
static List *
guard_owner_index_statements(Oid storage, const char *role)
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
		Oid			chunk;
		ListCell   *lc;

		if (!OidIsValid(idx))
			continue;

		stmts = lappend(stmts, psprintf("ALTER TABLE %s OWNER TO %s",
										quote_qualified_identifier(nsp, get_rel_name(idx)), role));
		foreach(lc, find_inheritance_children(idx, NoLock))
			stmts = lappend(stmts, psprintf("ALTER TABLE %s OWNER TO %s",
											quote_qualified_identifier(nsp, get_rel_name(lfirst_oid(lc))),
											role));
		if (OidIsValid(chunk = storage_chunk_oid(idx, name)))
			stmts = lappend(stmts, psprintf("ALTER TABLE %s OWNER TO %s",
											quote_qualified_identifier(nsp, get_rel_name(chunk)), role));
		if (storage_is_part(get_relname_relid(name, get_rel_namespace(idx)), idx))
			stmts = lappend(stmts, psprintf("ALTER VIEW %s OWNER TO %s",
											quote_qualified_identifier(nsp, name), role));
	}
	return stmts;
}

/*
 * guard_owner_search_statements: the OWNER TO statements that give the
 * search indexes' storages of the table stored in storage (as
 * ots.search_indexes names them, with the storage's owner) the owner role
 */
static List *
guard_owner_search_statements(Oid storage, const char *role)
{
	char	   *table = storage_table_of(get_rel_name(storage), STORAGE_SUFFIX);
	Oid			nsp = get_rel_namespace(storage);
	List	   *stmts = NIL;
	ListCell   *lc;

	if (table == NULL)
		return NIL;
	foreach(lc, guard_search_storages(nsp, table))
	{
		Oid			relid = get_relname_relid(lfirst(lc), nsp);

		if (OidIsValid(relid) && get_rel_relkind(relid) == RELKIND_RELATION &&
			asrole_owner(relid) == asrole_owner(storage))
			stmts = lappend(stmts, psprintf("ALTER TABLE %s OWNER TO %s",
											quote_qualified_identifier(get_namespace_name(nsp), lfirst(lc)), role));
	}
	return stmts;
}

/*
 * guard_owner_propagate gives the storage's partitions, the relations
 * beside it that are its table's (its view, sequence, chunk relation and
 * stream's: storage_is_part), and its table's secondary indexes, the owner
 * OWNER TO is about to give the storage, by running OWNER TO on each as
 * the current user (so PostgreSQL checks the same rights as for the
 * storage); the statement itself then changes the storage.  It all happens
 * in the statement's transaction, so an error undoes all of it.
 */
static void
guard_owner_propagate(Oid storage, RoleSpec *newowner)
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
	stmts = list_concat(stmts, guard_owner_index_statements(storage, role));
	stmts = list_concat(stmts, guard_owner_search_statements(storage, role));

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
 * guard_owner_change: OWNER TO on the storage carries its parts along;
 * on a part alone it may only give the storage's owner (as pg_restore
 * does), which keeps one owner for all parts.
 */
const char *
guard_owner_change(AlterTableCmd *cmd, Oid relid, GuardKind kind)
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
		guard_owner_propagate(relid, cmd->newowner);
		return NULL;
	}
	storage = guard_owner_storage_of(relid, kind);
	if (OidIsValid(storage) &&
		get_rolespec_oid(cmd->newowner, false) == asrole_owner(storage))
		return NULL;
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot change the owner of %s alone", guard_describe(relid, kind)),
			 errdetail("The storage, its partitions, the view, the sequence and the chunk relation of an ots table have one owner."),
			 errhint("Change the owner of the storage table \"%s\", which changes all of them, or use REASSIGN OWNED.",
					 OidIsValid(storage) ? get_rel_name(storage) : "?")));
	return NULL;				/* not reached */
}
