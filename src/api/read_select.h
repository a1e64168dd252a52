/*-------------------------------------------------------------------------
 * src/api/read_select.h
 *	  What a read request selects of a row's cells, and how it is rendered
 *	  as jsonb.  Which cells a read sees at all, and whether its row
 *	  exists, is format/visibility.h's; a request then narrows them by
 *	  time_range and max_versions (kept in its Visibility), columns_to_get,
 *	  the column range and column pagination.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_READ_SELECT_H
#define OTS_READ_SELECT_H

#include "postgres.h"
#include "utils/jsonb.h"

#include "meta/catalog.h"
#include "format/cells.h"
#include "format/plainbuffer.h"
#include "format/visibility.h"

typedef struct ReadSelect
{
	Visibility	vis;			/* the table's rules, the request's versions */
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

/* select_init sets the table's visibility rules and "latest value only", no other option */
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

/* select_column_wanted: is the column in columns_to_get (or all wanted)? */
extern bool select_column_wanted(const ReadSelect *sel, const char *name, uint32 len);

/* select_latest: the newest selected value of column name[0..len) of r; false if none */
extern bool select_latest(const ReadSelect *sel, const CellsReader *r, const char *name,
						  uint32 len, OtsValue *value);

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

/*
 * select_render_plainbuffer: the same cells, each version with its
 * timestamp, as the attribute cells of a PlainBuffer row
 */
extern void select_render_plainbuffer(const ReadSelect *sel, const CellsReader *r,
									  uint32 *size, int *ncols, PlainBufferRow *row);

#endif							/* OTS_READ_SELECT_H */
