/*-------------------------------------------------------------------------
 * src/format/visibility.c
 *	  The visibility rules (TTL, max_versions, a request's versions) and
 *	  the row rule, applied to a row's cells; see visibility.h.  Reads,
 *	  row-existence conditions and the purge all decide by these, so they
 *	  cannot disagree.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "datatype/timestamp.h"
#include "utils/timestamp.h"

#include "format/visibility.h"

static bool visibility_cell_expired(const Visibility *sel, int64 ts);

int64
visibility_now_ms(void)
{
	TimestampTz now = GetCurrentTimestamp();

	return now / 1000 +
		(int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000;
}

void
visibility_init(Visibility *sel, const OtsTable *t, int64 now_ms)
{
	memset(sel, 0, sizeof(*sel));
	sel->now_ms = now_ms;
	sel->time_to_live = t->time_to_live;
	sel->marker_only = t->is_index;
	sel->table_max_versions = t->max_versions;
	sel->max_versions = 1;
}

/* visibility_cell_expired: is a cell of this timestamp past the table's TTL? */
static bool
visibility_cell_expired(const Visibility *sel, int64 ts)
{
	/* TTL is at most OTS_MAX_TIME_TO_LIVE seconds, so the product cannot overflow */
	return sel->time_to_live >= 0 && sel->now_ms - ts >= sel->time_to_live * 1000;
}

bool
visibility_row_exists(const Visibility *sel, const CellsReader *r)
{
	if (sel->time_to_live < 0 || !visibility_cell_expired(sel, r->row_ts))
		return true;
	if (sel->marker_only)
		return false;
	for (uint32 i = 0; i < r->ncols; i++)
	{
		CellsColumn col;
		int64		ts;
		OtsValue	v;

		cells_column_at(r, i, &col);
		if (cells_column_next(&col, &ts, &v) && !visibility_cell_expired(sel, ts))
			return true;
	}
	return false;
}

bool
visibility_head_exists(const Visibility *sel, const CellsHead *h, bool *unsure)
{
	*unsure = false;
	if (sel->time_to_live < 0 || !visibility_cell_expired(sel, h->row_ts))
		return true;
	if (sel->marker_only || visibility_cell_expired(sel, h->newest_ts))
		return false;
	/* the newest cell is young: the row exists, unless that is only a bound */
	*unsure = (h->flags & CELLS_HEAD_NEWEST_BOUND) != 0;
	return true;
}

void
visibility_table_begin(SelectedCells *sc, const Visibility *sel, const CellsColumn *col)
{
	sc->col = *col;
	sc->sel = sel;
	sc->position = 0;
	sc->returned = -1;			/* marks "table rules only" */
}

void
visibility_column_begin(SelectedCells *sc, const Visibility *sel, const CellsColumn *col)
{
	sc->col = *col;
	sc->sel = sel;
	sc->position = 0;
	sc->returned = 0;
}

bool
visibility_column_next(SelectedCells *sc, int64 *ts, OtsValue *value)
{
	const Visibility *sel = sc->sel;
	bool		table_only = sc->returned < 0;

	if (!table_only && sc->returned >= sel->max_versions)
		return false;
	while ((int64) sc->position < sel->table_max_versions &&
		   cells_column_next(&sc->col, ts, value))
	{
		sc->position++;
		/* cells come newest first, so the first expired one ends the column */
		if (visibility_cell_expired(sel, *ts))
			return false;
		if (table_only)
			return true;
		if (sel->has_range && (*ts < sel->start_ts || *ts >= sel->end_ts))
			continue;
		sc->returned++;
		return true;
	}
	return false;
}
