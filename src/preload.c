/*-------------------------------------------------------------------------
 * src/preload.c
 *	  ots needs shared_preload_libraries = 'ots': whether this backend got
 *	  ots so, and the one refusal of what needs it.
 *
 * ots's planner, executor and utility hooks must be in place before a
 * session's first statement is planned.  Loaded later, by that statement's
 * first call of an ots function, they miss it: an UPDATE or DELETE through
 * a table's view planned without the row lock of view_plan.c was refused
 * once and ran the second time, an INSERT ... ON CONFLICT through a view
 * failed on PostgreSQL's own conflict arbiter.  A statement must not fail
 * the first time and succeed the second, so, as TimescaleDB does, ots
 * requires preloading: CREATE EXTENSION ots and ALTER EXTENSION ots UPDATE
 * refuse without it (their scripts call ots.require_preload first), and on
 * a server started without it after ots was installed, every write through
 * a view is refused the same way (view_write.c, view_statement.c).  The
 * test is a flag set while _PG_init runs in
 * process_shared_preload_libraries, never a parse of the setting.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_authid_d.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/guc.h"

#include "preload.h"

PG_FUNCTION_INFO_V1(ots_require_preload);

/* ots was loaded by shared_preload_libraries (inherited by every backend) */
static bool preloaded = false;

void
preload_init(void)
{
	preloaded = process_shared_preload_libraries_in_progress;
}

/*
 * preload_hint: what to do, with the line to add and the file for a role
 * that may read the server's settings (those are superuser-only), else in
 * general terms.
 */
static char *
preload_hint(void)
{
	StringInfoData line;
	const char *current = shared_preload_libraries_string;

	if (!has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_SETTINGS) || ConfigFileName == NULL)
		return pstrdup("Add ots to shared_preload_libraries in postgresql.conf and restart the server.");
	initStringInfo(&line);
	for (const char *p = current != NULL ? current : ""; *p != '\0'; p++)
	{
		if (*p == '\'')
			appendStringInfoChar(&line, '\'');
		appendStringInfoChar(&line, *p);
	}
	appendStringInfoString(&line, line.len > 0 ? ",ots" : "ots");
	return psprintf("Add this line to %s and restart the server: shared_preload_libraries = '%s'",
					ConfigFileName, line.data);
}

void
preload_require(const char *detail)
{
	if (preloaded)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("ots must be loaded by shared_preload_libraries"),
			 errdetail_internal("%s", detail),
			 errhint("%s", preload_hint())));
}

/*
 * ots_require_preload is ots.require_preload(), the first statement of the
 * install and update scripts: CREATE EXTENSION ots and ALTER EXTENSION ots
 * UPDATE refuse unless ots is preloaded.
 */
Datum
ots_require_preload(PG_FUNCTION_ARGS)
{
	preload_require("ots's planner and executor hooks must be in place before a session's first "
					"statement is planned; loaded later, a write through a table's view would fail "
					"as a session's first statement and succeed the second time.");
	PG_RETURN_VOID();
}
