/*-------------------------------------------------------------------------
 * src/api/read_select.h
 *	  Which cells a read sees, and how they are rendered as jsonb.
 *
 * Visibility (DESIGN.md §1), applied on every read path: a cell is
 * invisible once now_ms >= ts + time_to_live * 1000, and per column all
 * but the newest table max_versions cells are invisible.  A request then
 * narrows the rest: time_range [start, end) (a specific time t is
 * [t, t+1)), then the newest max_versions cells inside it, then
 * columns_to_get.
 *
 * Row rule: a row exists while it has a visible cell, or while its row
 * marker (the time of its last write) is younger than time_to_live; with no
 * TTL every stored row exists.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_READ_SELECT_H
#define OTS_READ_SELECT_H

#include "postgres.h"
#include "utils/jsonb.h"

#include "meta/catalog.h"
#include "format/cells.h"

typedef struct ReadSelect
{
	int64		now_ms;
	int64		time_to_live;	/* seconds, -1 = forever */
	bool		marker_only;	/* an index's row exists by its marker alone (index_write.c) */
	int32		table_max_versions;
	bool		has_range;
	int64		start_ts;		/* inclusive */
	int64		end_ts;			/* exclusive */
	int32		max_versions;	/* per column in the result; PG_INT32_MAX = all */
	int			ncolumns;		/* columns_to_get, 0 = all */
	const char **columns;		/* sorted bytewise, unique */
	uint32	   *collens;
	bool		with_ts;		/* render {"value", "ts"} cells, newest first */
	/* wide-row paging: columns in [start_column, end_column), by name */
	const char *start_column;	/* NULL = from the first column */
	uint32		start_len;
	const char *end_column;		/* NULL = to the last column */
	uint32		end_len;
	int32		page_offset;	/* column pagination filter: skip this many */
	int32		page_limit;		/* ... then return at most this many; 0 = all */
} ReadSelect;

/* a column's cells as the read sees them */
typedef struct SelectedCells
{
	CellsColumn col;
	const ReadSelect *sel;
	uint32		position;		/* cells consumed from col */
	int32		returned;
} SelectedCells;

/* ots_now_ms is the wall clock in ms since the Unix epoch */
extern int64 ots_now_ms(void);

/* select_init sets the table's visibility rules and "latest value only" */
extern void select_init(ReadSelect *sel, const OtsTable *t, int64 now_ms);

/*
 * select_parse_request applies a request's columns_to_get (NULL = all),
 * max_versions (NULL = not given), time_range jsonb (NULL = not given) and
 * with_timestamps, with Tablestore's checks.  Neither max_versions nor
 * time_range means the latest version.
 */
extern void select_parse_request(ReadSelect *sel, ArrayType *columns_to_get,
								 bool has_max_versions, int32 max_versions,
								 Jsonb *time_range, bool with_timestamps);

/*
 * select_parse_column_range applies start_column (inclusive) and end_column
 * (exclusive), NULL meaning unbounded; a start after the end is an error.
 */
extern void select_parse_column_range(ReadSelect *sel, text *start_column, text *end_column);

/* select_row_exists applies the row rule */
extern bool select_row_exists(const ReadSelect *sel, const CellsReader *r);

/* select_column_wanted: is the column in columns_to_get (or all wanted)? */
extern bool select_column_wanted(const ReadSelect *sel, const char *name, uint32 len);

/*
 * select_column_begin/next iterate the selected cells of one column,
 * newest first, ignoring columns_to_get.
 */
extern void select_column_begin(SelectedCells *sc, const ReadSelect *sel,
								const CellsColumn *col);
extern bool select_column_next(SelectedCells *sc, int64 *ts, OtsValue *value);

/* select_latest: the newest selected value of column name[0..len) of r; false if none */
extern bool select_latest(const ReadSelect *sel, const CellsReader *r, const char *name,
						  uint32 len, OtsValue *value);

/* select_visible_begin: the same with only the table's rules applied */
extern void select_visible_begin(SelectedCells *sc, const ReadSelect *sel,
								 const CellsColumn *col);

/*
 * select_data_size is the data a read of the row selects (names + values
 * of the selected cells of the wanted columns): what capacity units charge
 * even for a row a filter then drops.
 */
extern uint32 select_data_size(const ReadSelect *sel, const CellsReader *r);

/*
 * select_render_attributes renders the selected cells of a row as a jsonb
 * object (NULL-free), adding their data size (names + values) to *size and
 * returning the number of columns rendered in *ncols.  Applies
 * columns_to_get, the column range and column pagination.
 */
extern Jsonb *select_render_attributes(const ReadSelect *sel, const CellsReader *r,
									   uint32 *size, int *ncols);

#endif							/* OTS_READ_SELECT_H */
