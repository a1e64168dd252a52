/*-------------------------------------------------------------------------
 * src/api/row_write.h
 *	  Pieces of a PutRow shared by put_row and batch_write_row's bulk path.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ROW_WRITE_H
#define OTS_ROW_WRITE_H

#include "postgres.h"

#include "meta/catalog.h"
#include "format/codec.h"

/*
 * row_write_check_timestamps rejects the whole write when an explicit cell
 * timestamp lies outside [max(now - max_version_offset, now - TTL),
 * now + max_version_offset).
 */
extern void row_write_check_timestamps(const OtsTable *t, int64 now_ms,
									   const CellInput *cells, int n);

/*
 * row_write_put_cells encodes the cells of a PutRow: cells without a
 * timestamp get stamp, and each column keeps its newest max_versions;
 * *oldest_ts gets the encoded row's "$oldest_ts".
 */
extern struct varlena *row_write_put_cells(const OtsTable *t, const CellInput *cells, int n,
										   int64 stamp, int64 *oldest_ts);

/*
 * row_write_new_row_cells: the cells of a new row's PutRow, from its
 * attribute map (NULL: none) with put_row's checks (names, values,
 * timestamps, defined types), encoded for storage with server timestamp
 * now_ms; *size is their data size, for capacity units
 */
extern struct varlena *row_write_new_row_cells(const OtsTable *t, Jsonb *attributes, int64 now_ms,
											   int64 *oldest_ts, uint32 *size);

/*
 * row_write_put_over: a PutRow whose cells row_write_new_row_cells built at
 * now_ms meets the stored cells old: NULL when its cells stand, else its
 * cells built again with a stamp after old's row marker (RowstoreReplacing's
 * answer)
 */
extern struct varlena *row_write_put_over(const OtsTable *t, Jsonb *attributes, int64 now_ms,
										  const struct varlena *old, int64 *oldest_ts);

/* row_write_cells_size: written data size of cells (names + values), for capacity units */
extern uint32 row_write_cells_size(const CellInput *cells, int n);

#endif							/* OTS_ROW_WRITE_H */
