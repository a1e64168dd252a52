/*-------------------------------------------------------------------------
 * src/ddl/restore_utility.c
 *	  The statements a dump's script runs over ots tables that would fail
 *	  where nothing is wrong, which a ProcessUtility hook answers itself.
 *
 * Whether a session runs a dump's script is src/writepoint/restore.c's
 * (restore_running_dump).  In such a session only:
 * - pg_restore --clean drops the primary key of each leaf and of the
 *   storage before it drops the tables: PostgreSQL 15 refuses it on every
 *   partition ("cannot drop inherited constraint", for any partitioned
 *   table), and the storage guard on the storage (ots writes rows straight
 *   into the leaves: without their key a row could be stored twice).  The
 *   key of ots storage goes with its table, so ALTER TABLE ... DROP
 *   CONSTRAINT of nothing but the primary key of a registered storage,
 *   leaf or chunk relation changes nothing and says so (a NOTICE); the
 *   DROP TABLE that follows drops it.
 * - Dropping a table's view or storage drops the whole ots table (the
 *   sql_drop trigger ots_storage_dropped drops what the statement left:
 *   storage, sequence, stream, indexes).  pg_restore --clean without
 *   --if-exists then drops those relations itself and fails on each.  So a
 *   relation a DROP dropped along with the one it named (a DROP run inside
 *   it) is remembered for the session, and a later DROP TABLE, VIEW or
 *   SEQUENCE naming only relations that are gone, some of them that way,
 *   runs as with IF EXISTS (PostgreSQL's NOTICE "... does not exist,
 *   skipping").  A relation of that name made since is dropped as usual.
 * - pg_restore --clean then drops each leaf before its table's view and
 *   storage, when the table's sequence or stream may be gone already.  A
 *   leaf whose primary key the session asked to drop that way is taken to
 *   go with its table (restore_cleaning): the storage guard lets its DROP
 *   pass without loading the table, taking the rows out of its indexes or
 *   refusing it on a table with a stream or an index's storage
 *   (ddl_guard.c, guard_drop_leaf), as the whole table goes next.  So does
 *   a chunk relation, whose DROP alone the guard refuses otherwise
 *   (guard_drop_chunk).  Any
 *   other leaf dropped in such a session is handled as in any session.
 * - A database owner's restore runs pg_dump's COMMENT ON EXTENSION ots,
 *   which only the extension's owner may run (the superuser who created
 *   ots).  Giving it the comment it has changes nothing: it is skipped.
 * Every other statement runs as it is.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_extension.h"
#include "commands/comment.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rls.h"
#include "utils/syscache.h"

#include "asrole.h"
#include "ddl/guard.h"
#include "ddl/restore_utility.h"
#include "writepoint/restore.h"
#include "utility_hook.h"

static ProcessUtility_hook_type prev_process_utility = NULL;

/* how deep in top-level DROP statements this backend is (their own DROPs are nested) */
static int	drop_depth = 0;

/* "schema.name" of the relations a DROP dropped with the one it named, this session */
static List *dropped_along = NIL;

/*
 * restore_drops_primary_key_only: is stmt ALTER TABLE ... DROP
 * CONSTRAINT of the primary key of a registered ots storage, leaf or chunk
 * relation (guard_is_storage), and nothing else?  Sets *relid to the
 * relation.
 */
static bool
restore_drops_primary_key_only(AlterTableStmt *stmt, Oid *relid_out)
{
	Oid			relid;
	ListCell   *lc;

	if (stmt->objtype != OBJECT_TABLE || stmt->cmds == NIL)
		return false;
	relid = *relid_out = RangeVarGetRelid(stmt->relation, NoLock, true);
	if (!OidIsValid(relid) || !guard_is_storage(relid))
		return false;
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst(lc);
		Oid			conid;
		HeapTuple	tup;
		bool		primary = false;

		if (cmd->subtype != AT_DropConstraint)
			return false;
		conid = get_relation_constraint_oid(relid, cmd->name, true);
		tup = SearchSysCache1(CONSTROID, ObjectIdGetDatum(conid));
		if (HeapTupleIsValid(tup))
		{
			primary = ((Form_pg_constraint) GETSTRUCT(tup))->contype == CONSTRAINT_PRIMARY;
			ReleaseSysCache(tup);
		}
		if (!primary)
			return false;
	}
	return true;
}

/*
 * restore_same_extension_comment: is stmt COMMENT ON EXTENSION ots
 * giving the comment it has?
 */
static bool
restore_same_extension_comment(CommentStmt *stmt)
{
	Oid			ext;
	char	   *current;

	if (stmt->objtype != OBJECT_EXTENSION || strcmp(strVal(stmt->object), "ots") != 0 ||
		!OidIsValid(ext = get_extension_oid("ots", true)))
		return false;
	current = GetComment(ext, ExtensionRelationId, 0);
	return current != NULL && stmt->comment != NULL && strcmp(current, stmt->comment) == 0;
}

/* restore_name: "schema OID.name" of a relation a DROP names with its schema, or NULL */
static char *
restore_name(List *names)
{
	RangeVar   *rv = makeRangeVarFromNameList(names);
	Oid			nsp;

	/* pg_restore and ots's clean-up name relations with their schema */
	if (rv->schemaname == NULL || !OidIsValid(nsp = get_namespace_oid(rv->schemaname, true)))
		return NULL;
	return psprintf("%u.%s", nsp, rv->relname);
}

/*
 * restore_gone_along: does DROP stmt (of relations, without IF EXISTS)
 * name only relations that are gone, at least one of them dropped along
 * with another this session?
 */
static bool
restore_gone_along(DropStmt *stmt)
{
	bool		along = false;
	ListCell   *lc;

	if (stmt->missing_ok ||
		(stmt->removeType != OBJECT_TABLE && stmt->removeType != OBJECT_VIEW &&
		 stmt->removeType != OBJECT_SEQUENCE))
		return false;
	foreach(lc, stmt->objects)
	{
		List	   *names = lfirst(lc);
		char	   *name;

		if (OidIsValid(RangeVarGetRelid(makeRangeVarFromNameList(names), NoLock, true)))
			return false;
		name = restore_name(names);
		if (name != NULL && list_member(dropped_along, makeString(name)))
			along = true;
	}
	return along;
}

/* restore_remember_dropped notes the relations a DROP inside another DROP removes */
static void
restore_remember_dropped(DropStmt *stmt)
{
	ListCell   *lc;

	if (stmt->removeType != OBJECT_TABLE && stmt->removeType != OBJECT_VIEW &&
		stmt->removeType != OBJECT_SEQUENCE)
		return;
	foreach(lc, stmt->objects)
	{
		char	   *name = restore_name(lfirst(lc));
		MemoryContext old;

		if (name == NULL || list_member(dropped_along, makeString(name)))
			continue;
		old = MemoryContextSwitchTo(TopMemoryContext);
		dropped_along = lappend(dropped_along, makeString(pstrdup(name)));
		MemoryContextSwitchTo(old);
	}
}

/* restore_drop runs a DROP, counting how deep in DROPs the backend is */
static void
restore_drop(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
				 ProcessUtilityContext context, ParamListInfo params,
				 QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	drop_depth++;
	PG_TRY();
	{
		utility_hook_next(prev_process_utility, pstmt, queryString, readOnlyTree, context,
						  params, queryEnv, dest, qc);
	}
	PG_FINALLY();
	{
		drop_depth--;
	}
	PG_END_TRY();
}

/*
 * restore_utility (ProcessUtility_hook) answers the statements of the
 * file header, and passes every other one on.
 */
static void
restore_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
					ProcessUtilityContext context, ParamListInfo params,
					QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *stmt = pstmt->utilityStmt;
	bool		dump = restore_running_dump();
	Oid			relid;

	if (dump && IsA(stmt, AlterTableStmt) &&
		restore_drops_primary_key_only((AlterTableStmt *) stmt, &relid))
	{
		restore_note_key_dropped(relid);
		ereport(NOTICE,
				(errmsg("the primary key of ots storage table \"%s\" stays until the table is dropped",
						((AlterTableStmt *) stmt)->relation->relname),
				 errdetail("ots writes rows straight into its storage, which keeps its primary key as long as it exists.")));
		return;
	}
	if (dump && IsA(stmt, CommentStmt) && restore_same_extension_comment((CommentStmt *) stmt))
		return;
	if (!IsA(stmt, DropStmt))
	{
		utility_hook_next(prev_process_utility, pstmt, queryString, readOnlyTree, context,
						  params, queryEnv, dest, qc);
		return;
	}
	if (drop_depth > 0)
		restore_remember_dropped((DropStmt *) stmt);
	else if (dump && restore_gone_along((DropStmt *) stmt))
	{
		PlannedStmt *copy = copyObject(pstmt);

		((DropStmt *) copy->utilityStmt)->missing_ok = true;
		restore_drop(copy, queryString, false, context, params, queryEnv, dest, qc);
		return;
	}
	restore_drop(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
}

/* restore_utility_init installs the hook; from _PG_init */
void
restore_utility_init(void)
{
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = restore_utility;
}
