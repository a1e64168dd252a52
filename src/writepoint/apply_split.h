/*-------------------------------------------------------------------------
 * src/writepoint/apply_split.h
 *	  Index maintenance of a split row a logical replication worker applies
 *	  (src/writepoint/apply_split.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_APPLY_SPLIT_H
#define OTS_APPLY_SPLIT_H

#include "postgres.h"

#include "format/codec.h"
#include "meta/catalog.h"

/*
 * apply_split_defer: does the index maintenance of this applied change of
 * t's row pk wait for the commit (its new cells a split row's head, or the
 * row waiting already)?  old_cells are what its entries were made from
 * (a split row's as its defined columns read), NULL for no row.
 */
extern bool apply_split_defer(const OtsTable *t, const PkInput *pk,
							  const struct varlena *old_cells, const struct varlena *new_cells);

/* apply_split_initial_copy: is this worker a subscription's initial copy (a table sync)? */
extern bool apply_split_initial_copy(void);

/*
 * apply_split_chunks_arrived: a chunk of t's row pk arrived by an initial
 * copy (apply_split_initial_copy), which copies the chunk relation in a
 * transaction of its own: when the row's head was copied before, its
 * entries are made again with them as the copy commits
 */
extern void apply_split_chunks_arrived(const OtsTable *t, const PkInput *pk);

#endif							/* OTS_APPLY_SPLIT_H */
