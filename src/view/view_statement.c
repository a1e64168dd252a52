/*-------------------------------------------------------------------------
 * src/view/view_statement.c
 *	  What the INSTEAD OF trigger of an ots view (view_write.c) learns of
 *	  the statement it runs in, and the checks such a statement passes
 *	  before it reads a row.
 *
 * A row trigger is given the row, not its statement: not the ON CONFLICT
 * clause, not whether the statement returns rows.  An ExecutorStart hook
 * records each ModifyTable on a view as its statement starts, in a list
 * the trigger searches by view and operation, innermost statement first;
 * an entry lives in its statement's executor memory and is unlinked by a
 * reset callback when that memory goes, also on error.  A COPY FROM
 * pushes a marker (view_copy.c): a write found under it is the COPY's,
 * with plain INSERT semantics, whatever statement runs the COPY.
 *
 * Privileges are checked once per statement, as PostgreSQL checks a
 * table's when its statement starts: before an INSERT, UPDATE or DELETE of
 * an ots view reads or writes a row, the caller must hold what the row
 * API's write of each row needs on the storage (row_write_privileges),
 * with no row-level security applying to it there
 * (rowstore_check_privileges).  The entry records the role and the
 * privileges checked, and each row's write (view_write.c) tells the row API
 * not to check them again when it runs as that role; a row written as
 * another role (a SET ROLE inside the statement) is checked as the API's
 * calls are.  An INSERT's row reads the row its key names (EXPECT_NOT_EXIST)
 * unless the key is generated, which needs SELECT: the statement notes
 * whether the caller holds it, and a row that reads without it is refused
 * by the row API, as it is there.  A COPY is checked by its batches
 * (row_bulk_put_new).
 *
 * UPDATE and DELETE of an ots view read the rows they write without the
 * view's security barrier, FOR UPDATE (view_plan.c), so their check comes
 * before any row is read, SELECT included: whatever a condition of the
 * statement sees of the rows the view hides, the caller could read with
 * plain SQL.  And the plan must lock the storage's rows: a plan made
 * without ots's planner hook (ots loaded by that very statement, when it
 * is not preloaded) is refused rather than run without the lock, with the
 * refusal every write through a view gets then (preload.c).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "catalog/pg_class.h"
#include "executor/executor.h"
#include "nodes/plannodes.h"
#include "parser/parsetree.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "meta/catalog.h"
#include "preload.h"
#include "api/row_ops.h"
#include "store/rowstore.h"
#include "view/view_write.h"

static ViewStatement *view_statements = NULL;
static ExecutorStart_hook_type prev_executor_start = NULL;

/* view_statement_forget: a statement's executor state is gone (also on error) */
static void
view_statement_forget(void *arg)
{
	ViewStatement **p = &view_statements;

	while (*p != NULL && *p != (ViewStatement *) arg)
		p = &(*p)->next;
	if (*p != NULL)
		*p = (*p)->next;
}

ViewStatement *
view_statement_find(Oid view_oid, CmdType operation)
{
	for (ViewStatement *vs = view_statements; vs != NULL; vs = vs->next)
	{
		if (vs->estate == NULL)
			return NULL;		/* a COPY's */
		if (vs->view_oid == view_oid && vs->operation == operation)
			return vs;
	}
	return NULL;
}

void
view_statement_copy_begin(ViewStatement *marker)
{
	memset(marker, 0, sizeof(*marker));
	marker->next = view_statements;
	view_statements = marker;
}

void
view_statement_copy_end(ViewStatement *marker)
{
	view_statement_forget(marker);
}

/* view_statement_operation_name: "insert into", "update", "delete from" */
static const char *
view_statement_operation_name(CmdType operation)
{
	return operation == CMD_INSERT ? "insert into" :
		operation == CMD_UPDATE ? "update" : "delete from";
}

/*
 * view_statement_check_locked: an UPDATE or DELETE of ots table t's view
 * reads its storage FOR UPDATE (see the file header)
 */
static void
view_statement_check_locked(PlannedStmt *stmt, const OtsTable *t, CmdType operation)
{
	bool		locked = false;
	ListCell   *lc;

	foreach(lc, stmt->rowMarks)
	{
		PlanRowMark *rc = lfirst(lc);

		if (rt_fetch(rc->rti, stmt->rtable)->relid == t->data_oid &&
			rc->markType == ROW_MARK_EXCLUSIVE)
			locked = true;
	}
	if (!locked)
	{
		/* a plan made before ots's planner hook was in place */
		preload_require(PRELOAD_VIEW_WRITE_DETAIL);
		elog(ERROR, "the plan to %s the view of ots table %s does not lock its rows",
			 view_statement_operation_name(operation),
			 quote_qualified_identifier(t->schema_name, t->table_name));
	}
}

/*
 * view_statement_check: the checks a statement writing ots table t's view
 * passes before it reads or writes a row (see the file header); returns
 * the privileges on the storage it checked for the current role, none when
 * it runs no row (EXPLAIN without ANALYZE)
 */
static AclMode
view_statement_check(PlannedStmt *stmt, const OtsTable *t, CmdType operation, int eflags)
{
	AclMode		mode;

	if (operation != CMD_INSERT)
		view_statement_check_locked(stmt, t, operation);
	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return 0;
	mode = row_write_privileges(operation == CMD_INSERT ? ROW_WRITE_PUT :
								operation == CMD_UPDATE ? ROW_WRITE_UPDATE : ROW_WRITE_DELETE);
	rowstore_check_privileges(t, mode);
	if (operation == CMD_INSERT &&
		pg_class_aclmask(t->data_oid, GetUserId(), ACL_SELECT, ACLMASK_ALL) == ACL_SELECT)
		mode |= ACL_SELECT;
	return mode;
}

static void
view_statement_note(QueryDesc *queryDesc, ModifyTable *mt, int eflags)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;
	ListCell   *lc;

	foreach(lc, mt->resultRelations)
	{
		RangeTblEntry *rte = rt_fetch(lfirst_int(lc), stmt->rtable);
		ViewStatement *vs;
		MemoryContextCallback *cb;
		OtsTable   *t;
		AclMode		checked = 0;

		if (rte->rtekind != RTE_RELATION || rte->relkind != RELKIND_VIEW)
			continue;
		t = catalog_lookup_by_view_oid(rte->relid);
		if (t != NULL)
			checked = view_statement_check(stmt, t, mt->operation, eflags);
		/* the trigger tells a statement's writes of a view apart by operation only */
		for (ViewStatement *other = view_statements; other != NULL; other = other->next)
			if (other->estate == queryDesc->estate && other->view_oid == rte->relid &&
				other->operation == mt->operation)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("a statement cannot %s the view \"%s\" twice",
								view_statement_operation_name(mt->operation),
								get_rel_name(rte->relid)),
						 errhint("Write it in separate statements.")));
		vs = MemoryContextAllocZero(queryDesc->estate->es_query_cxt, sizeof(ViewStatement));
		vs->estate = queryDesc->estate;
		vs->view_oid = rte->relid;
		vs->operation = mt->operation;
		vs->returning = mt->returningLists != NIL;
		vs->on_conflict = mt->onConflictAction;
		vs->merge_attnos = mt->onConflictCols;
		vs->checked_role = GetUserId();
		vs->checked = checked;
		vs->next = view_statements;
		view_statements = vs;
		cb = MemoryContextAllocZero(queryDesc->estate->es_query_cxt, sizeof(MemoryContextCallback));
		cb->func = view_statement_forget;
		cb->arg = vs;
		MemoryContextRegisterResetCallback(queryDesc->estate->es_query_cxt, cb);
	}
}

/* view_statement_executor_start (ExecutorStart_hook) records each ModifyTable on a view */
static void
view_statement_executor_start(QueryDesc *queryDesc, int eflags)
{
	PlannedStmt *stmt;
	ListCell   *lc;

	if (prev_executor_start)
		prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
	stmt = queryDesc->plannedstmt;
	if (stmt->commandType == CMD_SELECT && !stmt->hasModifyingCTE)
		return;
	if (IsA(stmt->planTree, ModifyTable))
		view_statement_note(queryDesc, (ModifyTable *) stmt->planTree, eflags);
	foreach(lc, stmt->subplans)
		if (lfirst(lc) != NULL && IsA(lfirst(lc), ModifyTable))
			view_statement_note(queryDesc, lfirst(lc), eflags);
}

void
view_statement_init(void)
{
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = view_statement_executor_start;
}
