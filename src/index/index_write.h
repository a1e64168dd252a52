/*-------------------------------------------------------------------------
 * src/index/index_write.h
 *	  Secondary-index maintenance: what one change of a base table's row
 *	  does to each of its indexes, in the writing transaction.
 *
 * An index is an ots table of its own (catalog.h: is_index) keyed by the
 * columns it was given, then the base key's other columns; its row for a
 * base row holds the newest cell of each covered defined column.  The
 * write point (storage_write.c) calls index_write_change for every row
 * change of a table with indexes, whoever made it, so every write path
 * keeps every index exact; backfill (index_build.c) calls it for the rows
 * that were there before the index.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_INDEX_WRITE_H
#define OTS_INDEX_WRITE_H

#include "postgres.h"

#include "meta/catalog.h"
#include "format/codec.h"
#include "format/value.h"

/* a stored row of a base table: its primary key and its cells (detoasted) */
typedef struct IndexSourceRow
{
	OtsValue	pk[OTS_MAX_PK_COLUMNS];
	const struct varlena *cells;
} IndexSourceRow;

/*
 * index_write_change brings every index of base (phase FULL ones too) from
 * the entry of old_row to that of new_row (NULL: no row before, or none
 * after): the entry deleted, written or left as it is.
 */
extern void index_write_change(const OtsTable *base, const IndexSourceRow *old_row,
							   const IndexSourceRow *new_row);

/*
 * index_entry_stored builds idx's entry for row of base, as the stored key
 * of idx (key: storage_nkeys(idx) datums), its cells and "$oldest_ts", in
 * the caller's memory context (the building's garbage in workcxt); false
 * when the row has no entry.  For backfill (index_build.c).
 */
extern bool index_entry_stored(const OtsTable *base, const OtsTable *idx, const IndexSourceRow *row,
							   Datum *key, struct varlena **cells, int64 *oldest_ts,
							   MemoryContext workcxt);

/*
 * index_entry_of builds idx's entry for row of base as the write point
 * keeps it (its key, pointing into row's cells, and its cells), in the
 * caller's memory context; false when the row has none.  For ots.verify.
 */
extern bool index_entry_of(const OtsTable *base, const OtsTable *idx, const IndexSourceRow *row,
						   PkInput *key, struct varlena **cells);

#endif							/* OTS_INDEX_WRITE_H */
