/*-------------------------------------------------------------------------
 * src/format/visibility.h
 *	  Which cells of a row a read sees, and whether the row exists: the
 *	  rules every read path, row-existence conditions and the purge apply.
 *
 * Visibility (README.md, "Visibility"), applied on every read path: a cell
 * is invisible once now_ms >= ts + time_to_live * 1000, and per column all
 * but the newest table max_versions cells are invisible.  A request then
 * narrows the rest: time_range [start, end) (a specific time t is
 * [t, t+1)), then the newest max_versions cells inside it; which columns
 * it wants is the read's (api/read_select.h).
 *
 * Row rule: a row exists while it has a visible cell, or while its row
 * marker (the time of its last write) is younger than time_to_live; with no
 * TTL every stored row exists.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_VISIBILITY_H
#define OTS_VISIBILITY_H

#include "postgres.h"

#include "meta/catalog.h"
#include "format/cells.h"

/* the table's rules at one moment, and the versions a request selects */
typedef struct Visibility
{
	int64		now_ms;
	int64		time_to_live;	/* seconds, -1 = forever */
	bool		marker_only;	/* an index's row exists by its marker alone (index_write.c) */
	int32		table_max_versions;
	bool		has_range;
	int64		start_ts;		/* inclusive */
	int64		end_ts;			/* exclusive */
	int32		max_versions;	/* per column in the result; PG_INT32_MAX = all */
} Visibility;

/* a column's cells as the read sees them */
typedef struct SelectedCells
{
	CellsColumn col;
	const Visibility *sel;
	uint32		position;		/* cells consumed from col */
	int32		returned;
} SelectedCells;

/* visibility_now_ms is the wall clock in ms since the Unix epoch */
extern int64 visibility_now_ms(void);

/* visibility_init sets the table's visibility rules and "latest value only" */
extern void visibility_init(Visibility *sel, const OtsTable *t, int64 now_ms);

/* visibility_row_exists applies the row rule */
extern bool visibility_row_exists(const Visibility *sel, const CellsReader *r);

/*
 * visibility_head_exists applies the row rule to a split row's head: its
 * marker, and its newest cell; *unsure when the head keeps only a bound on
 * its newest cell and that bound is young: the chunks then tell.
 */
extern bool visibility_head_exists(const Visibility *sel, const CellsHead *h, bool *unsure);

/*
 * visibility_column_begin/next iterate the selected cells of one column,
 * newest first, ignoring columns_to_get.
 */
extern void visibility_column_begin(SelectedCells *sc, const Visibility *sel,
									const CellsColumn *col);
extern bool visibility_column_next(SelectedCells *sc, int64 *ts, OtsValue *value);

/* visibility_table_begin: the same with only the table's rules applied */
extern void visibility_table_begin(SelectedCells *sc, const Visibility *sel,
								   const CellsColumn *col);

#endif							/* OTS_VISIBILITY_H */
