/*-------------------------------------------------------------------------
 * src/store/leaf.h
 *	  What ots knows of one leaf partition of a table's storage, per
 *	  backend: where its columns are, found by name once per leaf and DDL
 *	  on it, and whether it is still as ots made it (src/store/leaf.c).
 *
 * One cache (leaf_cache) holds it for everyone who reaches a leaf's rows
 * directly: rowstore and range scans (leaf_attnums, which also checks the
 * leaf's shape), the write point (leaf_place, leaf_keys: any relation on
 * the ots access method, which need not be a leaf of ots storage at all),
 * and index backfill.  An invalidation of the leaf's relcache entry marks
 * its entry stale; the next lookup fills it again.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_LEAF_H
#define OTS_LEAF_H

#include "postgres.h"

#include "nodes/execnodes.h"
#include "storage/block.h"
#include "utils/relcache.h"

#include "meta/catalog.h"
#include "ots_limits.h"

/* what ots knows of one leaf partition (or any relation on the ots access method) */
typedef struct LeafCache
{
	Oid			leaf_oid;		/* hash key */
	/* leaf_place: where its ots columns are */
	bool		placed;
	Oid			storage_oid;	/* its partition parent, InvalidOid if none */
	AttrNumber	cells_attno;	/* 0: no "$cells" of type ots.cells */
	AttrNumber	oldest_attno;	/* 0: no int8 "$oldest_ts" */
	AttrNumber	chunk_column_attno; /* a chunk relation's: 0, no text "$column" */
	AttrNumber	chunk_ts_attno; /* 0: no int8 "$ts" */
	/* leaf_keys: the table whose stored key columns key_attnos are, or NULL */
	const OtsTable *keys_of;
	AttrNumber	key_attnos[OTS_MAX_KEY_COLUMNS + 1];
	/* leaf_attnums: checked as a leaf of keys_of as ots made it, every column there */
	bool		checked;
	/* rowstore.c's: the last insert of a key not known to be new found it existing */
	bool		keys_exist;
	/* rowstore.c's: the leaf's indexes and their IndexInfo, built once (rowstore_open_indexes) */
	MemoryContext index_cxt;
	List	   *index_oids;
	IndexInfo **index_info;
	bool		index_info_shared;	/* false: an index keeps per-call state in it */
} LeafCache;

/*
 * leaf_attnums: the entry of leaf, a partition of t's storage, with every
 * column found, checked first that the leaf is still as ots made it
 * (catalog_check_leaf); the "damaged" error otherwise
 */
extern LeafCache *leaf_attnums(const OtsTable *t, Oid leaf_oid);

/*
 * leaf_place: the entry of relation relid with where its ots columns are,
 * if it has them (0 where not): any relation on the ots access method
 */
extern LeafCache *leaf_place(Oid relid);

/* leaf_keys finds lc's stored key columns of t (key_attnos); false when one is missing */
extern bool leaf_keys(LeafCache *lc, const OtsTable *t);

/*
 * leaf_attno and leaf_find_keys look up, uncached, relid's column name of
 * type typid (0 if none) and its stored key columns of t into keys[]
 * (false when one is missing): for a relation not yet a leaf
 */
extern AttrNumber leaf_attno(Oid relid, const char *name, Oid typid);
extern bool leaf_find_keys(Oid relid, const OtsTable *t, AttrNumber *keys);

/*
 * leaf_backfill_open opens leaf_oid, a partition of t's storage, for a
 * backfill batch of blocks [*first, *first + nblocks) (a secondary or a
 * search index's build): locked SHARE until commit, so every writer of it
 * since before has committed and later ones keep the index.  A leaf
 * rewritten since the batch that saw seen_filenode (VACUUM FULL, CLUSTER
 * move rows into blocks already read) is read again from block 0 (*first).
 * *filenode is its file node now; it returns NULL (the leaf closed) when
 * *first is past its end, else the leaf, *last the batch's last block.
 */
extern Relation leaf_backfill_open(const OtsTable *t, Oid leaf_oid, int64 *first, int32 nblocks,
								   Oid seen_filenode, Oid *filenode, BlockNumber *last);

#endif							/* OTS_LEAF_H */
