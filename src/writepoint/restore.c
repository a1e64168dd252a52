/*-------------------------------------------------------------------------
 * src/writepoint/restore.c
 *	  What ots knows of restores: whether a session runs a dump's script
 *	  (restore_running_dump), whether the rows it writes are the table's
 *	  owner's restore (restore_loading), and which leaves and chunk
 *	  relations a dump's script drops along with their table
 *	  (restore_cleaning).
 *
 * pg_restore (every format, every connection of -j) and psql running
 * pg_dump's plain output first run pg_dump's fixed preamble, which sets
 * row_security off, an empty search_path and check_function_bodies off;
 * a session doing ordinary work does not set all three.  The write point
 * takes the rows such a session loads for restored ones
 * (storage_write_change_kind) when the table's owner loads them
 * (restore_loading).  The statements of such a script that ots answers
 * itself, among them the primary-key drops that make a leaf one that goes
 * with its table, are src/ddl/restore_utility.c's.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rls.h"
#include "utils/syscache.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"

#include "asrole.h"
#include "writepoint/restore.h"

bool
restore_running_dump(void)
{
	/* set_config('search_path', '', false) stores "", SET search_path = '' stores "\"\"" */
	return !row_security && !check_function_bodies && namespace_search_path != NULL &&
		(strcmp(namespace_search_path, "") == 0 || strcmp(namespace_search_path, "\"\"") == 0);
}

/*
 * restore_loading: a dump's script loads its rows with plain statements,
 * as the role pg_restore logged in as or the role its --role names (which
 * the login role must be a member of).  Rows count as the owner's restore
 * only when both the role writing them (the current user) has the owner's
 * rights and the login role (the session user) is a member of the owner's
 * role (a superuser is both): a role that could write the table's index
 * storage and stream log itself.  Never inside a SECURITY DEFINER function
 * (whoever's: a script's statements call none to load rows, and its SET
 * clauses can set the preamble for any caller) or a security-restricted
 * operation (an index expression, a materialized view, run as the owner
 * of other code).
 */
bool
restore_loading(Oid relid)
{
	Oid			owner;

	if (!restore_running_dump() || InLocalUserIdChange() || InSecurityRestrictedOperation())
		return false;
	owner = asrole_owner(relid);
	return has_privs_of_role(GetUserId(), owner) && is_member_of_role(GetSessionUserId(), owner);
}

/* the leaves and chunk relations whose primary key a dump's script asked to drop, this session */
static List *keys_dropped = NIL;

void
restore_note_key_dropped(Oid relid)
{
	MemoryContext old;
	ListCell   *lc;

	/* the storage's goes with it, whose DROP drops the whole table */
	if (get_rel_relkind(relid) != RELKIND_RELATION || list_member_oid(keys_dropped, relid))
		return;
	/* leaves gone since are forgotten (their OIDs may come back) */
	foreach(lc, keys_dropped)
		if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(lfirst_oid(lc))))
			keys_dropped = foreach_delete_current(keys_dropped, lc);
	old = MemoryContextSwitchTo(TopMemoryContext);
	keys_dropped = lappend_oid(keys_dropped, relid);
	MemoryContextSwitchTo(old);
}

bool
restore_cleaning(Oid leaf)
{
	return restore_running_dump() && list_member_oid(keys_dropped, leaf);
}
