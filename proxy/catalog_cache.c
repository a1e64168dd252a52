/*
 * catalog_cache.c: what the proxy knows of the tables it routes to: for
 * each table a role named in this session, the table's key (its first
 * column routes a row), or that this role can name no such table in that
 * schema.  Kept per session and per role, in this backend's memory:
 *
 * - a lookup writes nothing other sessions share, so a role holding its
 *   transaction open holds no lock that another role's DDL waits for, and
 *   no role's lookups make anything shared grow;
 * - the shards are asked as the calling role (ots_cluster.describe_any,
 *   which runs describe_table there), so a role learns a table's key only
 *   where the single node would describe the table to it;
 * - an entry comes only from a shard's answer: catalog_ask asks and
 *   records in one call, so no caller can make its cache say anything
 *   else (a wrong key would route rows to the wrong shard).
 *
 * A generation, the sequence ots_cluster.catalog_generation, makes every
 * session forget what it knew at its next lookup: the proxy's DDL bumps it
 * after changing the shards (catalog_changed), as does catalog_reset
 * after DDL made elsewhere.  A sequence, not a row: nextval waits for no
 * transaction and is not undone by a rollback, as the shards' changes are
 * not.  An answer is recorded only if the generation did not move since
 * the lookup that asked for it.  A session holds at most
 * CACHE_MAX_ENTRIES entries; past that it starts again from nothing.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgrprotos.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#define CACHE_MAX_ENTRIES 10000

/* a table name as a role named it */
typedef struct CacheKey
{
	Oid			role;
	NameData	schema_name;
	NameData	table_name;
} CacheKey;

typedef struct CacheEntry
{
	CacheKey	key;
	Datum		entry;			/* ots_cluster.table_entry; 0: no such table */
} CacheEntry;

static MemoryContext cache_cxt = NULL;
static HTAB *cache_hash = NULL;
static Oid	cache_seq = InvalidOid; /* the generation's sequence it was filled under */
static int64 cache_generation = 0;	/* and its value */

PG_FUNCTION_INFO_V1(ots_proxy_cache_lookup);
PG_FUNCTION_INFO_V1(ots_proxy_catalog_ask);
PG_FUNCTION_INFO_V1(ots_proxy_catalog_changed);
PG_FUNCTION_INFO_V1(ots_proxy_cache_entries);

/* cache_generation_seq is the OID of ots_cluster.catalog_generation */
static Oid
cache_generation_seq(void)
{
	Oid			seq = get_relname_relid("catalog_generation", get_namespace_oid("ots_cluster", false));

	if (!OidIsValid(seq))
		elog(ERROR, "ots_proxy: ots_cluster.catalog_generation is missing");
	return seq;
}

/* cache_read_generation is the sequence's last value (0 before its first) */
static int64
cache_read_generation(Oid seq)
{
	LOCAL_FCINFO(fcinfo, 1);
	Datum		d;

	InitFunctionCallInfoData(*fcinfo, NULL, 1, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = ObjectIdGetDatum(seq);
	fcinfo->args[0].isnull = false;
	d = pg_sequence_last_value(fcinfo);
	return fcinfo->isnull ? 0 : DatumGetInt64(d);
}

/* cache_forget drops every entry */
static void
cache_forget(void)
{
	if (cache_cxt != NULL)
		MemoryContextReset(cache_cxt);
	cache_hash = NULL;
}

/* cache_start makes the cache empty, filled under generation of seq */
static void
cache_start(Oid seq, int64 generation)
{
	HASHCTL		ctl;

	if (cache_cxt == NULL)
		cache_cxt = AllocSetContextCreate(TopMemoryContext, "ots_proxy catalog cache",
										  ALLOCSET_DEFAULT_SIZES);
	cache_forget();
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(CacheKey);
	ctl.entrysize = sizeof(CacheEntry);
	ctl.hcxt = cache_cxt;
	cache_hash = hash_create("ots_proxy catalog cache", 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	cache_seq = seq;
	cache_generation = generation;
}

/*
 * cache_sync makes the cache the current generation's: emptied when the
 * generation (or the extension, whose sequence is then new) changed since
 * it was filled
 */
static void
cache_sync(void)
{
	Oid			seq = cache_generation_seq();
	int64		generation = cache_read_generation(seq);

	if (cache_hash == NULL || seq != cache_seq || generation != cache_generation)
		cache_start(seq, generation);
}

/* cache_key fills key with the current role and schema.table */
static void
cache_key(CacheKey *key, Name schema_name, Name table_name)
{
	memset(key, 0, sizeof(*key));
	key->role = GetUserId();
	namestrcpy(&key->schema_name, NameStr(*schema_name));
	namestrcpy(&key->table_name, NameStr(*table_name));
}

/*
 * ots_proxy_cache_lookup is ots_cluster.cache_lookup(schemas, table_name,
 * OUT entry, OUT unknown_at): what this session knows, for the current
 * role, of table_name in schemas, in order: the entry of the first schema
 * that has it, unless a schema before it is not known either way: then
 * that schema's position (1-based), to be asked of the shards.  Both NULL
 * when every schema is known to have none.
 */
Datum
ots_proxy_cache_lookup(PG_FUNCTION_ARGS)
{
	ArrayType  *schemas = PG_GETARG_ARRAYTYPE_P(0);
	Name		table_name = PG_GETARG_NAME(1);
	TupleDesc	desc;
	Datum		values[2] = {0, 0};
	bool		nulls[2] = {true, true};
	Datum	   *names;
	bool	   *namenulls;
	int			n;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "ots_cluster.cache_lookup must return a record");
	cache_sync();
	deconstruct_array(schemas, NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR, &names, &namenulls, &n);
	for (int i = 0; i < n; i++)
	{
		CacheKey	key;
		CacheEntry *e;

		if (namenulls[i])
			continue;
		cache_key(&key, DatumGetName(names[i]), table_name);
		e = hash_search(cache_hash, &key, HASH_FIND, NULL);
		if (e == NULL)
		{
			values[1] = Int32GetDatum(i + 1);
			nulls[1] = false;
			break;
		}
		if (e->entry != (Datum) 0)
		{
			values[0] = e->entry;
			nulls[0] = false;
			break;
		}
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

/*
 * ots_proxy_catalog_ask is ots_cluster.catalog_ask(schema_name,
 * table_name): the entry of schema.table as the shards describe it to the
 * current role (NULL when it can name no such table there; their error,
 * the single node's, when it may not see it), recorded in this session's
 * cache unless the generation moved since the last lookup.
 */
Datum
ots_proxy_catalog_ask(PG_FUNCTION_ARGS)
{
	Name		schema_name = PG_GETARG_NAME(0);
	Name		table_name = PG_GETARG_NAME(1);
	Oid			types[2] = {NAMEOID, NAMEOID};
	Datum		args[2] = {NameGetDatum(schema_name), NameGetDatum(table_name)};
	MemoryContext cxt = CurrentMemoryContext;
	bool		isnull;
	Datum		entry;
	Oid			seq;
	CacheKey	key;
	CacheEntry *e;

	SPI_connect();
	if (SPI_execute_with_args("SELECT ots_cluster.entry_of(ots_cluster.describe_any($1, $2))",
							  2, types, args, NULL, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "ots_proxy: describing %s.%s returned " UINT64_FORMAT " rows",
			 NameStr(*schema_name), NameStr(*table_name), SPI_processed);
	entry = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	entry = isnull ? (Datum) 0 : SPI_datumTransfer(entry, false, -1);
	SPI_finish();
	MemoryContextSwitchTo(cxt);

	/* a DDL since the lookup may have changed what the shards said: not recorded */
	seq = cache_generation_seq();
	if (cache_hash == NULL || seq != cache_seq || cache_read_generation(seq) != cache_generation)
		cache_forget();
	else
	{
		if (hash_get_num_entries(cache_hash) >= CACHE_MAX_ENTRIES)
			cache_start(cache_seq, cache_generation);
		cache_key(&key, schema_name, table_name);
		e = hash_search(cache_hash, &key, HASH_ENTER, NULL);
		e->entry = (Datum) 0;
		if (entry != (Datum) 0)
		{
			MemoryContextSwitchTo(cache_cxt);
			e->entry = datumCopy(entry, false, -1);
			MemoryContextSwitchTo(cxt);
		}
	}
	if (entry == (Datum) 0)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(entry);
}

/*
 * ots_proxy_catalog_changed is ots_cluster.catalog_changed(schema_name,
 * table_name), called by the proxy's DDL once it has changed the shards:
 * every session forgets what it knew of tables (the generation moves), and
 * the view of schema.table in the proxy database follows its table
 * (ots_cluster.view_follow), when the caller may change it; with NULLs,
 * only the former.  Both are done as the extension's owner, in a
 * security-restricted operation, the calling role passed on to
 * view_follow, which checks it: no caller can pass another role.  In a
 * read-only transaction it does nothing: the proxy's DDL refuses to run
 * there before it changes any shard (resolve_on_shards).
 */
Datum
ots_proxy_catalog_changed(PG_FUNCTION_ARGS)
{
	Oid			caller = GetUserId();
	Oid			seq;
	HeapTuple	tup;
	Oid			owner;
	Oid			save_userid;
	int			save_sec_context;

	if (XactReadOnly)
		PG_RETURN_VOID();
	seq = cache_generation_seq();
	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(seq));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "ots_proxy: cache lookup failed for relation %u", seq);
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);

	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(owner, save_sec_context | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	DirectFunctionCall1(nextval_oid, ObjectIdGetDatum(seq));
	if (!PG_ARGISNULL(0) && !PG_ARGISNULL(1))
	{
		Oid			types[3] = {NAMEOID, NAMEOID, OIDOID};
		Datum		args[3] = {PG_GETARG_DATUM(0), PG_GETARG_DATUM(1), ObjectIdGetDatum(caller)};

		SPI_connect();
		if (SPI_execute_with_args("SELECT ots_cluster.view_follow($1, $2, $3)",
								  3, types, args, NULL, false, 1) != SPI_OK_SELECT)
			elog(ERROR, "ots_proxy: ots_cluster.view_follow failed");
		SPI_finish();
	}
	/* (an error unwinds the user id with the transaction) */
	SetUserIdAndSecContext(save_userid, save_sec_context);
	PG_RETURN_VOID();
}

/*
 * ots_proxy_cache_entries is ots_cluster.cache_entries(): what this
 * session knows of tables for the current role: each name, with its entry,
 * or NULL where it knows the role can name no such table
 */
Datum
ots_proxy_cache_entries(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HASH_SEQ_STATUS scan;
	CacheEntry *e;
	Oid			role = GetUserId();

	InitMaterializedSRF(fcinfo, 0);
	cache_sync();
	hash_seq_init(&scan, cache_hash);
	while ((e = hash_seq_search(&scan)) != NULL)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		if (e->key.role != role)
			continue;
		values[0] = NameGetDatum(&e->key.schema_name);
		values[1] = NameGetDatum(&e->key.table_name);
		values[2] = e->entry;
		nulls[2] = e->entry == (Datum) 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
