/*-------------------------------------------------------------------------
 * src/routing.c
 *	  Computes hash prefixes and routes a primary key to its leaf partition
 *	  in C, so row operations never go through the partitioned parent.
 *
 * Routing uses the parent's partition key and bounds as the relcache has
 * them (copied once, again after an invalidation), so it follows whatever
 * partitions exist exactly as PostgreSQL's own tuple routing does.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/pg_type.h"
#include "common/md5.h"
#include "partitioning/partbounds.h"
#include "partitioning/partdesc.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/partcache.h"

#include "errors.h"
#include "routing.h"

PG_FUNCTION_INFO_V1(ots_hash_prefix_text);
PG_FUNCTION_INFO_V1(ots_hash_prefix_int8);
PG_FUNCTION_INFO_V1(ots_hash_prefix_bytea);

static void routing_md5_hex(const OtsValue *v, char *hex);

/* routing_md5_hex writes the 32 hex digits of the value's MD5 */
static void
routing_md5_hex(const OtsValue *v, char *hex)
{
	const char *errstr = NULL;
	const void *data;
	size_t		len;
	char		buf[32];

	if (v->type == OTS_VT_INTEGER)
	{
		len = snprintf(buf, sizeof(buf), INT64_FORMAT, v->u.i);
		data = buf;
	}
	else
	{
		data = v->u.s.data;
		len = v->u.s.len;
	}
	if (!pg_md5_hash(data, len, hex, &errstr))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not compute MD5 hash prefix: %s", errstr)));
}

int64
routing_hash_prefix(const OtsValue *v, int n)
{
	char		hex[33];
	int64		prefix = 0;

	routing_md5_hex(v, hex);
	for (int i = 0; i < n; i++)
	{
		char		c = hex[i];

		prefix = prefix * 16 + (c <= '9' ? c - '0' : c - 'a' + 10);
	}
	return prefix;
}

const char *
routing_key_column(const OtsTable *t, int k)
{
	if (t->hash_prefix_len > 0)
		return k == 0 ? "$hash" : t->pk[k - 1].name;
	return t->pk[k].name;
}

Datum
routing_pk_datum(const OtsValue *v, Oid *type)
{
	switch (v->type)
	{
		case OTS_VT_INTEGER:
			*type = INT8OID;
			return Int64GetDatum(v->u.i);
		case OTS_VT_STRING:
			*type = TEXTOID;
			return PointerGetDatum(cstring_to_text_with_len(v->u.s.data, v->u.s.len));
		case OTS_VT_BINARY:
			{
				bytea	   *b = palloc(VARHDRSZ + v->u.s.len);

				SET_VARSIZE(b, VARHDRSZ + v->u.s.len);
				memcpy(VARDATA(b), v->u.s.data, v->u.s.len);
				*type = BYTEAOID;
				return PointerGetDatum(b);
			}
		default:
			elog(ERROR, "invalid primary key value type %d", v->type);
	}
	return (Datum) 0;
}

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
} RoutingCache;

static HTAB *routing_cache = NULL;
static uint64 routing_invalidations = 0;

/*
 * routing_invalidate forgets the partitioning of an invalidated relation
 * (or of all): attaching or detaching a partition invalidates the parent.
 */
static void
routing_invalidate(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS seq;
	RoutingCache *rc;

	routing_invalidations++;
	if (OidIsValid(relid))
	{
		rc = hash_search(routing_cache, &relid, HASH_FIND, NULL);
		if (rc != NULL)
			rc->valid = false;
		return;
	}
	hash_seq_init(&seq, routing_cache);
	while ((rc = hash_seq_search(&seq)) != NULL)
		rc->valid = false;
}

/*
 * routing_partitions locks the storage table as opening it would (which
 * also takes in pending invalidations) and returns its partitioning, read
 * from the relcache only when it changed: routing then needs neither a
 * relcache lookup nor a copy of the partition descriptor per call.  Each
 * leaf is checked (catalog_check_leaf) when the partitioning is read: a
 * partition ots did not shape is an error before any row call touches it.
 */
static RoutingCache *
routing_partitions(const OtsTable *t)
{
	Oid			data_oid = t->data_oid;
	RoutingCache *rc;
	bool		found;

	LockRelationOid(data_oid, AccessShareLock);
	if (routing_cache == NULL)
	{
		HASHCTL		ctl;

		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(RoutingCache);
		ctl.hcxt = CacheMemoryContext;
		routing_cache = hash_create("ots routing", 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		CacheRegisterRelcacheCallback(routing_invalidate, (Datum) 0);
	}
	rc = hash_search(routing_cache, &data_oid, HASH_ENTER, &found);
	if (!found)
	{
		rc->valid = false;
		rc->cxt = AllocSetContextCreate(CacheMemoryContext, "ots routing entry",
										ALLOCSET_SMALL_SIZES);
	}
	if (!rc->valid)
	{
		uint64		seen = routing_invalidations;
		Relation	parent = relation_open(data_oid, NoLock);
		PartitionKey key = RelationGetPartitionKey(parent);
		PartitionDesc desc = RelationGetPartitionDesc(parent, true);
		MemoryContext old;

		if (key == NULL || desc->boundinfo == NULL || key->partnatts != 1 ||
			(key->strategy != PARTITION_STRATEGY_HASH && key->strategy != PARTITION_STRATEGY_RANGE))
			catalog_report_damaged(t, "its storage table has no partitions, or is not partitioned as ots expects");
		/* ots reads and writes the leaves' heaps and indexes directly */
		for (int i = 0; i < desc->nparts; i++)
			catalog_check_leaf(t, desc->oids[i]);
		MemoryContextReset(rc->cxt);
		old = MemoryContextSwitchTo(rc->cxt);
		rc->strategy = key->strategy;
		fmgr_info_copy(&rc->partsupfunc, &key->partsupfunc[0], rc->cxt);
		rc->partcollation = key->partcollation[0];
		rc->bounds = partition_bounds_copy(desc->boundinfo, key);
		rc->leaves = palloc(sizeof(Oid) * Max(desc->nparts, 1));
		memcpy(rc->leaves, desc->oids, sizeof(Oid) * desc->nparts);
		MemoryContextSwitchTo(old);
		relation_close(parent, NoLock);
		/* an invalidation that came while copying leaves the entry to be read again */
		rc->valid = (seen == routing_invalidations);
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
				 errmsg("no partition of \"%s$data\" holds this primary key", t->table_name),
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

void
routing_key(const OtsTable *t, const PkInput *pk, RowKey *key)
{
	int			k = 0;

	key->t = t;
	key->found = false;
	if (t->hash_prefix_len > 0)
	{
		key->values[k] = Int64GetDatum(routing_hash_prefix(&pk->v[0], t->hash_prefix_len));
		key->types[k++] = INT8OID;
	}
	for (int i = 0; i < t->npk; i++, k++)
		key->values[k] = routing_pk_datum(&pk->v[i], &key->types[k]);
	key->nkeys = k;
	routing_leaves(t, 1, &key->values[0], &key->leaf_oid);
}

/*
 * ots_hash_prefix_* are ots.hash_prefix(value, n): the first n hex digits of
 * the MD5 of a partition-key value, as stored in front of the key of a
 * hash-prefixed table.
 */
static Datum
routing_hash_prefix_text(const OtsValue *v, int32 n)
{
	char		hex[33];

	if (n < 1 || n > OTS_MAX_HASH_PREFIX_LEN)
		ereport(ERROR,
				(errcode(ERRCODE_OTS_PARAMETER_INVALID),
				 errmsg_internal("Invalid hash prefix length: %d.", n),
				 errdetail("The length is a number of hex digits from 1 to %d.",
						   OTS_MAX_HASH_PREFIX_LEN)));
	routing_md5_hex(v, hex);
	return PointerGetDatum(cstring_to_text_with_len(hex, n));
}

Datum
ots_hash_prefix_text(PG_FUNCTION_ARGS)
{
	text	   *t = PG_GETARG_TEXT_PP(0);
	OtsValue	v = {.type = OTS_VT_STRING};

	v.u.s.data = VARDATA_ANY(t);
	v.u.s.len = VARSIZE_ANY_EXHDR(t);
	PG_RETURN_DATUM(routing_hash_prefix_text(&v, PG_GETARG_INT32(1)));
}

Datum
ots_hash_prefix_int8(PG_FUNCTION_ARGS)
{
	OtsValue	v = {.type = OTS_VT_INTEGER};

	v.u.i = PG_GETARG_INT64(0);
	PG_RETURN_DATUM(routing_hash_prefix_text(&v, PG_GETARG_INT32(1)));
}

Datum
ots_hash_prefix_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	OtsValue	v = {.type = OTS_VT_BINARY};

	v.u.s.data = VARDATA_ANY(b);
	v.u.s.len = VARSIZE_ANY_EXHDR(b);
	PG_RETURN_DATUM(routing_hash_prefix_text(&v, PG_GETARG_INT32(1)));
}
