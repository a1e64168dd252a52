/*-------------------------------------------------------------------------
 * src/meta/defined.h
 *	  The rules of a table's defined columns (catalog.h: defined): a cell
 *	  in a defined column holds a value of the column's type, and a value of
 *	  a defined column that keys one of the table's indexes is a primary
 *	  key value, with its length limit.
 *
 * The row API checks a request's cells (defined_check_cells) with the
 * request's other checks, so a batch row fails alone; the write point
 * checks every stored row again (defined_check_types), whoever wrote it.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_DEFINED_H
#define OTS_DEFINED_H

#include "postgres.h"

#include "meta/catalog.h"
#include "format/codec.h"
#include "format/value.h"

/*
 * defined_check_cells rejects the whole write when a cell put in a defined
 * column has another type than the column's, or a value longer than a key
 * may be in a column that keys an index (the write point checks every
 * stored row again, defined_check_types)
 */
extern void defined_check_cells(const OtsTable *t, const CellInput *cells, int n);

/*
 * defined_check_types refuses new cells whose newest cell in a defined
 * column has another type than the column's (old_cells: the row before,
 * whose cells stay as they were; may be NULL).
 */
extern void defined_check_types(const OtsTable *t, const struct varlena *old_cells,
								const struct varlena *new_cells);

#endif							/* OTS_DEFINED_H */
