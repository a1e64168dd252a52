/*-------------------------------------------------------------------------
 * src/store/leaf.c
 *	  The per-leaf cache (leaf.h): where a leaf's columns are, found by name
 *	  once per leaf and DDL on it, and the check that the leaf is as ots
 *	  made it, for every module that reaches a leaf's rows directly.
 *
 * Columns are found by name and type: "$cells" of type ots.cells, an int8
 * "$oldest_ts", the stored key columns with the types the storage layout
 * gives them (meta/storage.h).  A partition has its storage table's columns
 * and types, which the catalog checked when it loaded the table; the write
 * point also asks of relations that are no leaf of ots storage (the
 * partition of anything else on the access method), whatever their
 * columns are called.
 *
 * A leaf's entry is filled with the leaf locked by its user, except when
 * routing reads a storage's partitioning (routing.c), which checks every
 * leaf without locking it: a leaf changed after that is invalidated when
 * its user then locks it, which marks the entry stale.  An invalidation
 * that comes while an entry is being filled leaves it to be filled again.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/partition.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_type.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "cache.h"
#include "errors.h"
#include "meta/storage.h"
#include "store/leaf.h"

/*
 * leaf_stale forgets where a leaf's columns are when its relcache entry is
 * invalidated (ALTER TABLE ... DROP/ADD COLUMN among others), so the next
 * access looks them up again.  The index list is compared on every access
 * (rowstore_open_indexes) and needs nothing here.
 */
static void
leaf_stale(void *entry)
{
	LeafCache  *lc = entry;

	lc->placed = false;
	lc->keys_of = NULL;
	lc->checked = false;
}

static OtsCache leaf_cache = {
	.name = "ots leaf cache",
	.keysize = sizeof(Oid),
	.entrysize = sizeof(LeafCache),
	.stale = leaf_stale,
};

/* leaf_attno: the number of relid's column name of type typid, 0 if none */
AttrNumber
leaf_attno(Oid relid, const char *name, Oid typid)
{
	HeapTuple	tup = SearchSysCacheAttName(relid, name);
	AttrNumber	attnum = 0;

	if (HeapTupleIsValid(tup))
	{
		Form_pg_attribute att = (Form_pg_attribute) GETSTRUCT(tup);

		if (att->atttypid == typid)
			attnum = att->attnum;
		ReleaseSysCache(tup);
	}
	return attnum;
}

/*
 * leaf_find_keys finds relid's stored key columns of t, by name and type,
 * into keys[] (0 where one is missing); false when one is missing
 */
bool
leaf_find_keys(Oid relid, const OtsTable *t, AttrNumber *keys)
{
	bool		all = true;

	for (int k = 0; k < storage_nkeys(t); k++)
		all &= (keys[k] = leaf_attno(relid, storage_key_column(t, k), storage_key_type(t, k))) != 0;
	return all;
}

/*
 * leaf_place looks up (once per relation and DDL) where relation relid's
 * ots columns are: a "$cells" of type ots.cells and an int8 "$oldest_ts",
 * or none (a partition of anything else on the access method is no ots
 * leaf, whatever its columns are called), and its partition parent.
 */
LeafCache *
leaf_place(Oid relid)
{
	bool		found;
	LeafCache  *lc = cache_lookup(&leaf_cache, &relid, &found);

	if (!lc->placed)
	{
		uint64		seen = leaf_cache.invalidations;

		/* not a partition: a table ATTACH is about to make one (storage_write_rows_join) */
		lc->storage_oid = get_rel_relispartition(relid) ? get_partition_parent(relid, true) : InvalidOid;
		lc->cells_attno = leaf_attno(relid, STORAGE_CELLS_COLUMN, storage_cells_type());
		lc->oldest_attno = leaf_attno(relid, STORAGE_OLDEST_TS_COLUMN, INT8OID);
		lc->chunk_column_attno = leaf_attno(relid, STORAGE_CHUNK_COLUMN_COLUMN, TEXTOID);
		lc->chunk_ts_attno = leaf_attno(relid, STORAGE_CHUNK_TS_COLUMN, INT8OID);
		lc->placed = (seen == leaf_cache.invalidations);
	}
	return lc;
}

/* leaf_keys finds (once per leaf and table) where lc's leaf keeps the stored key columns of t */
bool
leaf_keys(LeafCache *lc, const OtsTable *t)
{
	AttrNumber	keys[OTS_MAX_KEY_COLUMNS + 1];
	uint64		seen;

	if (lc->keys_of == t)
		return true;
	seen = leaf_cache.invalidations;
	if (!leaf_find_keys(lc->leaf_oid, t, keys))
		return false;
	memcpy(lc->key_attnos, keys, sizeof(AttrNumber) * storage_nkeys(t));
	lc->checked = false;
	lc->keys_of = seen == leaf_cache.invalidations ? t : NULL;
	return true;
}

/*
 * leaf_attnums looks up, once per leaf and DDL on it, where leaf_oid's
 * columns are, checking first that the leaf is still as ots made it
 * (catalog_check_leaf: on the ots access method, with its primary key).
 * Routing checks each leaf when it reads the partitioning; a leaf's own DDL
 * (another access method, say) invalidates the leaf alone, and comes this
 * way when the leaf is next used.
 */
LeafCache *
leaf_attnums(const OtsTable *t, Oid leaf_oid)
{
	LeafCache  *lc = leaf_place(leaf_oid);
	int			nkeys = storage_nkeys(t);
	AttrNumber	keys[OTS_MAX_KEY_COLUMNS + 1] = {0};
	uint64		seen;
	bool		fresh;

	if (lc->checked && lc->keys_of == t)
		return lc;
	seen = leaf_cache.invalidations;
	(void) leaf_find_keys(leaf_oid, t, keys);
	catalog_check_leaf(t, leaf_oid, keys);
	for (int k = 0; k < nkeys; k++)
		if (keys[k] == InvalidAttrNumber)
			catalog_report_damaged(t, psprintf("partition %s of its storage table lacks key column %s",
											   quote_identifier(get_rel_name(leaf_oid)),
											   quote_identifier(storage_key_column(t, k))));
	if (lc->cells_attno == InvalidAttrNumber || lc->oldest_attno == InvalidAttrNumber)
		catalog_report_damaged(t, psprintf("partition %s of its storage table lacks its "
										   STORAGE_CELLS_SQL " or " STORAGE_OLDEST_TS_SQL " column",
										   quote_identifier(get_rel_name(leaf_oid))));
	memcpy(lc->key_attnos, keys, sizeof(AttrNumber) * nkeys);
	/* an invalidation that came while checking leaves the entry to be checked again */
	fresh = seen == leaf_cache.invalidations;
	lc->keys_of = fresh ? t : NULL;
	lc->checked = fresh && lc->placed;
	return lc;
}

Relation
leaf_backfill_open(const OtsTable *t, Oid leaf_oid, int64 *first, int32 nblocks, Oid seen_filenode,
				   Oid *filenode, BlockNumber *last)
{
	Relation	leaf;
	BlockNumber total;

	if (*first < 0 || nblocks < 1)
		ots_error(PARAMETER_INVALID, "Invalid block range of an index build.");
	if (get_partition_parent(leaf_oid, true) != t->data_oid)
		ots_error(PARAMETER_INVALID, "The relation is not a partition of the index's base table.");
	/* every writer of the leaf before this lock has committed; later ones keep the index */
	LockRelationOid(leaf_oid, ShareLock);
	leaf = table_open(leaf_oid, NoLock);
	*filenode = leaf->rd_node.relNode;
	if (OidIsValid(seen_filenode) && seen_filenode != leaf->rd_node.relNode)
		*first = 0;
	total = RelationGetNumberOfBlocks(leaf);
	if (*first >= total)
	{
		table_close(leaf, NoLock);
		return NULL;
	}
	*last = (BlockNumber) Min(*first + nblocks - 1, (int64) total - 1);
	return leaf;
}
