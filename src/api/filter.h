/*-------------------------------------------------------------------------
 * src/api/filter.h
 *	  Tablestore filters: read filters and the column_condition of writes.
 *
 * jsonb syntax:
 *	 single column:	{"column": "price", "comparator": ">=", "value": 10,
 *					 "pass_if_missing": true, "latest_version_only": true}
 *					 comparator: EQUAL NOT_EQUAL GREATER_THAN GREATER_EQUAL
 *					 LESS_THAN LESS_EQUAL (any case) or = == != <> > >= < <=;
 *					 the two flags are optional and default to true
 *	 composite:		{"and": [f, f, ...]}, {"or": [f, f, ...]}, {"not": [f]}
 *	 pagination:	{"column_pagination": {"offset": 0, "limit": 10}}
 *					 (reads only, top level only)
 *
 * Semantics (docs/reference.md, Filters and column conditions): a column is missing when it has no
 * selected cell or columns_to_get excludes it; a missing column passes iff
 * pass_if_missing.  latest_version_only compares the newest selected cell,
 * otherwise the filter passes when any selected cell matches.  Primary-key
 * columns may be named.  Values of different types never compare true,
 * under any comparator.  At most OTS_MAX_FILTER_NODES nodes.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_FILTER_H
#define OTS_FILTER_H

#include "postgres.h"
#include "utils/jsonb.h"

#include "meta/catalog.h"
#include "format/cells.h"
#include "format/codec.h"
#include "api/read_select.h"
#include "store/rowsplit.h"

typedef struct Filter Filter;

/*
 * filter_parse validates and compiles a filter into CurrentMemoryContext,
 * raising OTSParameterInvalid with Tablestore's texts ("The count of filter
 * exceeds the max: 32.", "Invalid NOT operator: the number of sub-filters
 * must be 1.", "Invalid AND/OR operator: the number of sub-filters must be
 * more than 1.", ...).  NULL or JSON null gives NULL (no filter).
 * allow_pagination: true for read filters.
 */
extern Filter *filter_parse(Jsonb *filter, bool allow_pagination);

/*
 * filter_eval tells whether a row passes.  pk is the row's complete primary
 * key; r its cells; sel the read selection the filter sees (for write
 * conditions: the table's visibility rules, all versions in range).
 * A NULL filter passes everything; a pagination-only filter passes every row.
 */
extern bool filter_eval(const Filter *f, const OtsTable *t, const PkInput *pk,
						const CellsReader *r, const ReadSelect *sel);

/*
 * filter_pagination returns true and the offset/limit when the filter is a
 * column-pagination filter.
 */
extern bool filter_pagination(const Filter *f, int32 *offset, int32 *limit);

/*
 * filter_needs adds the columns a filter reads to what a read of a split
 * row loads (store/rowsplit.h): the newest cell of each, or the newest
 * cells (at least from_ts) where it compares every version
 */
extern void filter_needs(const Filter *f, RowNeeds *needs, int32 cells, int64 from_ts);

#endif							/* OTS_FILTER_H */
