/*-------------------------------------------------------------------------
 * src/asrole.c
 *	  Switches to another role the way VACUUM and REFRESH MATERIALIZED
 *	  VIEW do, for the code ots runs on a caller's behalf with rights the
 *	  caller lacks (leaf access and purge as the table's owner, catalog
 *	  writes as the owner of ots.tables).
 *
 * Inside, the user id is the other role in a security-restricted
 * operation (no SET ROLE, no temporary objects, no deferred triggers of
 * the caller's), and the search path is pinned to pg_catalog, then ots
 * (no temporary schema), so a caller's operator or function placed early
 * on its search_path can never run with the other role's rights.  The
 * path is pinned as an override search path, not a GUC change, because
 * GUCs cannot change in parallel mode and the read paths are parallel
 * safe; plans cached by SPI record the path they were made under.
 * Statements run inside still qualify every operator and function: the
 * pinned path is the second fence, not the first.
 *
 * The other way round, what the code inside sets (set_config for the
 * session or the transaction, a function's SET) ends with it: a GUC nest
 * level of its own, closed as an abort closes one, as VACUUM closes its
 * own around index code.  Else a tenant's index expression could put its
 * schema first on a superuser writer's search_path for the rest of the
 * session, whose later unqualified names would run the tenant's functions
 * with the superuser's rights.  A level in which nothing changed opens and
 * closes legally in parallel mode; closing one costs a loop over every GUC
 * only in a transaction that has changed a setting (SET or SET LOCAL
 * earlier in it, a function's SET clause around the call).  An error
 * inside unwinds the user id, the path and the nest level with the
 * (sub)transaction, whose abort pops every nest level above its own.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "asrole.h"

/* asrole_push_path makes pg_catalog, ots the search path until PopOverrideSearchPath */
static void
asrole_push_path(void)
{
	OverrideSearchPath path;

	memset(&path, 0, sizeof(path));
	path.schemas = list_make2_oid(PG_CATALOG_NAMESPACE, get_namespace_oid("ots", false));
	path.addCatalog = false;
	path.addTemp = false;
	PushOverrideSearchPath(&path);	/* copies path */
	list_free(path.schemas);
}

/*
 * asrole_enter makes role the current user in a security-restricted
 * operation with search_path pinned and a GUC nest level of its own, until
 * asrole_leave(saved).  Pairs nest: leave in the reverse order of enter,
 * within the (sub)transaction that entered.
 */
void
asrole_enter(Oid role, AsRole *saved)
{
	GetUserIdAndSecContext(&saved->save_userid, &saved->save_sec_context);
	SetUserIdAndSecContext(role, saved->save_sec_context | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	asrole_push_path();
	saved->save_nestlevel = NewGUCNestLevel();
}

/*
 * asrole_leave undoes every setting changed since asrole_enter (as an
 * abort would), then restores the search path, user id and security
 * context
 */
void
asrole_leave(const AsRole *saved)
{
	AtEOXact_GUC(false, saved->save_nestlevel);
	PopOverrideSearchPath();
	SetUserIdAndSecContext(saved->save_userid, saved->save_sec_context);
}

/* asrole_owner is the owner of a relation, InvalidOid when there is none */
Oid
asrole_owner(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

/* asrole_catalog_owner is the owner of ots.tables (who created the extension) */
Oid
asrole_catalog_owner(void)
{
	Oid			owner = asrole_owner(get_relname_relid("tables", get_namespace_oid("ots", false)));

	if (!OidIsValid(owner))
		elog(ERROR, "ots.tables is missing");
	return owner;
}
