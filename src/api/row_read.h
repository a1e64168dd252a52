/*-------------------------------------------------------------------------
 * src/api/row_read.h
 *	  Read options shared by get_row, get_range and batch_get_row.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ROW_READ_H
#define OTS_ROW_READ_H

#include "postgres.h"
#include "utils/array.h"
#include "utils/jsonb.h"

#include "api/filter.h"
#include "api/read_select.h"

typedef struct ReadArgs
{
	ArrayType  *columns_to_get;
	bool		has_max_versions;
	int32		max_versions;
	Jsonb	   *time_range;
	Jsonb	   *filter;
	bool		with_timestamps;
	text	   *start_column;
	text	   *end_column;
} ReadArgs;

/*
 * row_read_options validates a read's options and sets up the selection and
 * the filter (NULL when none) in CurrentMemoryContext.
 */
extern void row_read_options(const OtsTable *t, const ReadArgs *args, ReadSelect *sel,
							 Filter **filter);

/*
 * row_read_needs: what a read with this selection and filter loads of a
 * split row (store/rowsplit.h): the newest cells of the columns it wants
 * and its filter reads, a page of columns, or the whole row; a page or
 * the whole row within budget bytes when budget is not 0 (a get_range
 * page: RowSplit.next_column says where the row was cut)
 */
extern void row_read_needs(const ReadSelect *sel, const Filter *filter, uint64 budget,
						   RowNeeds *needs);

/*
 * row_read_render decides whether a stored row is returned (row rule,
 * filter, columns_to_get) and renders its attributes; NULL when it is not.
 * *size accumulates the data read.  split: r is a split row's cells as
 * loaded, whose existence the caller checked on its head.
 */
extern Jsonb *row_read_render(const OtsTable *t, const ReadSelect *sel, const Filter *filter,
							  const PkInput *pk, const CellsReader *r, bool split, uint32 *size);

/*
 * row_read_render_plainbuffer: the same decision, the row (key in the
 * table's order, then the selected cells with timestamps) appended to out
 * as a PlainBuffer row when it is returned
 */
extern bool row_read_render_plainbuffer(const OtsTable *t, const ReadSelect *sel,
										const Filter *filter, const PkInput *pk,
										const CellsReader *r, bool split, uint32 *size,
										StringInfo out);

/*
 * row_read_value_datum: a value as the SQL type a typed view column of its
 * type has (text, bigint, double precision, boolean, bytea), palloc'd;
 * row_read_value_sql_type: that SQL type's OID
 */
extern Datum row_read_value_datum(const OtsValue *v);
extern Oid	row_read_value_sql_type(OtsValueType t);

#endif							/* OTS_ROW_READ_H */
