/*-------------------------------------------------------------------------
 * src/search/search_write.h
 *	  Search-index maintenance at the write point, and the backfill of a
 *	  new search index (search_write.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_SEARCH_WRITE_H
#define OTS_SEARCH_WRITE_H

#include "postgres.h"
#include "storage/block.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "format/value.h"
#include "search/search_index.h"

/*
 * search_write_change brings every search index of t from the row with
 * key old_pk (NULL: none before) to the row with key new_pk and cells
 * new_cells (NULL: none after; a split row's whole view, search_row_cells),
 * in the writing transaction.
 */
extern void search_write_change(const OtsTable *t, const OtsValue *old_pk,
								const OtsValue *new_pk, const struct varlena *new_cells);

/*
 * search_row_cells: the cells a search index reads of a stored value:
 * cells itself, or for a split row's head, all its cells from its chunks
 * under snapshot
 */
extern const struct varlena *search_row_cells(const OtsTable *t, const struct varlena *cells,
											  Snapshot snapshot);

/* search_backfill writes the entry of every row of t into si's new storage; the rows written */
extern int64 search_backfill(const OtsTable *t, const SearchIndex *si);

/*
 * search_backfill_blocks: a background build's batch.  It writes into si the
 * entries of the rows in blocks [first, last] of leaf, a partition of t's
 * storage that the caller holds SHARE (every writer of it since before has
 * committed; later ones keep si), under the latest snapshot, except where a
 * writer put the row's entry first; the rows written.
 */
extern int64 search_backfill_blocks(const OtsTable *t, const SearchIndex *si, Relation leaf,
									BlockNumber first, BlockNumber last);

#endif							/* OTS_SEARCH_WRITE_H */
