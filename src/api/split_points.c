/*-------------------------------------------------------------------------
 * src/api/split_points.c
 *	  What ots.compute_split_points (src/sql/40_rows.sql, Tablestore's
 *	  ComputeSplitPointsBySize) weighs a sampled row by: the bytes of its
 *	  cells, a split row's chunks included, which its head counts (the
 *	  storage row itself holds only the head).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"

#include "format/cells.h"

PG_FUNCTION_INFO_V1(ots_cells_size);

/* ots_cells_size is ots.cells_size(cells): the encoded bytes of a row's cells */
Datum
ots_cells_size(PG_FUNCTION_ARGS)
{
	struct varlena *cells = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	uint64		size = VARSIZE_ANY_EXHDR(cells);

	if (cells_is_head(cells))
	{
		CellsHead	head;

		cells_head_read(cells, &head);
		size += Min(head.cells_size, (uint64) PG_INT64_MAX - size);
	}
	PG_RETURN_INT64((int64) size);
}
