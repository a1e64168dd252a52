/*-------------------------------------------------------------------------
 * src/expiry/purge.h
 *	  Physical removal of what reads no longer see (expired and over-max
 *	  cells, rows left without a visible cell or live row marker).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_PURGE_H
#define OTS_PURGE_H

#include "postgres.h"

/*
 * purge_cells_oldest_ts is what "$oldest_ts" stores for a row's cells: the
 * timestamp of its oldest cell, or its row marker when it has no cells;
 * from that moment on, purge may have work on the row.  It decodes the
 * cells: a writer that has just built them has the same value from
 * cells_builder_oldest_ts.
 */
extern int64 purge_cells_oldest_ts(const struct varlena *cells);

#endif							/* OTS_PURGE_H */
