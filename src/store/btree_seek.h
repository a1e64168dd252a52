/*-------------------------------------------------------------------------
 * src/store/btree_seek.h
 *	  The index entry nearest a key, by one descent of a btree and a binary
 *	  search of the leaf page it reaches, its heap tuple read under a
 *	  snapshot.
 *
 * PostgreSQL 15's btree scan reads every entry of a leaf page that its
 * scan keys accept into the scan at its first call (_bt_readpage), so "the
 * greatest entry at most K within a prefix" by an index scan checks every
 * entry of the prefix on that page: hundreds for a wide row's chunks.  A
 * seek checks log2 of them and stops at the first entry whose tuple the
 * snapshot sees.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_BTREE_SEEK_H
#define OTS_BTREE_SEEK_H

#include "postgres.h"
#include "access/sdir.h"
#include "executor/tuptable.h"
#include "utils/rel.h"
#include "utils/snapshot.h"

typedef enum BtreeSeek
{
	BTREE_SEEK_FOUND,			/* the tuple is in the slot */
	BTREE_SEEK_NONE,			/* no entry of the prefix in that direction is visible */
	BTREE_SEEK_UNSURE			/* the answer may lie beyond the leaf page the descent reached, or
								 * beyond the entries a seek reads: ask an index scan */
} BtreeSeek;

/*
 * btree_seek finds, in index (a btree on heap without INCLUDE columns), the
 * entry nearest the key `values` (one per key column) in direction dir:
 * backward, the greatest entry at most (inclusive) or below the key;
 * forward, the least at least or above it; among the entries whose first
 * `prefix` columns equal the key's and whose heap tuple snapshot (an MVCC
 * snapshot) sees.  It stores that tuple in slot, a slot of heap.
 */
extern BtreeSeek btree_seek(Relation heap, Relation index, Snapshot snapshot, Datum *values,
							int prefix, ScanDirection dir, bool inclusive, TupleTableSlot *slot);

#endif							/* OTS_BTREE_SEEK_H */
