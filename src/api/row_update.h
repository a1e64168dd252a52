/*-------------------------------------------------------------------------
 * src/api/row_update.h
 *	  UpdateRow's part of the single-row writes: its entry in row_write_ops,
 *	  and its operations for a view's upsert.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ROW_UPDATE_H
#define OTS_ROW_UPDATE_H

#include "postgres.h"

#include "api/row_write_internal.h"

/* row_update_parse reads update_row's operation arguments and return_columns */
extern void row_update_parse(RowUpdate *u, const RowWriteRequest *req);

/* row_update_parse_all: update_row's operations, conditions and their rules (RowWriteOp.parse) */
extern void row_update_parse_all(RowWrite *w);

/* row_update_decide: UpdateRow's operations applied to the old row (RowWriteDecide) */
extern RowChange row_update_decide(RowWrite *w, const CellsReader *old, bool exists,
								   struct varlena **cells, int64 *oldest_ts);

/* row_update_account: UpdateRow's capacity units (RowWriteOp.account) */
extern int	row_update_account(const RowWrite *w, bool found, Consumed *consumed);

#endif							/* OTS_ROW_UPDATE_H */
