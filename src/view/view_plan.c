/*-------------------------------------------------------------------------
 * src/view/view_plan.c
 *	  Prepares a statement that writes an ots table's view (its INSTEAD OF
 *	  trigger, view_write.c, makes each row's write) before PostgreSQL
 *	  plans it.
 *
 * UPDATE and DELETE lock the rows they read.  PostgreSQL feeds an INSTEAD
 * OF trigger the view's rows as its snapshot saw them, unlocked: two
 * sessions running UPDATE ... SET balance = balance - 10 would both read
 * 100 and both write 90.  So the view's storage is read FOR UPDATE, as
 * SELECT ... FROM view FOR UPDATE would read it, and the view's subquery
 * loses its security barrier, so that PostgreSQL merges it into the
 * statement: the rows are locked above the statement's conditions and
 * joins, only those the statement writes.  A row a concurrent transaction
 * changed is waited for, read again and the conditions checked on its new
 * version (READ COMMITTED), or the statement fails with a serialization
 * error (REPEATABLE READ and above); SET expressions are computed from the
 * row as locked.  The barrier goes only when the planning role may read
 * every stored row with plain SQL (and a statement run by another role
 * refuses to start unless that one may: view_statement.c), and not under
 * the conditions of a security barrier view over the ots view.  The lock needs UPDATE on the storage, which the view's owner
 * has; the caller's privileges for the writes are checked as the statement
 * starts (view_statement.c).
 *
 * INSERT ... ON CONFLICT: PostgreSQL finds the arbiter of a conflict among
 * the target's unique indexes, and a view has none, so a conflict target
 * is checked here (it must be the table's primary key) and removed; what
 * ON CONFLICT then does is the trigger's: DO NOTHING leaves an existing
 * row alone, DO UPDATE SET c = EXCLUDED.c, ... merges those columns into
 * it.  Other DO UPDATE forms (expressions, WHERE) are refused: the trigger
 * does not evaluate them.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "catalog/pg_class.h"
#include "parser/analyze.h"
#include "parser/parsetree.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"

#include "meta/catalog.h"
#include "errors.h"
#include "api/row_ops.h"
#include "view/view_plan.h"

/* view_plan_table: the ots table whose view relid is, or NULL */
static OtsTable *
view_plan_table(Oid relid)
{
	return get_rel_relkind(relid) == RELKIND_VIEW ? catalog_lookup_by_view_oid(relid) : NULL;
}

/*
 * view_plan_may_read: may the planning role read and write t's storage as
 * the row API's UPDATE needs, with no row-level security applying there?
 * (view_statement.c checks it again, as an error, before any row is read.)
 */
static bool
view_plan_may_read(const OtsTable *t, CmdType operation)
{
	AclMode		mode = row_write_privileges(operation == CMD_UPDATE ? ROW_WRITE_UPDATE
											: ROW_WRITE_DELETE);

	return !t->is_index &&
		pg_class_aclmask(t->data_oid, GetUserId(), mode, ACLMASK_ALL) == mode &&
		check_enable_rls(t->data_oid, InvalidOid, true) != RLS_ENABLED;
}

/*
 * view_plan_lock_rows: UPDATE or DELETE of an ots view reads its storage
 * FOR UPDATE, without the view's security barrier.  The rewriter made the
 * view's query the subquery that the statement's "wholerow" junk column
 * (the OLD row the trigger gets) reads.
 */
static void
view_plan_lock_rows(Query *parse, const OtsTable *t)
{
	ListCell   *lc;

	foreach(lc, parse->targetList)
	{
		TargetEntry *tle = lfirst(lc);
		Var		   *var = (Var *) tle->expr;
		RangeTblEntry *source;
		Query	   *view_query;
		RangeTblRef *from;
		RangeTblEntry *storage;

		if (!tle->resjunk || tle->resname == NULL || strcmp(tle->resname, "wholerow") != 0 ||
			!IsA(var, Var) || var->varattno != 0 || var->varlevelsup != 0)
			continue;
		source = rt_fetch(var->varno, parse->rtable);
		if (source->rtekind != RTE_SUBQUERY || source->subquery == NULL)
			continue;
		view_query = source->subquery;
		if (view_query->rowMarks != NIL || list_length(view_query->jointree->fromlist) != 1)
			continue;
		from = linitial(view_query->jointree->fromlist);
		if (!IsA(from, RangeTblRef))
			continue;
		storage = rt_fetch(from->rtindex, view_query->rtable);
		if (storage->rtekind != RTE_RELATION || storage->relid != t->data_oid)
			continue;
		/* pushed down, as from the statement: the subquery may be merged into it */
		applyLockingClause(view_query, from->rtindex, LCS_FORUPDATE, LockWaitBlock, true);
		/*
		 * The barrier goes only where it hides nothing from this role, and
		 * never under a security barrier view's conditions on it (merging
		 * the subquery would drop them).  Where it stays, the rows are locked
		 * inside the view, before the statement's other conditions.
		 */
		if (source->securityQuals == NIL && view_plan_may_read(t, parse->commandType))
			source->security_barrier = false;
		storage->requiredPerms |= ACL_SELECT_FOR_UPDATE;
		storage->rellockmode = RowShareLock;
		LockRelationOid(storage->relid, RowShareLock);
	}
}

/* view_plan_refuse: an ON CONFLICT form the view's trigger cannot carry out */
static void
view_plan_refuse(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s is not supported on an ots table's view", what),
			 errhint("Use ON CONFLICT DO NOTHING, or ON CONFLICT (primary key) DO UPDATE SET column = EXCLUDED.column, ...")));
}

/*
 * view_plan_on_conflict: the conflict target of INSERT ... ON CONFLICT on
 * an ots view must be its primary key; DO UPDATE may only SET columns to
 * the row proposed for insertion.
 */
static void
view_plan_on_conflict(Query *parse, OtsTable *t)
{
	OnConflictExpr *oc = parse->onConflict;
	Bitmapset  *target = NULL;
	Bitmapset  *keys = NULL;
	ListCell   *lc;
	RangeTblEntry *view = rt_fetch(parse->resultRelation, parse->rtable);

	if (OidIsValid(oc->constraint))
		view_plan_refuse("ON CONFLICT ON CONSTRAINT");
	for (int i = 0; i < t->npk; i++)
		keys = bms_add_member(keys, get_attnum(view->relid, t->pk[i].name));
	foreach(lc, oc->arbiterElems)
	{
		InferenceElem *elem = lfirst(lc);
		Var		   *var = (Var *) elem->expr;

		if (!IsA(var, Var) || var->varno != parse->resultRelation)
			view_plan_refuse("an ON CONFLICT target other than the primary key columns");
		target = bms_add_member(target, var->varattno);
	}
	if (oc->arbiterElems != NIL && (!bms_equal(target, keys) || oc->arbiterWhere != NULL))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_COLUMN_REFERENCE),
				 errmsg("there is no unique or exclusion constraint matching the ON CONFLICT specification"),
				 errdetail("The only unique key of ots table %s.%s is its primary key.",
						   t->schema_name, t->table_name)));
	if (oc->action == ONCONFLICT_UPDATE)
	{
		if (oc->onConflictWhere != NULL)
			view_plan_refuse("ON CONFLICT DO UPDATE ... WHERE");
		foreach(lc, oc->onConflictSet)
		{
			TargetEntry *tle = lfirst(lc);
			Var		   *var = (Var *) tle->expr;

			if (tle->resjunk)
				continue;
			if (!IsA(var, Var) || var->varno != oc->exclRelIndex || var->varattno != tle->resno)
				view_plan_refuse("ON CONFLICT DO UPDATE SET of anything but the same EXCLUDED column");
			if (bms_is_member(tle->resno, keys))
				ots_parameter_invalid(psprintf("Primary key column '%s' cannot be updated.", tle->resname),
									  "ON CONFLICT DO UPDATE SET names the columns merged into the existing row.");
		}
	}
	/* no unique index decides the conflict: the trigger's PutRow does */
	oc->arbiterElems = NIL;
	oc->arbiterWhere = NULL;
}

/* view_plan_query: one query level writing a view */
static void
view_plan_query(Query *parse)
{
	ListCell   *lc;
	OtsTable   *t;

	foreach(lc, parse->cteList)
	{
		CommonTableExpr *cte = lfirst(lc);

		if (IsA(cte->ctequery, Query))
			view_plan_query((Query *) cte->ctequery);
	}
	if (parse->resultRelation <= 0 ||
		(parse->commandType != CMD_INSERT && parse->commandType != CMD_UPDATE &&
		 parse->commandType != CMD_DELETE))
		return;
	t = view_plan_table(rt_fetch(parse->resultRelation, parse->rtable)->relid);
	if (t == NULL)
		return;
	if (parse->commandType == CMD_INSERT && parse->onConflict != NULL)
		view_plan_on_conflict(parse, t);
	else if (parse->commandType != CMD_INSERT)
		view_plan_lock_rows(parse, t);
}

void
view_plan_dml(Query *parse)
{
	if (parse->commandType == CMD_SELECT && !parse->hasModifyingCTE)
		return;
	view_plan_query(parse);
}
