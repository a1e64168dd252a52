/*-------------------------------------------------------------------------
 * src/store/routing.c
 *	  Routes a stored key to its leaf partition in C, so row operations
 *	  never go through the partitioned parent.
 *
 * Routing uses the parent's partition key and bounds as the relcache has
 * them (copied once, again after an invalidation), so it follows whatever
 * partitions exist exactly as PostgreSQL's own tuple routing does.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "partitioning/partbounds.h"
#include "partitioning/partdesc.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/partcache.h"

#include "cache.h"
#include "errors.h"
#include "store/leaf.h"
#include "store/routing.h"

/* a storage table's partitioning as routing needs it, copied from its relcache entry */
typedef struct RoutingCache
{
	Oid			data_oid;		/* hash key */
	bool		valid;
	MemoryContext cxt;			/* holds what follows */
	char		strategy;
	FmgrInfo	partsupfunc;
	Oid			partcollation;
	PartitionBoundInfo bounds;
	Oid		   *leaves;
	int			nleaves;
} RoutingCache;

/* routing_stale marks a storage table's partitioning for reading again */
static void
routing_stale(void *entry)
{
	((RoutingCache *) entry)->valid = false;
}

/* attaching or detaching a partition invalidates the parent */
static OtsCache routing_cache = {
	.name = "ots routing",
	.keysize = sizeof(Oid),
	.entrysize = sizeof(RoutingCache),
	.stale = routing_stale,
};

/*
 * routing_partitions locks the storage table as opening it would (which
 * also takes in pending invalidations) and returns its partitioning, read
 * from the relcache only when it changed: routing then needs neither a
 * relcache lookup nor a copy of the partition descriptor per call.  Each
 * leaf is checked when the partitioning is read (leaf_attnums, which
 * checks a leaf once per DDL on it): a partition ots did not shape is an
 * error before any row call touches it.
 */
static RoutingCache *
routing_partitions(const OtsTable *t)
{
	Oid			data_oid = t->data_oid;
	RoutingCache *rc;
	bool		found;

	LockRelationOid(data_oid, AccessShareLock);
	rc = cache_lookup(&routing_cache, &data_oid, &found);
	if (rc->cxt == NULL)
		rc->cxt = AllocSetContextCreate(CacheMemoryContext, "ots routing entry",
										ALLOCSET_SMALL_SIZES);
	if (!rc->valid)
	{
		uint64		seen = routing_cache.invalidations;
		Relation	parent = relation_open(data_oid, NoLock);
		PartitionKey key = RelationGetPartitionKey(parent);
		PartitionDesc desc = RelationGetPartitionDesc(parent, true);
		MemoryContext old;

		if (key == NULL || desc->boundinfo == NULL || key->partnatts != 1 ||
			(key->strategy != PARTITION_STRATEGY_HASH && key->strategy != PARTITION_STRATEGY_RANGE))
			catalog_report_damaged(t, "its storage table has no partitions, or is not partitioned as ots expects");
		/* ots reads and writes the leaves' heaps and indexes directly */
		for (int i = 0; i < desc->nparts; i++)
			(void) leaf_attnums(t, desc->oids[i]);
		MemoryContextReset(rc->cxt);
		old = MemoryContextSwitchTo(rc->cxt);
		rc->strategy = key->strategy;
		fmgr_info_copy(&rc->partsupfunc, &key->partsupfunc[0], rc->cxt);
		rc->partcollation = key->partcollation[0];
		rc->bounds = partition_bounds_copy(desc->boundinfo, key);
		rc->leaves = palloc(sizeof(Oid) * Max(desc->nparts, 1));
		memcpy(rc->leaves, desc->oids, sizeof(Oid) * desc->nparts);
		rc->nleaves = desc->nparts;
		MemoryContextSwitchTo(old);
		relation_close(parent, NoLock);
		/* an invalidation that came while copying leaves the entry to be read again */
		rc->valid = (seen == routing_cache.invalidations);
	}
	return rc;
}

/*
 * routing_partition_of returns the leaf of a first stored key value, the
 * same way get_partition_for_tuple does for HASH and RANGE.
 */
static Oid
routing_partition_of(const OtsTable *t, RoutingCache *rc, Datum partvalue)
{
	PartitionBoundInfo bounds = rc->bounds;
	bool		isnull = false;
	int			part = -1;

	if (rc->strategy == PARTITION_STRATEGY_HASH)
	{
		uint64		hash = compute_partition_hash_value(1, &rc->partsupfunc, &rc->partcollation,
														&partvalue, &isnull);

		part = bounds->indexes[hash % bounds->nindexes];
	}
	else
	{
		bool		equal;
		int			offset = partition_range_datum_bsearch(&rc->partsupfunc, &rc->partcollation,
														   bounds, 1, &partvalue, &equal);

		part = bounds->indexes[offset + 1];
	}
	if (part < 0)
		ereport(ERROR,
				(errcode(ERRCODE_OTS_INTERNAL_SERVER_ERROR),
				 errmsg("no partition of \"%s" STORAGE_SUFFIX "\" holds this primary key",
						t->table_name),
				 errhint("The table's partitions were changed outside ots.")));
	return rc->leaves[part];
}

void
routing_leaves(const OtsTable *t, int n, const Datum *partvalues, Oid *leaves)
{
	RoutingCache *rc = routing_partitions(t);

	for (int i = 0; i < n; i++)
		leaves[i] = routing_partition_of(t, rc, partvalues[i]);
}

Oid *
routing_all_leaves(const OtsTable *t, int *n)
{
	RoutingCache *rc = routing_partitions(t);
	Oid		   *leaves = palloc(sizeof(Oid) * Max(rc->nleaves, 1));

	memcpy(leaves, rc->leaves, sizeof(Oid) * rc->nleaves);
	*n = rc->nleaves;
	return leaves;
}

int
routing_leaf_index(const OtsTable *t, Oid leaf)
{
	RoutingCache *rc = routing_partitions(t);

	for (int i = 0; i < rc->nleaves; i++)
		if (rc->leaves[i] == leaf)
			return i;
	return -1;
}

void
routing_key(const OtsTable *t, const PkInput *pk, RowKey *key)
{
	key->t = t;
	key->found = false;
	key->change = NULL;
	key->split = NULL;
	key->nkeys = storage_key(t, pk, t->npk, key->values, key->types);
	routing_leaves(t, 1, &key->values[0], &key->leaf_oid);
}
