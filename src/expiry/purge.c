/*-------------------------------------------------------------------------
 * src/expiry/purge.c
 *	  The C half of ots.purge: which cells and rows the purge removes (per
 *	  row), the batch statement that removes them from one leaf as the
 *	  table's owner, and the purge lock.
 *
 * Purge keeps exactly the cells a read sees: the decisions are made by
 * format/visibility.c's visibility_row_exists and visibility_table_begin
 * with the options and "now" the purge passes in, so purge and reads
 * cannot disagree.  A rewritten row keeps its row marker (row_ts).
 *
 * Whoever runs the purge (a superuser's CALL ots.purge() from cron, a
 * pg_cron job), each batch runs as the table's owner in a
 * security-restricted operation (asrole), so code on the table (index
 * expressions, triggers) never runs with more rights than its owner's.
 * The purge lock is an advisory lock SQL cannot take, granted only to a
 * table's owner.  The passes, batching and scheduling live in
 * src/sql/50_expiry.sql.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/itemptr.h"
#include "storage/lock.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "asrole.h"
#include "meta/catalog.h"
#include "format/cells.h"
#include "ots_limits.h"
#include "meta/storage.h"
#include "format/visibility.h"
#include "store/announce.h"

/*
 * The purge lock of a table is an advisory lock on (database, 'ots',
 * storage OID) with a field4 that SQL's pg_advisory_* functions never use
 * (they use 1 and 2), so no role can take it through SQL; pg_locks shows it
 * as locktype advisory, classid 7304307, objid the storage OID, objsubid
 * 28532.
 */
#define PURGE_LOCK_CLASS 0x6f7473	/* 'ots' */
#define PURGE_LOCK_FIELD4 0x6f74	/* 'ot' */

/* the batch statement's parameters (see purge_batch_sql) */
#define PURGE_BATCH_NARGS 7

static void purge_select_init(Visibility *sel, int64 time_to_live, int32 max_versions,
							  int64 now_ms);
static bool purge_scan(const Visibility *sel, const CellsReader *r);
static struct varlena *purge_keep(const Visibility *sel, struct varlena *cells, int64 *oldest);

PG_FUNCTION_INFO_V1(ots_purge_row);
PG_FUNCTION_INFO_V1(ots_purge_chunk);
PG_FUNCTION_INFO_V1(ots_chunk_purgeable);
PG_FUNCTION_INFO_V1(ots_cells_last_column);
PG_FUNCTION_INFO_V1(ots_cells_column_count);
PG_FUNCTION_INFO_V1(ots_purge_cells);
PG_FUNCTION_INFO_V1(ots_purge_oldest_ts);
PG_FUNCTION_INFO_V1(ots_cells_oldest_ts);
PG_FUNCTION_INFO_V1(ots_cells_row_exists);
PG_FUNCTION_INFO_V1(ots_cells_purgeable);
PG_FUNCTION_INFO_V1(ots_cells_count);
PG_FUNCTION_INFO_V1(ots_purge_batch);
PG_FUNCTION_INFO_V1(ots_purge_lock);
PG_FUNCTION_INFO_V1(ots_purge_unlock);

/*
 * purge_select_init sets up the visibility rules of a table with these
 * options at this moment, rejecting values no table can have.
 */
static void
purge_select_init(Visibility *sel, int64 time_to_live, int32 max_versions, int64 now_ms)
{
	OtsTable	t;

	if (time_to_live != -1 && (time_to_live < 1 || time_to_live > OTS_MAX_TIME_TO_LIVE))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("time_to_live must be -1 or between 1 and %d, not " INT64_FORMAT,
						OTS_MAX_TIME_TO_LIVE, time_to_live)));
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
	visibility_init(sel, &t, now_ms);
}

/*
 * purge_scan tells whether the row holds a cell reads do not see, walking
 * the cells they see up to the first column that has one.
 */
static bool
purge_scan(const Visibility *sel, const CellsReader *r)
{
	for (uint32 i = 0; i < r->ncols; i++)
	{
		CellsColumn col;
		SelectedCells sc;
		int64		ts;
		OtsValue	v;
		uint32		n = 0;

		cells_column_at(r, i, &col);
		visibility_table_begin(&sc, sel, &col);
		while (visibility_column_next(&sc, &ts, &v))
			n++;
		if (n < col.ncells)
			return true;
	}
	return false;
}

/*
 * purge_keep is what the purge keeps of a row under sel: NULL when the row
 * no longer exists by the row rule, otherwise its cells without those reads
 * do not see (cells itself when there are none, same row marker), and
 * their "$oldest_ts" in *oldest.
 */
static struct varlena *
purge_keep(const Visibility *sel, struct varlena *cells, int64 *oldest)
{
	CellsReader r;
	CellsBuilder *b;
	struct varlena *kept;

	/* a split row's head stays while its row does: its chunks are purged as chunks */
	if (cells_is_head(cells))
	{
		*oldest = cells_oldest_ts(cells);
		return cells;
	}
	cells_reader_init(&r, cells);
	if (!visibility_row_exists(sel, &r))
		return NULL;
	/* a row the purge rewrites, the common case, is walked up to its first removal only */
	if (!purge_scan(sel, &r))
	{
		/* it keeps every cell */
		*oldest = cells_oldest_ts(cells);
		return cells;
	}

	b = cells_builder_create(r.row_ts);
	for (uint32 i = 0; i < r.ncols; i++)
	{
		CellsColumn col;
		SelectedCells sc;
		int64		ts;
		OtsValue	v;

		cells_column_at(&r, i, &col);
		visibility_table_begin(&sc, sel, &col);
		while (visibility_column_next(&sc, &ts, &v))
			cells_builder_add(b, col.name, col.namelen, ts, &v);
	}
	kept = cells_builder_finish(b, 0);
	*oldest = cells_builder_oldest_ts(b);
	return kept;
}

/*
 * purge_result_desc: the function's result type, blessed once per call
 * site: the purge calls these per row
 */
static TupleDesc
purge_result_desc(FunctionCallInfo fcinfo)
{
	TupleDesc	desc = (TupleDesc) fcinfo->flinfo->fn_extra;

	if (desc == NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);

		if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "function returning record called in context that cannot accept type record");
		desc = BlessTupleDesc(desc);
		fcinfo->flinfo->fn_extra = desc;
		MemoryContextSwitchTo(oldcxt);
	}
	return desc;
}

/*
 * ots_purge_row is ots.purge_row(cells, time_to_live, max_versions,
 * now_ms): what the purge stores for a row, the cells reads see under these
 * options at now_ms (same row marker) and their "$oldest_ts" (as the cells
 * builder reports it), or NULLs when the row no longer exists by the row
 * rule and should be deleted.
 */
Datum
ots_purge_row(PG_FUNCTION_ARGS)
{
	Visibility	sel;
	struct varlena *kept;
	int64		oldest;
	TupleDesc	desc = purge_result_desc(fcinfo);
	Datum		values[2];
	bool		nulls[2] = {false, false};

	purge_select_init(&sel, PG_GETARG_INT64(1), PG_GETARG_INT32(2), PG_GETARG_INT64(3));
	kept = purge_keep(&sel, PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0)), &oldest);
	if (kept == NULL)
		nulls[0] = nulls[1] = true;
	else
	{
		values[0] = PointerGetDatum(kept);
		values[1] = Int64GetDatum(oldest);
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

/*
 * ots_purge_cells and ots_purge_oldest_ts are ots.purge_cells and
 * ots.purge_oldest_ts of ots 0.1.0, whose install script names them: kept
 * for installations not updated yet.  0.2.0's purge uses ots.purge_row.
 */
Datum
ots_purge_cells(PG_FUNCTION_ARGS)
{
	Visibility	sel;
	struct varlena *kept;
	int64		oldest;

	purge_select_init(&sel, PG_GETARG_INT64(1), PG_GETARG_INT32(2), PG_GETARG_INT64(3));
	kept = purge_keep(&sel, PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0)), &oldest);
	if (kept == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(kept);
}

Datum
ots_purge_oldest_ts(PG_FUNCTION_ARGS)
{
	Visibility	sel;
	int64		oldest;

	purge_select_init(&sel, PG_GETARG_INT64(1), PG_GETARG_INT32(2), PG_GETARG_INT64(3));
	if (purge_keep(&sel, PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0)), &oldest) == NULL)
		PG_RETURN_NULL();
	PG_RETURN_INT64(oldest);
}

/*
 * ots_cells_oldest_ts is ots.cells_oldest_ts(cells): what "$oldest_ts"
 * holds for these cells (oldest cell, or the row marker without cells).
 */
Datum
ots_cells_oldest_ts(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(cells_oldest_ts(PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0))));
}

/*
 * purge_keep_chunk is what the purge keeps of a chunk of a split row under
 * sel, newer of its last column's cells being in later chunks (a column's
 * newer versions follow it; only the last column of a chunk goes on into
 * the next): NULL when nothing is left, else its cells reads see, with
 * the chunk's row_ts their newest (cells itself when it keeps them all:
 * *changed false), and their "$oldest_ts" in *oldest.
 */
static struct varlena *
purge_keep_chunk(const Visibility *sel, struct varlena *cells, int64 newer, int64 *oldest,
				 bool *changed)
{
	CellsReader r;
	Visibility	last = *sel;
	CellsBuilder *b;
	struct varlena *kept;
	int64		newest = -1;
	uint32		removed = 0;

	*changed = false;
	cells_reader_init(&r, cells);
	/* the last column's versions already counted in later chunks */
	last.table_max_versions = newer >= sel->table_max_versions ? 0 :
		sel->table_max_versions - (int32) newer;
	b = cells_builder_create(r.row_ts);
	for (uint32 i = 0; i < r.ncols; i++)
	{
		CellsColumn col;
		SelectedCells sc;
		int64		ts;
		OtsValue	v;
		uint32		n = 0;

		cells_column_at(&r, i, &col);
		if (i == r.ncols - 1 && last.table_max_versions == 0)
		{
			removed += col.ncells;
			continue;
		}
		visibility_table_begin(&sc, i == r.ncols - 1 ? &last : sel, &col);
		while (visibility_column_next(&sc, &ts, &v))
		{
			cells_builder_add(b, col.name, col.namelen, ts, &v);
			newest = Max(newest, ts);
			n++;
		}
		removed += col.ncells - n;
	}
	if (cells_builder_ncells(b) == 0)
	{
		*changed = true;
		return NULL;
	}
	if (removed == 0)
	{
		*oldest = cells_oldest_ts(cells);
		return cells;
	}
	*changed = true;
	/* a chunk's row_ts is its newest cell: when that went, the newest left */
	cells_builder_set_row_ts(b, newest);
	kept = cells_builder_finish(b, 0);
	*oldest = cells_builder_oldest_ts(b);
	return kept;
}

/* purge_newer_arg: argument 4, how many newer cells of the last column later chunks hold */
static int64
purge_newer_arg(FunctionCallInfo fcinfo)
{
	int64		newer = PG_GETARG_INT64(4);

	if (newer < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("newer must not be negative")));
	return newer;
}

/*
 * ots_purge_chunk is ots.purge_chunk(cells, time_to_live, max_versions,
 * now_ms, newer): what the purge stores for a chunk of a split row, as
 * ots.purge_row does for a row (its cells' row_ts, the chunk's newest
 * cell, plays the row marker), with the chunk's new key, its first cell in
 * chunk order (format/cells.h), or NULLs when the chunk goes.  newer is how
 * many cells of its last column later chunks hold (purge_batch_sql counts
 * them in the trim pass), which count against max_versions.
 */
Datum
ots_purge_chunk(PG_FUNCTION_ARGS)
{
	Visibility	sel;
	struct varlena *kept;
	int64		oldest;
	TupleDesc	desc = purge_result_desc(fcinfo);
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};
	bool		changed;
	struct varlena *cells = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));

	purge_select_init(&sel, PG_GETARG_INT64(1), PG_GETARG_INT32(2), PG_GETARG_INT64(3));
	kept = cells_is_head(cells) ? NULL :
		purge_keep_chunk(&sel, cells, purge_newer_arg(fcinfo), &oldest, &changed);
	if (kept == NULL)
		memset(nulls, true, sizeof(nulls));
	else
	{
		CellsReader r;
		CellsColumn col;
		int64		ts = 0;
		OtsValue	v;

		cells_reader_init(&r, kept);
		if (r.ncols == 0)
			memset(nulls, true, sizeof(nulls));
		else
		{
			/* the first column's oldest cell: the last of its newest-first cells */
			cells_column_at(&r, 0, &col);
			while (cells_column_next(&col, &ts, &v))
				;
			values[0] = PointerGetDatum(kept);
			values[1] = Int64GetDatum(oldest);
			values[2] = PointerGetDatum(cstring_to_text_with_len(col.name, col.namelen));
			values[3] = Int64GetDatum(ts);
		}
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

/*
 * ots_chunk_purgeable is ots.chunk_purgeable(cells, time_to_live,
 * max_versions, now_ms, newer): would ots.purge_chunk change the chunk?
 */
Datum
ots_chunk_purgeable(PG_FUNCTION_ARGS)
{
	Visibility	sel;
	int64		oldest;
	bool		changed;
	struct varlena *cells = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));

	purge_select_init(&sel, PG_GETARG_INT64(1), PG_GETARG_INT32(2), PG_GETARG_INT64(3));
	if (cells_is_head(cells))
		PG_RETURN_BOOL(false);
	(void) purge_keep_chunk(&sel, cells, purge_newer_arg(fcinfo), &oldest, &changed);
	PG_RETURN_BOOL(changed);
}

/* ots_cells_last_column is ots.cells_last_column(cells): its last column's name, NULL without one */
Datum
ots_cells_last_column(PG_FUNCTION_ARGS)
{
	CellsColumn col;

	if (!cells_last_column(PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0)), &col))
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text_with_len(col.name, col.namelen));
}

/* ots_cells_column_count is ots.cells_column_count(cells, name): how many cells the column has */
Datum
ots_cells_column_count(PG_FUNCTION_ARGS)
{
	struct varlena *cells = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	text	   *name = PG_GETARG_TEXT_PP(1);
	CellsReader r;
	CellsColumn col;

	cells_reader_init(&r, cells);
	if (!cells_find_column(&r, VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name), &col))
		PG_RETURN_INT64(0);
	PG_RETURN_INT64((int64) col.ncells);
}

/*
 * ots_cells_row_exists is ots.cells_row_exists(cells, time_to_live,
 * now_ms): the row rule, as reads apply it.
 */
Datum
ots_cells_row_exists(PG_FUNCTION_ARGS)
{
	struct varlena *cells = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	Visibility	sel;
	CellsReader r;

	purge_select_init(&sel, PG_GETARG_INT64(1), 1, PG_GETARG_INT64(2));
	if (cells_is_head(cells))
	{
		/* a split row: its head knows; where it keeps only a bound, the row stays */
		CellsHead	h;
		bool		unsure;

		cells_head_read(cells, &h);
		PG_RETURN_BOOL(visibility_head_exists(&sel, &h, &unsure));
	}
	cells_reader_init(&r, cells);
	PG_RETURN_BOOL(visibility_row_exists(&sel, &r));
}

/*
 * ots_cells_purgeable is ots.cells_purgeable(cells, time_to_live,
 * max_versions, now_ms): would ots.purge_row change the row?
 */
Datum
ots_cells_purgeable(PG_FUNCTION_ARGS)
{
	struct varlena *cells = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	Visibility	sel;
	CellsReader r;

	purge_select_init(&sel, PG_GETARG_INT64(1), PG_GETARG_INT32(2), PG_GETARG_INT64(3));
	/* a split row's head holds no cell: it goes only with its row (the TTL pass) */
	if (cells_is_head(cells))
		PG_RETURN_BOOL(false);
	cells_reader_init(&r, cells);
	PG_RETURN_BOOL(!visibility_row_exists(&sel, &r) || purge_scan(&sel, &r));
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
 * purge_batch_sql is the statement that purges one batch of a leaf: it
 * chooses up to a batch of candidates, deletes those that no longer exist
 * by the row rule and rewrites the others with ots.purge_row, reaching
 * them by TID, and returns (candidates, rows deleted, rows rewritten, cells
 * removed).  Its WHERE and SET read l, the row being changed: a row changed
 * since c chose it fails the TID recheck and is left for the next batch.
 * It runs as the table's owner, so every operator and function in it is
 * schema-qualified.  Parameters: $1 the TTL pass's cutoff ("$oldest_ts" at
 * or before it holds an expired cell), $2 time_to_live, $3 max_versions,
 * $4 now_ms, $5 batch_size, $6 and $7 the trim pass's blocks [from, to).
 */
static char *
purge_batch_sql(const char *leaf, bool trimming, const char *chunk_key)
{
	StringInfoData sql;
	const char *candidates;
	const char *delete_if;
	const char *update_if;
	const char *set;

	if (chunk_key != NULL)
	{
		/*
		 * A chunk of a split row: the trim pass counts, against max_versions,
		 * the cells of its last column that later chunks hold (at most
		 * max_versions chunks of them are read); the chunk gets its new key
		 * with its cells, or goes when none is left (ots.purge_chunk).
		 */
		StringInfoData c;
		const char *newer = "0::pg_catalog.int8";

		initStringInfo(&c);
		if (trimming)
			newer = psprintf("COALESCE((SELECT pg_catalog.sum(ots.cells_column_count(n." STORAGE_CELLS_SQL
							 ", ots.cells_last_column(x." STORAGE_CELLS_SQL ")))"
							 " FROM (SELECT c2." STORAGE_CELLS_SQL " FROM %s c2 WHERE %s"
							 " AND c2." STORAGE_CHUNK_COLUMN_SQL " OPERATOR(pg_catalog.=) ots.cells_last_column(x." STORAGE_CELLS_SQL ")"
							 " AND (x." STORAGE_CHUNK_COLUMN_SQL " OPERATOR(pg_catalog.<) c2." STORAGE_CHUNK_COLUMN_SQL
							 " OR c2." STORAGE_CHUNK_TS_SQL " OPERATOR(pg_catalog.>) x." STORAGE_CHUNK_TS_SQL ")"
							 " ORDER BY c2." STORAGE_CHUNK_COLUMN_SQL ", c2." STORAGE_CHUNK_TS_SQL " LIMIT $3) n)::pg_catalog.int8, 0)",
							 leaf, chunk_key);
		appendStringInfo(&c, "SELECT s.ctid, s.n, s.newer FROM (SELECT x.ctid, ots.cells_count(x." STORAGE_CELLS_SQL ") AS n,"
						 " %s AS newer, x." STORAGE_CELLS_SQL " AS cells FROM %%s x WHERE %s) s"
						 " WHERE ots.chunk_purgeable(s.cells, $2, $3, $4, s.newer)%s",
						 newer,
						 trimming ? "x.ctid OPERATOR(pg_catalog.>=) $6 AND x.ctid OPERATOR(pg_catalog.<) $7" :
						 "x." STORAGE_OLDEST_TS_SQL " OPERATOR(pg_catalog.<=) $1",
						 trimming ? "" : " LIMIT $5");
		candidates = c.data;
		delete_if = "(ots.purge_chunk(l." STORAGE_CELLS_SQL ", $2, $3, $4, c.newer)).purged IS NULL";
		update_if = "(ots.purge_chunk(l." STORAGE_CELLS_SQL ", $2, $3, $4, c.newer)).purged IS NOT NULL"
			" AND ots.chunk_purgeable(l." STORAGE_CELLS_SQL ", $2, $3, $4, c.newer)";
		set = " SET (" STORAGE_CELLS_SQL ", " STORAGE_OLDEST_TS_SQL ", " STORAGE_CHUNK_COLUMN_SQL ", "
			STORAGE_CHUNK_TS_SQL ") = (SELECT p.purged, p.oldest_ts, p.first_column, p.first_ts"
			" FROM ots.purge_chunk(l." STORAGE_CELLS_SQL ", $2, $3, $4, c.newer) p)";
	}
	else
	{
		set = " SET (" STORAGE_CELLS_SQL ", " STORAGE_OLDEST_TS_SQL ") ="
			" (SELECT p.purged, p.oldest_ts FROM ots.purge_row(l." STORAGE_CELLS_SQL ", $2, $3, $4) p)";
		if (!trimming)
		{
			candidates = "SELECT ctid, ots.cells_count(" STORAGE_CELLS_SQL ") AS n FROM %s"
				" WHERE " STORAGE_OLDEST_TS_SQL " OPERATOR(pg_catalog.<=) $1"
				" ORDER BY " STORAGE_OLDEST_TS_SQL " LIMIT $5";
			delete_if = "l." STORAGE_OLDEST_TS_SQL " OPERATOR(pg_catalog.<=) $1"
				" AND NOT ots.cells_row_exists(l." STORAGE_CELLS_SQL ", $2, $4)";
			update_if = "l." STORAGE_OLDEST_TS_SQL " OPERATOR(pg_catalog.<=) $1"
				" AND ots.cells_row_exists(l." STORAGE_CELLS_SQL ", $2, $4)";
		}
		else
		{
			/* the blocks the leaf had when the pass began; writers trim later rows */
			candidates = "SELECT ctid, ots.cells_count(" STORAGE_CELLS_SQL ") AS n FROM %s"
				" WHERE ctid OPERATOR(pg_catalog.>=) $6 AND ctid OPERATOR(pg_catalog.<) $7"
				" AND ots.cells_purgeable(" STORAGE_CELLS_SQL ", $2, $3, $4)";
			delete_if = "NOT ots.cells_row_exists(l." STORAGE_CELLS_SQL ", $2, $4)";
			update_if = "ots.cells_row_exists(l." STORAGE_CELLS_SQL ", $2, $4)"
				" AND ots.cells_purgeable(l." STORAGE_CELLS_SQL ", $2, $3, $4)";
		}
	}
	initStringInfo(&sql);
	appendStringInfoString(&sql, "WITH c AS MATERIALIZED (");
	appendStringInfo(&sql, candidates, leaf);
	appendStringInfo(&sql, "),"
					 " d AS (DELETE FROM %s l USING c"
					 " WHERE l.ctid OPERATOR(pg_catalog.=) c.ctid AND %s"
					 " RETURNING ots.cells_count(l." STORAGE_CELLS_SQL ") AS n),"
					 " u AS (UPDATE %s l%s"
					 " FROM c WHERE l.ctid OPERATOR(pg_catalog.=) c.ctid AND %s"
					 " RETURNING c.n OPERATOR(pg_catalog.-) ots.cells_count(l." STORAGE_CELLS_SQL ") AS n)"
					 " SELECT (SELECT pg_catalog.count(*) FROM c), (SELECT pg_catalog.count(*) FROM d),"
					 " (SELECT pg_catalog.count(*) FROM u),"
					 " COALESCE((SELECT pg_catalog.sum(x.n) FROM"
					 " (SELECT n FROM d UNION ALL SELECT n FROM u) x), 0)::pg_catalog.int8",
					 leaf, delete_if, leaf, set, update_if);
	return sql.data;
}

/*
 * purge_chunk_key is the SQL that a chunk c2 is of the row of the chunk x:
 * their stored key columns, the chunk relation's primary key but its last two
 */
static char *
purge_chunk_key(Oid rel)
{
	Relation	r = table_open(rel, AccessShareLock);
	Oid			pkey = RelationGetPrimaryKeyIndex(r);
	HeapTuple	tup;
	Form_pg_index index;
	StringInfoData buf;

	if (!OidIsValid(pkey))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("the chunk relation %s has no primary key", RelationGetRelationName(r))));
	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(pkey));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for index %u", pkey);
	index = (Form_pg_index) GETSTRUCT(tup);
	initStringInfo(&buf);
	for (int k = 0; k < index->indnkeyatts - 2; k++)
	{
		const char *col = quote_identifier(get_attname(rel, index->indkey.values[k], false));

		appendStringInfo(&buf, "%sc2.%s OPERATOR(pg_catalog.=) x.%s", k > 0 ? " AND " : "", col, col);
	}
	ReleaseSysCache(tup);
	table_close(r, AccessShareLock);
	return buf.data;
}

/* purge_block_tid is the TID of the first line of a block, for the trim pass's bounds */
static Datum
purge_block_tid(int64 block)
{
	ItemPointer tid = palloc(sizeof(ItemPointerData));

	if (block < 0 || block > PG_UINT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block number " INT64_FORMAT " is out of range", block)));
	ItemPointerSet(tid, (BlockNumber) block, 0);
	return PointerGetDatum(tid);
}

/*
 * ots_purge_batch is ots.purge_batch(leaf, trimming, now_ms, time_to_live,
 * max_versions, batch_size, from_block, to_block): one batch of one purge
 * pass over a leaf of an ots table (the TTL pass, or with trimming the trim
 * pass over blocks [from_block, to_block)), run as the table's owner in a
 * security-restricted operation.  Only the table's owner (or a member of
 * its role, or a superuser) may run it; it returns candidates,
 * rows_deleted, rows_rewritten and cells (removed).
 */
Datum
ots_purge_batch(PG_FUNCTION_ARGS)
{
	Oid			leaf;
	bool		trimming;
	bool		chunks;
	Oid			parent;
	Oid			owner;
	Oid			types[PURGE_BATCH_NARGS] = {INT8OID, INT8OID, INT4OID, INT8OID, INT8OID, TIDOID, TIDOID};
	Datum		args[PURGE_BATCH_NARGS];
	char		nulls[PURGE_BATCH_NARGS];
	int64		now_ms;
	int64		time_to_live;
	char	   *sql;
	AsRole		saved;
	TupleDesc	desc;
	Datum		values[4];
	bool		isnull[4] = {false, false, false, false};

	for (int i = 0; i < 6; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("ots.purge_batch: only the block arguments may be NULL")));
	leaf = PG_GETARG_OID(0);
	trimming = PG_GETARG_BOOL(1);
	now_ms = PG_GETARG_INT64(2);
	time_to_live = PG_GETARG_INT64(3);
	if (PG_GETARG_INT32(5) < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch_size must be at least 1")));
	if (!trimming && (time_to_live < 1 || time_to_live > OTS_MAX_TIME_TO_LIVE))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the TTL pass needs a time_to_live between 1 and %d", OTS_MAX_TIME_TO_LIVE)));
	if (trimming && (PG_ARGISNULL(6) || PG_ARGISNULL(7)))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the trim pass needs from_block and to_block")));

	/* a leaf partition, or the chunk relation, of a table the caller owns */
	chunks = get_rel_relkind(leaf) == RELKIND_RELATION && !get_rel_relispartition(leaf);
	parent = chunks ? storage_chunk_of(leaf) : InvalidOid;
	if (get_rel_relkind(leaf) != RELKIND_RELATION || (chunks && !OidIsValid(parent)))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("relation with OID %u is neither a leaf partition nor the chunk relation of an ots table",
						leaf)));
	if (!chunks)
		parent = get_partition_parent(leaf, false);
	if (!pg_class_ownercheck(parent, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s to purge it",
						quote_qualified_identifier(get_namespace_name(get_rel_namespace(parent)),
												   get_rel_name(parent)))));
	owner = asrole_owner(parent);

	memset(nulls, ' ', sizeof(nulls));
	/* a cell is expired when now_ms - ts >= ttl * 1000 */
	args[0] = Int64GetDatum(now_ms - time_to_live * 1000);
	args[1] = Int64GetDatum(time_to_live);
	args[2] = Int32GetDatum(PG_GETARG_INT32(4));
	args[3] = Int64GetDatum(now_ms);
	args[4] = Int64GetDatum((int64) PG_GETARG_INT32(5));
	if (trimming)
	{
		args[5] = purge_block_tid(PG_GETARG_INT64(6));
		args[6] = purge_block_tid(PG_GETARG_INT64(7));
	}
	else
	{
		args[5] = args[6] = (Datum) 0;
		nulls[5] = nulls[6] = 'n';
	}
	sql = purge_batch_sql(quote_qualified_identifier(get_namespace_name(get_rel_namespace(leaf)),
													 get_rel_name(leaf)),
						  trimming, chunks ? purge_chunk_key(leaf) : NULL);

	asrole_enter(owner, &saved);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* removing what no read sees any more is no change of the rows: no stream records */
	announce_purge(true);
	if (SPI_execute_with_args(sql, PURGE_BATCH_NARGS, types, args, nulls, false, 0) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "ots purge batch returned no result");
	announce_purge(false);
	for (int i = 0; i < 4; i++)
		values[i] = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, i + 1, &isnull[i]);
	SPI_finish();
	asrole_leave(&saved);

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "ots.purge_batch must return a record");
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, isnull)));
}

/* purge_lock_tag is the tag of the purge lock of the table stored in storage */
static void
purge_lock_tag(LOCKTAG *tag, Oid storage)
{
	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, PURGE_LOCK_CLASS, storage, PURGE_LOCK_FIELD4);
}

/* the storages whose purge lock this session holds (in TopMemoryContext) */
static List *purge_held = NIL;

/* purge_release releases the purge lock of storage, however often taken */
static void
purge_release(Oid storage)
{
	LOCKTAG		tag;

	purge_lock_tag(&tag, storage);
	while (LockHeldByMe(&tag, ExclusiveLock))
		LockRelease(&tag, ExclusiveLock, true);
	purge_held = list_delete_oid(purge_held, storage);
}

/*
 * purge_abort_callback: a purge commits batch by batch while it holds its
 * session-level lock, so a transaction that ends in an error (in a batch,
 * between batches, in ots.purge_finish, or a cancel) ends the purge: every
 * purge lock this session holds is released with it, or it would stay
 * until the session ends and other sessions would skip the table.
 */
static void
purge_abort_callback(XactEvent event, void *arg)
{
	if (event != XACT_EVENT_ABORT && event != XACT_EVENT_PARALLEL_ABORT)
		return;
	while (purge_held != NIL)
		purge_release(linitial_oid(purge_held));
}

/*
 * ots_purge_lock is ots.purge_lock(schema_name, table_name): takes the
 * table's purge lock for the session without waiting and returns its key
 * (for ots.purge_unlock), or NULL when another session holds it.  Only the
 * table's owner (or a member of its role, or a superuser) may take it.
 * It is released by ots.purge_unlock, or by the first transaction of the
 * session that aborts (purge_abort_callback).
 */
Datum
ots_purge_lock(PG_FUNCTION_ARGS)
{
	char	   *schema_name = NameStr(*PG_GETARG_NAME(0));
	char	   *table_name = NameStr(*PG_GETARG_NAME(1));
	Oid			nsp = get_namespace_oid(schema_name, true);
	Oid			storage = storage_oid(nsp, table_name);
	LOCKTAG		tag;
	static bool registered = false;
	MemoryContext oldcxt;

	if (!OidIsValid(storage) || !pg_class_ownercheck(storage, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of ots table %s.%s to purge it",
						quote_identifier(schema_name), table_name)));
	purge_lock_tag(&tag, storage);
	/* a lock this session still holds is taken again, not waited for */
	if (LockAcquire(&tag, ExclusiveLock, true, true) == LOCKACQUIRE_NOT_AVAIL)
		PG_RETURN_NULL();
	if (!registered)
	{
		RegisterXactCallback(purge_abort_callback, NULL);
		registered = true;
	}
	oldcxt = MemoryContextSwitchTo(TopMemoryContext);
	purge_held = list_append_unique_oid(purge_held, storage);
	MemoryContextSwitchTo(oldcxt);
	PG_RETURN_INT64((int64) storage);
}

/*
 * ots_purge_unlock is ots.purge_unlock(lock_key): releases the purge lock
 * of that key, however many times this session took it (a no-op when it
 * holds none).
 */
Datum
ots_purge_unlock(PG_FUNCTION_ARGS)
{
	int64		key = PG_GETARG_INT64(0);

	if (key < 0 || key > PG_UINT32_MAX)
		PG_RETURN_VOID();
	purge_release((Oid) key);
	PG_RETURN_VOID();
}
