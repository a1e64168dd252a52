/*-------------------------------------------------------------------------
 * src/cache.h
 *	  The one pattern of ots's backend-local caches: create, look up,
 *	  invalidate by a callback registered at load.
 *
 * A cache is a static OtsCache its module fills in (name, key and entry
 * sizes, how an entry goes stale); its hash is created in
 * CacheMemoryContext at the first lookup.  Entries are never freed while
 * the backend runs, so pointers to them stay safe: an invalidation only
 * marks them stale (the module's stale function, which runs inside
 * invalidation processing and must neither allocate nor read the catalog),
 * and the module refreshes a stale entry in place at its next lookup.  One
 * relcache callback, registered by cache_init at load, marks the entries a
 * relation's invalidation concerns in every cache: those the cache's
 * concerns function picks, or by default the entry keyed by that
 * relation's OID (in a cache keyed by relation OIDs); all of them when
 * every relation is invalidated.  A cache may also watch syscaches
 * (cache_watch_syscache).  Caches of saved plans need no stale function: the plan
 * cache tells when a plan is stale (SPI_plan_is_valid).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_CACHE_H
#define OTS_CACHE_H

#include "postgres.h"
#include "utils/hsearch.h"

/* marks an entry stale */
typedef void (*CacheStaleFunc) (void *entry);

/* does an invalidation of relation relid concern the entry? */
typedef bool (*CacheConcernsFunc) (const void *entry, Oid relid);

typedef struct OtsCache
{
	/* filled in by the cache's module */
	const char *name;
	Size		keysize;		/* of the key at the start of the entry */
	Size		entrysize;
	bool		string_keys;	/* NUL-terminated string keys, else binary */
	CacheStaleFunc stale;		/* NULL: invalidations do not concern it */
	CacheConcernsFunc concerns; /* NULL: the entry keyed by the relation's OID,
								 * if the keys are OIDs */

	/* kept by cache.c */
	HTAB	   *htab;			/* NULL until the first lookup */
	uint64		invalidations;	/* relcache invalidations seen, of any relation */
	struct OtsCache *next;		/* the caches in use */
} OtsCache;

/* cache_init registers the caches' invalidation callback (_PG_init) */
extern void cache_init(void);

/* cache_create makes the cache's hash; cache_lookup calls it the first time */
extern void cache_create(OtsCache *cache);

/*
 * cache_lookup finds or enters the entry of key (found says which); a new
 * entry is all zero but for its key.  Inline, as the row paths call it.
 */
static inline void *
cache_lookup(OtsCache *cache, const void *key, bool *found)
{
	void	   *entry;

	if (cache->htab == NULL)
		cache_create(cache);
	entry = hash_search(cache->htab, key, HASH_ENTER, found);
	if (!*found)
		memset((char *) entry + cache->keysize, 0, cache->entrysize - cache->keysize);
	return entry;
}

/* cache_find finds the entry of key, NULL if there is none */
static inline void *
cache_find(OtsCache *cache, const void *key)
{
	return cache->htab != NULL ? hash_search(cache->htab, key, HASH_FIND, NULL) : NULL;
}

/* cache_mark_stale marks every entry of the cache stale */
extern void cache_mark_stale(OtsCache *cache);

/* cache_watch_syscache makes every change of syscache cacheid mark the cache's entries stale (at load) */
extern void cache_watch_syscache(OtsCache *cache, int cacheid);

#endif							/* OTS_CACHE_H */
