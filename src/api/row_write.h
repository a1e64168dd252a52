/*-------------------------------------------------------------------------
 * src/api/row_write.h
 *	  Pieces of a PutRow shared by put_row and the bulk path (row_bulk.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ROW_WRITE_H
#define OTS_ROW_WRITE_H

#include "postgres.h"

#include "meta/catalog.h"
#include "format/codec.h"

/*
 * row_write_new_row_cells: the cells of a new row's PutRow, from its
 * attribute map (NULL: none) with the ntyped typed cells among them
 * (codec_parse_attributes_with), with put_row's checks (names, values,
 * timestamps, defined types), encoded for storage with server timestamp
 * now_ms; *size is their data size, for capacity units
 */
extern struct varlena *row_write_new_row_cells(const OtsTable *t, Jsonb *attributes,
											   const CellInput *typed, int ntyped, int64 now_ms,
											   int64 *oldest_ts, uint32 *size);

/*
 * row_write_put_size: a PutRow's data size for the 4 MB request limit, as
 * row_write_check_size measures it: its key (the jsonb primary_key, or
 * pk_size when the key came as values) and its cells (the attribute map
 * and the typed cells)
 */
extern uint64 row_write_put_size(Jsonb *primary_key, uint32 pk_size, Jsonb *attributes,
								 const CellInput *typed, int ntyped);

/*
 * row_write_put_over: a PutRow whose cells row_write_new_row_cells built at
 * now_ms meets the stored cells old: NULL when its cells stand, else its
 * cells built again with a stamp after old's row marker (RowstoreReplacing's
 * answer)
 */
extern struct varlena *row_write_put_over(const OtsTable *t, Jsonb *attributes,
										  const CellInput *typed, int ntyped, int64 now_ms,
										  const struct varlena *old, int64 *oldest_ts);

#endif							/* OTS_ROW_WRITE_H */
