/*-------------------------------------------------------------------------
 * src/ddl/guard.h
 *	  What the storage guard's files share (src/ddl/guard.c): what a
 *	  relation is to ots, and how the guard refuses a statement.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_GUARD_H
#define OTS_GUARD_H

#include "postgres.h"

#include "nodes/pg_list.h"
#include "nodes/primnodes.h"

/* what a relation is to ots */
typedef enum GuardKind
{
	GUARD_NONE,					/* not part of an ots table */
	GUARD_STORAGE,				/* s."t$data" */
	GUARD_LEAF,					/* a partition of s."t$data" */
	GUARD_VIEW,					/* s.t */
	GUARD_SEQUENCE,				/* s."t$seq" */
	GUARD_CHUNK					/* s."t$chunk", the chunks of split rows */
} GuardKind;

/* guard_search_storages: the storages of the search indexes of table table_name in schema nsp */
extern List *guard_search_storages(Oid nsp, const char *table_name);

/* guard_tables_where: the names of the rows of ots.tables in schema nsp whose column is value */
extern List *guard_tables_where(Oid nsp, const char *column, const char *value,
								List **index_of_out);

/* guard_kind: what the relation is to ots (GUARD_NONE for InvalidOid) */
extern GuardKind guard_kind(Oid relid);

/*
 * guard_is_storage: is relid the storage table of a registered ots table, a
 * leaf of it, or its chunk relation (relations that hold its rows)?
 */
extern bool guard_is_storage(Oid relid);

/* guard_relid resolves a statement's relation without locking or erroring */
extern Oid	guard_relid(RangeVar *rv);

/* guard_kind_of resolves a statement's relation into *relid and says what it is to ots */
extern GuardKind guard_kind_of(RangeVar *rv, Oid *relid);

/* guard_index_base: the storage of the table whose index has storage relid, or InvalidOid */
extern Oid	guard_index_base(Oid relid);

/* guard_has_triggers: has the relation triggers (user triggers only, unless internal_too)? */
extern bool guard_has_triggers(Oid relid, bool internal_too);

/* guard_describe: how errors name a guarded relation */
extern char *guard_describe(Oid relid, GuardKind kind);

/* guard_raise raises one of the guard's errors */
extern void guard_raise(const char *message, const char *detail, const char *hint);

/*
 * guard_refuse, guard_refuse_rename, guard_refuse_access_method raise the
 * error for a change ots's writes would bypass, for renaming or moving an
 * ots table, for a leaf off the ots access method
 */
extern void guard_refuse(Oid relid, GuardKind kind, const char *what);
extern void guard_refuse_rename(Oid relid, GuardKind kind, const char *what);
extern void guard_refuse_access_method(Oid relid, GuardKind kind, const char *what);

#endif							/* OTS_GUARD_H */
