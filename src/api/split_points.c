/*-------------------------------------------------------------------------
 * src/api/split_points.c
 *	  The C side of ots.compute_split_points (src/sql/40_rows.sql,
 *	  Tablestore's ComputeSplitPointsBySize): who may sample a table (the
 *	  row functions' rule), and what a sampled row weighs: the bytes of its
 *	  cells, a split row's chunks included, which its head counts (the
 *	  storage row itself holds only the head).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "fmgr.h"

#include "errors.h"
#include "format/cells.h"
#include "meta/catalog.h"
#include "store/rowstore.h"

PG_FUNCTION_INFO_V1(ots_check_readable);
PG_FUNCTION_INFO_V1(ots_cells_size);

/*
 * ots_check_readable is ots.check_readable(storage): refuses, as get_range
 * would, a caller who may not read the rows of the table whose storage this
 * is (SELECT on it; no row-level security applying to the caller)
 */
Datum
ots_check_readable(PG_FUNCTION_ARGS)
{
	OtsTable   *t = catalog_lookup_by_data_oid(PG_GETARG_OID(0));

	if (t == NULL)
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	rowstore_check_privileges(t, ACL_SELECT);
	PG_RETURN_VOID();
}

/*
 * ots_cells_size is ots.cells_size(cells): the encoded bytes of a row's
 * cells, without decompressing them (a head, which is small, is read)
 */
Datum
ots_cells_size(PG_FUNCTION_ARGS)
{
	Datum		value = PG_GETARG_DATUM(0);
	struct varlena *first = PG_DETOAST_DATUM_SLICE(value, 0, 1);
	uint64		size = toast_raw_datum_size(value) - VARHDRSZ;

	if (cells_is_head(first))
	{
		struct varlena *cells = PG_DETOAST_DATUM_PACKED(value);
		CellsHead	head;

		cells_head_read(cells, &head);
		size += Min(head.cells_size, (uint64) PG_INT64_MAX - size);
	}
	PG_RETURN_INT64((int64) size);
}
