/*-------------------------------------------------------------------------
 * src/cache.c
 *	  ots's backend-local caches (cache.h): their hashes, and the one
 *	  invalidation callback that marks their entries stale.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/inval.h"
#include "utils/memutils.h"

#include "cache.h"

/* the caches whose hash exists, for the invalidation callback */
static OtsCache *caches = NULL;

/*
 * cache_invalidate_relation marks stale, in every cache, the entries an
 * invalidation of relation relid concerns (InvalidOid: every relation):
 * those its concerns function picks, else the one keyed by relid when the
 * keys are relation OIDs, else none.  It counts the invalidation in each
 * cache.
 */
static void
cache_invalidate_relation(Datum arg, Oid relid)
{
	for (OtsCache *c = caches; c != NULL; c = c->next)
	{
		c->invalidations++;
		if (c->stale == NULL)
			continue;
		if (!OidIsValid(relid))
			cache_mark_stale(c);
		else if (c->concerns == NULL && !c->string_keys && c->keysize == sizeof(Oid))
		{
			void	   *entry = hash_search(c->htab, &relid, HASH_FIND, NULL);

			if (entry != NULL)
				c->stale(entry);
		}
		else if (c->concerns != NULL)
		{
			HASH_SEQ_STATUS seq;
			void	   *entry;

			hash_seq_init(&seq, c->htab);
			while ((entry = hash_seq_search(&seq)) != NULL)
				if (c->concerns(entry, relid))
					c->stale(entry);
		}
	}
}

/* cache_invalidate_syscache marks every entry of the watching cache stale */
static void
cache_invalidate_syscache(Datum arg, int cacheid, uint32 hashvalue)
{
	OtsCache   *c = (OtsCache *) DatumGetPointer(arg);

	if (c->htab != NULL)
		cache_mark_stale(c);
}

void
cache_init(void)
{
	CacheRegisterRelcacheCallback(cache_invalidate_relation, (Datum) 0);
}

void
cache_watch_syscache(OtsCache *cache, int cacheid)
{
	Assert(cache->stale != NULL);
	CacheRegisterSyscacheCallback(cacheid, cache_invalidate_syscache, PointerGetDatum(cache));
}

/* cache_create makes the cache's hash, in CacheMemoryContext, and lists the cache */
void
cache_create(OtsCache *cache)
{
	HASHCTL		ctl;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = cache->keysize;
	ctl.entrysize = cache->entrysize;
	ctl.hcxt = CacheMemoryContext;
	cache->htab = hash_create(cache->name, 64, &ctl,
							  HASH_ELEM | HASH_CONTEXT |
							  (cache->string_keys ? HASH_STRINGS : HASH_BLOBS));
	cache->next = caches;
	caches = cache;
}

void
cache_mark_stale(OtsCache *cache)
{
	HASH_SEQ_STATUS seq;
	void	   *entry;

	if (cache->htab == NULL || cache->stale == NULL)
		return;
	hash_seq_init(&seq, cache->htab);
	while ((entry = hash_seq_search(&seq)) != NULL)
		cache->stale(entry);
}
