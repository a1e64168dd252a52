/*-------------------------------------------------------------------------
 * src/purge.c
 *	  The per-row C half of ots.purge: which cells and rows the purge
 *	  removes, and the event trigger that removes ots's pg_cron jobs when
 *	  the extension is dropped.
 *
 * Purge keeps exactly the cells a read sees: the decisions are made by
 * read_select's select_row_exists and select_visible_* with the options
 * and "now" the purge passes in, so purge and reads cannot disagree.  A
 * rewritten row keeps its row marker (row_ts).  The batching, locking and
 * scheduling live in src/sql/50_expiry.sql.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/event_trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "nodes/parsenodes.h"

#include "catalog.h"
#include "cells.h"
#include "purge.h"
#include "read_select.h"

/* TTL is at most INT32_MAX seconds (see ots.check_table_options) */
#define PURGE_MAX_TIME_TO_LIVE PG_INT32_MAX

static void purge_select_init(ReadSelect *sel, int64 time_to_live, int32 max_versions,
							  int64 now_ms);
static uint32 purge_column_visible(const ReadSelect *sel, const CellsColumn *col);
static bool purge_removes_cells(const ReadSelect *sel, const CellsReader *r);
static int64 purge_oldest_kept(const ReadSelect *sel, const CellsReader *r);

PG_FUNCTION_INFO_V1(ots_purge_cells);
PG_FUNCTION_INFO_V1(ots_purge_oldest_ts);
PG_FUNCTION_INFO_V1(ots_cells_oldest_ts);
PG_FUNCTION_INFO_V1(ots_cells_row_exists);
PG_FUNCTION_INFO_V1(ots_cells_purgeable);
PG_FUNCTION_INFO_V1(ots_cells_count);
PG_FUNCTION_INFO_V1(ots_drop_extension_trigger);

/*
 * purge_select_init sets up the visibility rules of a table with these
 * options at this moment, rejecting values no table can have.
 */
static void
purge_select_init(ReadSelect *sel, int64 time_to_live, int32 max_versions, int64 now_ms)
{
	OtsTable	t;

	if (time_to_live != -1 && (time_to_live < 1 || time_to_live > PURGE_MAX_TIME_TO_LIVE))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("time_to_live must be -1 or between 1 and %d, not " INT64_FORMAT,
						PURGE_MAX_TIME_TO_LIVE, time_to_live)));
	if (max_versions < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_versions must be at least 1, not %d", max_versions)));
	if (now_ms < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("now_ms must not be negative")));
	memset(&t, 0, sizeof(t));
	t.time_to_live = time_to_live;
	t.max_versions = max_versions;
	select_init(sel, &t, now_ms);
}

/* purge_column_visible counts the column's cells a read sees */
static uint32
purge_column_visible(const ReadSelect *sel, const CellsColumn *col)
{
	SelectedCells sc;
	int64		ts;
	OtsValue	v;
	uint32		n = 0;

	select_visible_begin(&sc, sel, col);
	while (select_column_next(&sc, &ts, &v))
		n++;
	return n;
}

/* purge_removes_cells: does the row hold a cell reads do not see? */
static bool
purge_removes_cells(const ReadSelect *sel, const CellsReader *r)
{
	for (uint32 i = 0; i < r->ncols; i++)
	{
		CellsColumn col;

		cells_column_at(r, i, &col);
		if (purge_column_visible(sel, &col) < col.ncells)
			return true;
	}
	return false;
}

/*
 * purge_oldest_kept is the oldest timestamp among the cells reads see, or
 * the row marker when they see none.
 */
static int64
purge_oldest_kept(const ReadSelect *sel, const CellsReader *r)
{
	int64		oldest = PG_INT64_MAX;

	for (uint32 i = 0; i < r->ncols; i++)
	{
		CellsColumn col;
		SelectedCells sc;
		int64		ts;
		OtsValue	v;

		cells_column_at(r, i, &col);
		select_visible_begin(&sc, sel, &col);
		while (select_column_next(&sc, &ts, &v))
			oldest = Min(oldest, ts);	/* the last one is the column's oldest */
	}
	return oldest == PG_INT64_MAX ? r->row_ts : oldest;
}

/*
 * purge_cells_oldest_ts is "$oldest_ts" for a stored row: its oldest cell,
 * or its row marker when it has no cells (every cell counts, visible or not).
 */
int64
purge_cells_oldest_ts(const struct varlena *cells)
{
	ReadSelect	sel;
	CellsReader r;

	purge_select_init(&sel, -1, PG_INT32_MAX, 0);
	cells_reader_init(&r, cells);
	return purge_oldest_kept(&sel, &r);
}

/*
 * ots_purge_cells is ots.purge_cells(cells, time_to_live, max_versions,
 * now_ms): the row's cells without those reads do not see under these
 * options at now_ms (same row marker), or NULL when the row itself no
 * longer exists by the row rule and should be deleted.
 */
Datum
ots_purge_cells(PG_FUNCTION_ARGS)
{
	struct varlena *cells = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	ReadSelect	sel;
	CellsReader r;
	CellsBuilder *b;

	purge_select_init(&sel, PG_GETARG_INT64(1), PG_GETARG_INT32(2), PG_GETARG_INT64(3));
	cells_reader_init(&r, cells);
	if (!select_row_exists(&sel, &r))
		PG_RETURN_NULL();
	if (!purge_removes_cells(&sel, &r))
		PG_RETURN_POINTER(cells);

	b = cells_builder_create(r.row_ts);
	for (uint32 i = 0; i < r.ncols; i++)
	{
		CellsColumn col;
		SelectedCells sc;
		int64		ts;
		OtsValue	v;

		cells_column_at(&r, i, &col);
		select_visible_begin(&sc, &sel, &col);
		while (select_column_next(&sc, &ts, &v))
			cells_builder_add(b, col.name, col.namelen, ts, &v);
	}
	PG_RETURN_POINTER(cells_builder_finish(b, 0));
}

/*
 * ots_purge_oldest_ts is ots.purge_oldest_ts(cells, time_to_live,
 * max_versions, now_ms): "$oldest_ts" of what ots.purge_cells keeps (NULL
 * when it keeps nothing), computed without building it.
 */
Datum
ots_purge_oldest_ts(PG_FUNCTION_ARGS)
{
	struct varlena *cells = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	ReadSelect	sel;
	CellsReader r;

	purge_select_init(&sel, PG_GETARG_INT64(1), PG_GETARG_INT32(2), PG_GETARG_INT64(3));
	cells_reader_init(&r, cells);
	if (!select_row_exists(&sel, &r))
		PG_RETURN_NULL();
	PG_RETURN_INT64(purge_oldest_kept(&sel, &r));
}

/*
 * ots_cells_oldest_ts is ots.cells_oldest_ts(cells): what "$oldest_ts"
 * holds for these cells (oldest cell, or the row marker without cells).
 */
Datum
ots_cells_oldest_ts(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(purge_cells_oldest_ts(PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0))));
}

/*
 * ots_cells_row_exists is ots.cells_row_exists(cells, time_to_live,
 * now_ms): the row rule, as reads apply it.
 */
Datum
ots_cells_row_exists(PG_FUNCTION_ARGS)
{
	struct varlena *cells = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	ReadSelect	sel;
	CellsReader r;

	purge_select_init(&sel, PG_GETARG_INT64(1), 1, PG_GETARG_INT64(2));
	cells_reader_init(&r, cells);
	PG_RETURN_BOOL(select_row_exists(&sel, &r));
}

/*
 * ots_cells_purgeable is ots.cells_purgeable(cells, time_to_live,
 * max_versions, now_ms): would ots.purge_cells change the row?
 */
Datum
ots_cells_purgeable(PG_FUNCTION_ARGS)
{
	struct varlena *cells = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	ReadSelect	sel;
	CellsReader r;

	purge_select_init(&sel, PG_GETARG_INT64(1), PG_GETARG_INT32(2), PG_GETARG_INT64(3));
	cells_reader_init(&r, cells);
	PG_RETURN_BOOL(!select_row_exists(&sel, &r) || purge_removes_cells(&sel, &r));
}

/* ots_cells_count is ots.cells_count(cells): every cell stored, visible or not */
Datum
ots_cells_count(PG_FUNCTION_ARGS)
{
	CellsReader r;

	cells_reader_init(&r, PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0)));
	PG_RETURN_INT64((int64) cells_ncells_total(&r));
}

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
