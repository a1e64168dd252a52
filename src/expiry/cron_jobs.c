/*-------------------------------------------------------------------------
 * src/expiry/cron_jobs.c
 *	  The C side of ots's pg_cron jobs: the event trigger that removes them
 *	  when the extension is dropped.
 *
 * The jobs themselves are scheduled and removed in SQL (ots.expiry_sync,
 * ots.unschedule_all in src/sql/50_expiry.sql, beside this trigger's
 * declaration), which reach pg_cron only through EXECUTE, so ots works
 * without it.  The trigger is C because at ddl_command_start only C can
 * read which extensions the DROP statement names.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/event_trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "nodes/parsenodes.h"

PG_FUNCTION_INFO_V1(ots_drop_extension_trigger);

/*
 * ots_drop_extension_trigger runs at ddl_command_start of DROP EXTENSION:
 * when ots is among the extensions dropped, it removes ots's pg_cron jobs
 * of this database (ots.unschedule_all) before the extension goes, in the
 * same transaction, so a failed DROP keeps them.  An extension-owned
 * sql_drop trigger could not do this: it is dropped with the extension
 * before it would fire.
 */
Datum
ots_drop_extension_trigger(PG_FUNCTION_ARGS)
{
	EventTriggerData *trigdata;
	DropStmt   *stmt;
	ListCell   *lc;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_EVENT_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function \"%s\" was not called by the event trigger manager",
						"ots.drop_extension_trigger")));
	trigdata = (EventTriggerData *) fcinfo->context;
	if (!IsA(trigdata->parsetree, DropStmt))
		PG_RETURN_VOID();
	stmt = (DropStmt *) trigdata->parsetree;
	if (stmt->removeType != OBJECT_EXTENSION)
		PG_RETURN_VOID();
	foreach(lc, stmt->objects)
	{
		Node	   *name = (Node *) lfirst(lc);

		if (IsA(name, String) && strcmp(strVal(name), "ots") == 0)
		{
			if (SPI_connect() != SPI_OK_CONNECT)
				elog(ERROR, "SPI_connect failed");
			if (SPI_execute("SELECT ots.unschedule_all()", false, 0) != SPI_OK_SELECT)
				elog(ERROR, "could not remove the pg_cron jobs of ots");
			SPI_finish();
			break;
		}
	}
	PG_RETURN_VOID();
}
