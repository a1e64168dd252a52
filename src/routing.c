/*-------------------------------------------------------------------------
 * src/routing.c
 *	  Computes hash prefixes and routes a primary key to its leaf partition
 *	  in C, so row operations never go through the partitioned parent.
 *
 * Routing reads the parent's partition key and descriptor from the
 * relcache, so it follows whatever partitions exist (and invalidation)
 * exactly as PostgreSQL's own tuple routing does.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_type.h"
#include "common/md5.h"
#include "partitioning/partbounds.h"
#include "partitioning/partdesc.h"
#include "utils/builtins.h"
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

/*
 * routing_find_leaf returns the leaf of a single-column partition key,
 * the same way get_partition_for_tuple does for HASH and RANGE.
 */
Oid
routing_find_leaf(Relation parent, Datum partvalue)
{
	PartitionKey key = RelationGetPartitionKey(parent);
	PartitionDesc desc = RelationGetPartitionDesc(parent, true);
	PartitionBoundInfo bounds = desc->boundinfo;
	bool		isnull = false;
	int			part = -1;

	if (bounds == NULL || key->partnatts != 1)
		elog(ERROR, "ots storage table \"%s\" is not partitioned as ots expects",
			 RelationGetRelationName(parent));
	if (key->strategy == PARTITION_STRATEGY_HASH)
	{
		uint64		hash = compute_partition_hash_value(1, key->partsupfunc,
														key->partcollation,
														&partvalue, &isnull);

		part = bounds->indexes[hash % bounds->nindexes];
	}
	else if (key->strategy == PARTITION_STRATEGY_RANGE)
	{
		bool		equal;
		int			offset = partition_range_datum_bsearch(key->partsupfunc,
														   key->partcollation,
														   bounds, 1, &partvalue, &equal);

		part = bounds->indexes[offset + 1];
	}
	if (part < 0)
		ereport(ERROR,
				(errcode(ERRCODE_OTS_INTERNAL_SERVER_ERROR),
				 errmsg("no partition of \"%s\" holds this primary key",
						RelationGetRelationName(parent)),
				 errhint("The table's partitions were changed outside ots.")));
	return desc->oids[part];
}

void
routing_key(const OtsTable *t, const PkInput *pk, RowKey *key)
{
	Relation	parent;
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

	parent = table_open(t->data_oid, AccessShareLock);
	key->owner = parent->rd_rel->relowner;
	key->leaf_oid = routing_find_leaf(parent, key->values[0]);
	table_close(parent, NoLock);
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
