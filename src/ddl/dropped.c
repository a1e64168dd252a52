/*-------------------------------------------------------------------------
 * src/ddl/dropped.c
 *	  What the drop clean-up (ots.storage_dropped, src/sql/60_ddl.sql)
 *	  asks of the relations a transaction dropped: their owners, and
 *	  whether the dropped view is one ots.sync_table_view makes again.
 *
 * ots finds a table's view, sequence and stream relations by name beside
 * its storage, and they are the table's only when they have the storage's
 * owner (storage_is_part): any role with CREATE on the schema may make a
 * relation of such a name.  When a DROP removes a table's view or storage,
 * the sql_drop clean-up must tell the table's relations from such others,
 * but pg_event_trigger_dropped_objects() says nothing of owners, and the
 * dropped relations are gone from the catalog by then.  So an
 * object_access_hook notes, as each relation is about to be dropped
 * (OAT_DROP, its catalog row still there), its schema's name (DROP SCHEMA
 * ... CASCADE drops the schema too), its name and its owner, for the rest
 * of the transaction; ots.relation_owner answers from the catalog, or from
 * these notes for a name that is gone.
 *
 * ots.sync_table_view drops a table's view and makes it again:
 * ots.view_replacing marks the view beforehand, and ots.view_replaced
 * tells the clean-up that this view's drop is not its table's.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_class.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "asrole.h"
#include "ddl/dropped.h"

/* a relation this transaction dropped */
typedef struct DroppedRelation
{
	NameData	nspname;
	NameData	name;
	Oid			owner;
} DroppedRelation;

static object_access_hook_type prev_object_access = NULL;

/* the relations dropped by transaction dropped_lxid, latest last (in its TopTransactionContext) */
static List *dropped = NIL;
static LocalTransactionId dropped_lxid = InvalidLocalTransactionId;

/* dropped_note notes relation relid, which is about to be dropped */
static void
dropped_note(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Form_pg_class form;
	MemoryContext old;
	DroppedRelation *d;
	char	   *nspname;

	if (!HeapTupleIsValid(tup))
		return;
	form = (Form_pg_class) GETSTRUCT(tup);
	/* only what a name may stand for beside a storage: no index, TOAST table or type */
	if ((form->relkind == RELKIND_RELATION || form->relkind == RELKIND_PARTITIONED_TABLE ||
		 form->relkind == RELKIND_VIEW || form->relkind == RELKIND_SEQUENCE) &&
		(nspname = get_namespace_name(form->relnamespace)) != NULL)
	{
		if (dropped_lxid != MyProc->lxid)
		{
			dropped = NIL;		/* the list of an earlier transaction went with its memory */
			dropped_lxid = MyProc->lxid;
		}
		old = MemoryContextSwitchTo(TopTransactionContext);
		d = palloc(sizeof(DroppedRelation));
		namestrcpy(&d->nspname, nspname);
		d->name = form->relname;
		d->owner = form->relowner;
		dropped = lappend(dropped, d);
		MemoryContextSwitchTo(old);
	}
	ReleaseSysCache(tup);
}

static void
dropped_object_access(ObjectAccessType access, Oid classId, Oid objectId, int subId, void *arg)
{
	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);
	if (access == OAT_DROP && classId == RelationRelationId && subId == 0)
		dropped_note(objectId);
}

/* dropped_init installs the hook; from _PG_init */
void
dropped_init(void)
{
	prev_object_access = object_access_hook;
	object_access_hook = dropped_object_access;
}

PG_FUNCTION_INFO_V1(ots_relation_owner);

/*
 * ots_relation_owner is ots.relation_owner(schema_name, relation_name): the
 * owner of the relation of that name in that schema, or, when there is
 * none, of the last one of that name this transaction dropped; NULL when
 * neither.
 */
Datum
ots_relation_owner(PG_FUNCTION_ARGS)
{
	Oid			nsp = get_namespace_oid(NameStr(*PG_GETARG_NAME(0)), true);
	const char *name = NameStr(*PG_GETARG_NAME(1));
	Oid			relid = OidIsValid(nsp) ? get_relname_relid(name, nsp) : InvalidOid;
	Oid			owner = InvalidOid;
	ListCell   *lc;

	if (OidIsValid(relid))
		owner = asrole_owner(relid);
	else if (dropped_lxid == MyProc->lxid)
		foreach(lc, dropped)
		{
			DroppedRelation *d = lfirst(lc);

			if (strcmp(NameStr(d->nspname), NameStr(*PG_GETARG_NAME(0))) == 0 &&
				strcmp(NameStr(d->name), name) == 0)
				owner = d->owner;
		}
	if (!OidIsValid(owner))
		PG_RETURN_NULL();
	PG_RETURN_OID(owner);
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
