/*-------------------------------------------------------------------------
 * src/stats.c
 *	  Per-table activity counters of the row API (rows read and written,
 *	  read and write capacity units) behind the ots.stats view.
 *
 * The counters live in a fixed-size shared hash keyed by (database OID,
 * storage table OID), created at postmaster start when ots is in
 * shared_preload_libraries: one LWLock guards the hash's shape (shared to
 * find an entry and add to it with atomics, exclusive to add or remove
 * entries), so counting from many backends never serialises on a lock
 * held in exclusive mode.  Without preloading there is no shared memory:
 * stats_count does nothing and ots.stats_counters returns NULLs.  The
 * counters are not persistent; a restart resets them.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/hsearch.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "meta/catalog.h"
#include "guc.h"
#include "stats.h"
#include "writepoint/storage_write.h"

#define STATS_TRANCHE_NAME "ots_stats"

typedef struct StatsKey
{
	Oid			dbid;
	Oid			relid;			/* the storage table, s."t$data" */
} StatsKey;

typedef struct StatsEntry
{
	StatsKey	key;			/* hash key: first */
	pg_atomic_uint64 rows_read;
	pg_atomic_uint64 rows_written;
	pg_atomic_uint64 read_cu;
	pg_atomic_uint64 write_cu;
	/* changes the write point saw (ots.count_writes): rows, rows with old cells, with new cells */
	pg_atomic_uint64 stored[STORAGE_ORIGIN_COUNT][STORAGE_CB_COUNT][3];
} StatsEntry;

typedef struct StatsShared
{
	LWLock	   *lock;
} StatsShared;

static StatsShared *stats_shared = NULL;
static HTAB *stats_hash = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void stats_shmem_request(void);
static void stats_shmem_startup(void);
static Size stats_shmem_size(void);
static void stats_check_may_see(Oid data_oid);

PG_FUNCTION_INFO_V1(ots_stats_counters);
PG_FUNCTION_INFO_V1(ots_stats_forget);
PG_FUNCTION_INFO_V1(ots_write_point_counts);

/*
 * stats_init installs the shared-memory hooks when ots is being preloaded;
 * loaded later, it leaves counting off.
 */
void
stats_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = stats_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = stats_shmem_startup;
}

/* stats_shmem_size is the shared memory the counters need */
static Size
stats_shmem_size(void)
{
	return add_size(MAXALIGN(sizeof(StatsShared)),
					hash_estimate_size(ots_stats_max_tables, sizeof(StatsEntry)));
}

/* stats_shmem_request reserves the counters' memory and lock (PG15 hook) */
static void
stats_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(stats_shmem_size());
	RequestNamedLWLockTranche(STATS_TRANCHE_NAME, 1);
}

/*
 * stats_shmem_startup creates (in the postmaster) or attaches to the
 * shared counters.
 */
static void
stats_shmem_startup(void)
{
	bool		found;
	HASHCTL		info;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	stats_shared = ShmemInitStruct("ots stats", sizeof(StatsShared), &found);
	if (!found)
		stats_shared->lock = &(GetNamedLWLockTranche(STATS_TRANCHE_NAME))->lock;
	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(StatsKey);
	info.entrysize = sizeof(StatsEntry);
	stats_hash = ShmemInitHash("ots stats hash", ots_stats_max_tables, ots_stats_max_tables,
							   &info, HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);
	LWLockRelease(AddinShmemInitLock);
}

/*
 * stats_entry returns the table's counters in this database, creating them
 * at first use, with stats_shared->lock held in shared mode (the caller
 * releases it); NULL (and no lock) when the hash is full.
 */
static StatsEntry *
stats_entry(Oid data_oid)
{
	StatsKey	key;
	StatsEntry *e;
	bool		found;

	memset(&key, 0, sizeof(key));
	key.dbid = MyDatabaseId;
	key.relid = data_oid;

	LWLockAcquire(stats_shared->lock, LW_SHARED);
	e = hash_search(stats_hash, &key, HASH_FIND, NULL);
	if (e != NULL)
		return e;
	/* upgrade: another backend may add the entry in between */
	LWLockRelease(stats_shared->lock);
	LWLockAcquire(stats_shared->lock, LW_EXCLUSIVE);
	e = hash_search(stats_hash, &key, HASH_ENTER_NULL, &found);
	if (e != NULL && !found)
	{
		pg_atomic_init_u64(&e->rows_read, 0);
		pg_atomic_init_u64(&e->rows_written, 0);
		pg_atomic_init_u64(&e->read_cu, 0);
		pg_atomic_init_u64(&e->write_cu, 0);
		for (int o = 0; o < STORAGE_ORIGIN_COUNT; o++)
			for (int c = 0; c < STORAGE_CB_COUNT; c++)
				for (int i = 0; i < 3; i++)
					pg_atomic_init_u64(&e->stored[o][c][i], 0);
	}
	/* the caller adds with atomics: shared mode is enough, exclusive is as good */
	if (e == NULL)
		LWLockRelease(stats_shared->lock);
	return e;
}

/*
 * stats_count adds one call's rows and capacity units to the table's
 * counters.  The first call for a table creates its entry; when the hash
 * is full the call is not counted.
 */
void
stats_count(const OtsTable *t, int64 rows_read, int64 rows_written,
			int64 read_cu, int64 write_cu)
{
	StatsEntry *e;

	if (stats_shared == NULL || (e = stats_entry(t->data_oid)) == NULL)
		return;
	if (rows_read != 0)
		pg_atomic_fetch_add_u64(&e->rows_read, rows_read);
	if (rows_written != 0)
		pg_atomic_fetch_add_u64(&e->rows_written, rows_written);
	if (read_cu != 0)
		pg_atomic_fetch_add_u64(&e->read_cu, read_cu);
	if (write_cu != 0)
		pg_atomic_fetch_add_u64(&e->write_cu, write_cu);
	LWLockRelease(stats_shared->lock);
}

/*
 * stats_count_stored counts one change the write point saw: its rows, and
 * how many of them came with old cells and with new cells.
 */
void
stats_count_stored(Oid data_oid, int origin, int callback, int64 rows, int64 with_old,
				   int64 with_new)
{
	StatsEntry *e;

	if (stats_shared == NULL || (e = stats_entry(data_oid)) == NULL)
		return;
	pg_atomic_fetch_add_u64(&e->stored[origin][callback][0], rows);
	pg_atomic_fetch_add_u64(&e->stored[origin][callback][1], with_old);
	pg_atomic_fetch_add_u64(&e->stored[origin][callback][2], with_new);
	LWLockRelease(stats_shared->lock);
}

/*
 * ots_stats_counters is ots.stats_counters(storage regclass): the table's
 * rows_read, rows_written, read_cu and write_cu in this database; zeros
 * when it has not been used since the server started, NULLs when ots is
 * not preloaded (no counters exist).  Only roles that may see the table
 * (catalog_may_see) may read them.
 */
Datum
ots_stats_counters(PG_FUNCTION_ARGS)
{
	TupleDesc	desc;
	Datum		values[4];
	bool		nulls[4];
	StatsKey	key;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "ots.stats_counters must return a record");
	stats_check_may_see(PG_GETARG_OID(0));
	memset(values, 0, sizeof(values));
	memset(nulls, stats_shared == NULL, sizeof(nulls));
	if (stats_shared != NULL)
	{
		StatsEntry *e;

		memset(&key, 0, sizeof(key));
		key.dbid = MyDatabaseId;
		key.relid = PG_GETARG_OID(0);
		LWLockAcquire(stats_shared->lock, LW_SHARED);
		e = hash_search(stats_hash, &key, HASH_FIND, NULL);
		if (e != NULL)
		{
			values[0] = Int64GetDatum((int64) pg_atomic_read_u64(&e->rows_read));
			values[1] = Int64GetDatum((int64) pg_atomic_read_u64(&e->rows_written));
			values[2] = Int64GetDatum((int64) pg_atomic_read_u64(&e->read_cu));
			values[3] = Int64GetDatum((int64) pg_atomic_read_u64(&e->write_cu));
		}
		else
			for (int i = 0; i < 4; i++)
				values[i] = Int64GetDatum(0);
		LWLockRelease(stats_shared->lock);
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

/* stats_check_may_see refuses a table's counters to a role that may not see the table */
static void
stats_check_may_see(Oid data_oid)
{
	if (!catalog_may_see_storage(data_oid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for the ots statistics of table %s",
						get_rel_name(data_oid) ? get_rel_name(data_oid) : "?"),
				 errdetail("Only roles that may see an ots table may read its counters.")));
}

/*
 * ots_write_point_counts is ots.write_point_counts(storage regclass): the
 * changes of the table's rows the write point saw since its counters were
 * created or reset (ots.stats_forget), by origin and table AM callback,
 * with how many came with old and with new cells; only what is not zero.
 * Counted only while ots.count_writes is on, and only when ots is
 * preloaded.  Same privilege as ots.stats_counters.
 */
Datum
ots_write_point_counts(PG_FUNCTION_ARGS)
{
	static const char *const origins[] = {"ots", "sql"};
	static const char *const callbacks[] = {"insert", "speculative insert", "multi insert",
	"update", "delete", "truncate", "attach", "detach"};
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StatsKey	key;
	StatsEntry *e;

	StaticAssertStmt(lengthof(origins) == STORAGE_ORIGIN_COUNT, "one name per origin");
	StaticAssertStmt(lengthof(callbacks) == STORAGE_CB_COUNT, "one name per callback");
	stats_check_may_see(PG_GETARG_OID(0));
	InitMaterializedSRF(fcinfo, 0);
	if (stats_shared == NULL)
		PG_RETURN_VOID();
	memset(&key, 0, sizeof(key));
	key.dbid = MyDatabaseId;
	key.relid = PG_GETARG_OID(0);
	LWLockAcquire(stats_shared->lock, LW_SHARED);
	e = hash_search(stats_hash, &key, HASH_FIND, NULL);
	for (int o = 0; e != NULL && o < STORAGE_ORIGIN_COUNT; o++)
		for (int c = 0; c < STORAGE_CB_COUNT; c++)
		{
			Datum		values[5];
			bool		nulls[5] = {false};

			if (pg_atomic_read_u64(&e->stored[o][c][0]) == 0)
				continue;
			values[0] = CStringGetTextDatum(origins[o]);
			values[1] = CStringGetTextDatum(callbacks[c]);
			for (int i = 0; i < 3; i++)
				values[2 + i] = Int64GetDatum((int64) pg_atomic_read_u64(&e->stored[o][c][i]));
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	LWLockRelease(stats_shared->lock);
	PG_RETURN_VOID();
}

/*
 * ots_stats_forget is ots.stats_forget(storage regclass): drops the
 * table's counters in this database (delete_table calls it, and it resets
 * a table's counters); true if there were any.  Only the table's owner may.
 */
Datum
ots_stats_forget(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	StatsKey	key;
	bool		found = false;

	if (!pg_class_ownercheck(relid, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s to reset its ots statistics",
						get_rel_name(relid) ? get_rel_name(relid) : "?")));
	if (stats_shared == NULL)
		PG_RETURN_BOOL(false);
	memset(&key, 0, sizeof(key));
	key.dbid = MyDatabaseId;
	key.relid = relid;
	LWLockAcquire(stats_shared->lock, LW_EXCLUSIVE);
	hash_search(stats_hash, &key, HASH_REMOVE, &found);
	LWLockRelease(stats_shared->lock);
	PG_RETURN_BOOL(found);
}
