/*-------------------------------------------------------------------------
 * src/meta/storage.c
 *	  The storage layout of ots tables (storage.h): names of the storage
 *	  relations and columns, the stored key and its types, and the hash
 *	  prefix in front of it (with ots.hash_prefix, which shows it to SQL).
 *
 * Only this file knows how a primary key becomes a stored key, so routing,
 * rowstore, range scans and batches all build the same one.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "access/htup_details.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "common/md5.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "asrole.h"
#include "errors.h"
#include "ots_limits.h"
#include "meta/storage.h"

PG_FUNCTION_INFO_V1(ots_hash_prefix_text);
PG_FUNCTION_INFO_V1(ots_hash_prefix_int8);
PG_FUNCTION_INFO_V1(ots_hash_prefix_bytea);

/* storage_md5_hex writes the 32 hex digits of the value's MD5 */
static void
storage_md5_hex(const OtsValue *v, char *hex)
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

/*
 * storage_hash_prefix is the integer value of the first n hex digits of
 * the MD5 of a partition-key value (String: its UTF-8 bytes; Integer: its
 * decimal text; Binary: its bytes): the "$hash" stored in front of the key.
 */
int64
storage_hash_prefix(const OtsValue *v, int n)
{
	char		hex[33];
	int64		prefix = 0;

	storage_md5_hex(v, hex);
	for (int i = 0; i < n; i++)
	{
		char		c = hex[i];

		prefix = prefix * 16 + (c <= '9' ? c - '0' : c - 'a' + 10);
	}
	return prefix;
}

/* storage_key_column names stored key column k ("$hash" first on prefixed tables) */
const char *
storage_key_column(const OtsTable *t, int k)
{
	if (t->hash_prefix_len > 0)
		return k == 0 ? STORAGE_HASH_COLUMN : t->pk[k - 1].name;
	return t->pk[k].name;
}

/* storage_key_type is the storage type of stored key column k */
Oid
storage_key_type(const OtsTable *t, int k)
{
	OtsValueType type;

	if (t->hash_prefix_len > 0)
	{
		if (k == 0)
			return INT8OID;
		k--;
	}
	type = t->pk[k].type;
	return type == OTS_VT_INTEGER ? INT8OID : type == OTS_VT_STRING ? TEXTOID : BYTEAOID;
}

/* storage_key_collation is the collation of stored key column k: "C" for text */
Oid
storage_key_collation(const OtsTable *t, int k)
{
	return storage_key_type(t, k) == TEXTOID ? C_COLLATION_OID : InvalidOid;
}

Datum
storage_pk_datum(const OtsValue *v, Oid *type)
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
 * storage_key writes the stored key of the first npk columns of pk (values
 * only, no INF or auto-increment placeholder among them) into values and
 * types, allocating in CurrentMemoryContext, and returns its number of
 * columns: "$hash" first when the table is hash-prefixed and npk > 0, then
 * the npk key columns.  npk = t->npk gives a whole row's key; fewer, the
 * stored key of a range bound cut before its first INF.
 */
int
storage_key(const OtsTable *t, const PkInput *pk, int npk, Datum *values, Oid *types)
{
	int			k = 0;

	if (t->hash_prefix_len > 0 && npk > 0)
	{
		values[k] = Int64GetDatum(storage_hash_prefix(&pk->v[0], t->hash_prefix_len));
		types[k++] = INT8OID;
	}
	for (int i = 0; i < npk; i++, k++)
		values[k] = storage_pk_datum(&pk->v[i], &types[k]);
	return k;
}

void
storage_key_row(const OtsTable *t, const PkInput *pk, Datum **keys, int i)
{
	Datum		key[OTS_MAX_KEY_COLUMNS + 1];
	Oid			types[OTS_MAX_KEY_COLUMNS + 1];
	int			nkeys = storage_key(t, pk, t->npk, key, types);

	for (int k = 0; k < nkeys; k++)
		keys[k][i] = key[k];
}

/*
 * storage_leaf_key reads the primary key of a stored row of t, the inverse
 * of storage_key: row is a row of a leaf whose stored key columns are at
 * key_attnos (as the leaf cache finds them, src/store/leaf.c), and pk[]
 * gets its npk values ("$hash" skipped), Integer by value, String and
 * Binary pointing into the row (detoasted first when stored toasted, in
 * CurrentMemoryContext).  Returns the number of columns read: t->npk, or
 * the position of the first null one, where it stops.
 */
int
storage_leaf_key(const OtsTable *t, const AttrNumber *key_attnos, TupleTableSlot *row,
				 OtsValue *pk)
{
	int			first = t->hash_prefix_len > 0 ? 1 : 0;

	for (int k = 0; k < t->npk; k++)
	{
		bool		isnull;
		Datum		d = slot_getattr(row, key_attnos[first + k], &isnull);

		if (isnull)
			return k;
		pk[k].type = t->pk[k].type;
		if (t->pk[k].type == OTS_VT_INTEGER)
			pk[k].u.i = DatumGetInt64(d);
		else
		{
			struct varlena *v = PG_DETOAST_DATUM_PACKED(d);

			pk[k].u.s.data = VARDATA_ANY(v);
			pk[k].u.s.len = VARSIZE_ANY_EXHDR(v);
		}
	}
	return t->npk;
}

void
storage_leaf_key_whole(const OtsTable *t, const AttrNumber *key_attnos, TupleTableSlot *row,
					   OtsValue *pk)
{
	if (storage_leaf_key(t, key_attnos, row, pk) < t->npk)
		elog(ERROR, "a key column of a changed ots row is null");
}

/* storage_cells_type is the OID of type ots.cells */
Oid
storage_cells_type(void)
{
	Oid			nsp = get_namespace_oid("ots", false);

	return GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
						   CStringGetDatum("cells"), ObjectIdGetDatum(nsp));
}

/* storage_oid is the storage table of ots table table_name in schema nsp, or InvalidOid */
Oid
storage_oid(Oid nsp, const char *table_name)
{
	return OidIsValid(nsp) ?
		get_relname_relid(psprintf("%s%s", table_name, STORAGE_SUFFIX), nsp) : InvalidOid;
}

const StorageNamedPart storage_named_parts[STORAGE_NAMED_PARTS] = {
	{"", "view"},
	{STORAGE_SEQUENCE_SUFFIX, "AUTO_INCREMENT sequence"},
	{STORAGE_STREAM_LOG_SUFFIX, "stream's log"},
	{STORAGE_STREAM_REC_SUFFIX, "stream's records"},
	{STORAGE_CHUNK_SUFFIX, "chunk relation"},
};

bool
storage_is_part(Oid relid, Oid storage)
{
	return OidIsValid(relid) && OidIsValid(storage) && asrole_owner(relid) == asrole_owner(storage);
}

Oid
storage_chunk_oid(Oid storage, const char *table_name)
{
	Oid			relid;

	if (!OidIsValid(storage))
		return InvalidOid;
	relid = get_relname_relid(psprintf("%s%s", table_name, STORAGE_CHUNK_SUFFIX),
							  get_rel_namespace(storage));
	return storage_is_part(relid, storage) ? relid : InvalidOid;
}

Oid
storage_chunk_of(Oid relid)
{
	char	   *table = storage_table_of(get_rel_name(relid), STORAGE_CHUNK_SUFFIX);
	Oid			storage;

	if (table == NULL || get_rel_relkind(relid) != RELKIND_RELATION || get_rel_relispartition(relid))
		return InvalidOid;
	storage = storage_oid(get_rel_namespace(relid), table);
	if (get_rel_relkind(storage) != RELKIND_PARTITIONED_TABLE || !storage_is_part(relid, storage))
		return InvalidOid;
	return storage;
}

char *
storage_chunk_name(const OtsTable *t)
{
	return quote_qualified_identifier(t->schema_name,
									  psprintf("%s%s", t->table_name, STORAGE_CHUNK_SUFFIX));
}

/* storage_name is the quoted, qualified name of t's storage table */
char *
storage_name(const OtsTable *t)
{
	return quote_qualified_identifier(t->schema_name,
									  psprintf("%s%s", t->table_name, STORAGE_SUFFIX));
}

/*
 * storage_table_of is the table name relname is made from with suffix
 * (STORAGE_SUFFIX, STORAGE_SEQUENCE_SUFFIX, STORAGE_CHUNK_SUFFIX), or NULL
 * when relname is not such a name.
 */
char *
storage_table_of(const char *relname, const char *suffix)
{
	size_t		len = relname != NULL ? strlen(relname) : 0;
	size_t		slen = strlen(suffix);

	if (len <= slen || strcmp(relname + len - slen, suffix) != 0)
		return NULL;
	return pnstrdup(relname, len - slen);
}

/*
 * ots_hash_prefix_* are ots.hash_prefix(value, n): the first n hex digits of
 * the MD5 of a partition-key value, as stored in front of the key of a
 * hash-prefixed table.
 */
static Datum
storage_hash_prefix_text(const OtsValue *v, int32 n)
{
	char		hex[33];

	if (n < 1 || n > OTS_MAX_HASH_PREFIX_LEN)
		ereport(ERROR,
				(errcode(ERRCODE_OTS_PARAMETER_INVALID),
				 errmsg_internal("Invalid hash prefix length: %d.", n),
				 errdetail("The length is a number of hex digits from 1 to %d.",
						   OTS_MAX_HASH_PREFIX_LEN)));
	storage_md5_hex(v, hex);
	return PointerGetDatum(cstring_to_text_with_len(hex, n));
}

/*
 * storage_hash_prefix_bytes is ots.hash_prefix of a String (text) or
 * Binary (bytea) value: both are bytes in a varlena.
 */
static Datum
storage_hash_prefix_bytes(FunctionCallInfo fcinfo, OtsValueType type)
{
	struct varlena *bytes = PG_GETARG_VARLENA_PP(0);
	OtsValue	v = {.type = type};

	v.u.s.data = VARDATA_ANY(bytes);
	v.u.s.len = VARSIZE_ANY_EXHDR(bytes);
	return storage_hash_prefix_text(&v, PG_GETARG_INT32(1));
}

Datum
ots_hash_prefix_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(storage_hash_prefix_bytes(fcinfo, OTS_VT_STRING));
}

Datum
ots_hash_prefix_int8(PG_FUNCTION_ARGS)
{
	OtsValue	v = {.type = OTS_VT_INTEGER};

	v.u.i = PG_GETARG_INT64(0);
	PG_RETURN_DATUM(storage_hash_prefix_text(&v, PG_GETARG_INT32(1)));
}

Datum
ots_hash_prefix_bytea(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(storage_hash_prefix_bytes(fcinfo, OTS_VT_BINARY));
}

/*
 * storage_am_oid is the table access method every leaf of ots storage uses:
 * ots's own, or heap's while the installation is still at 0.1.0 (before
 * ALTER EXTENSION ots UPDATE creates the access method and moves the
 * leaves onto it), so an old installation keeps working with this library.
 */
Oid
storage_am_oid(void)
{
	Oid			am = get_table_am_oid(STORAGE_ACCESS_METHOD, true);

	return OidIsValid(am) ? am : HEAP_TABLE_AM_OID;
}

bool
storage_is_ots_leaf(Oid relid)
{
	Oid			am = get_table_am_oid(STORAGE_ACCESS_METHOD, true);
	HeapTuple	tup;
	bool		result;

	if (!OidIsValid(am))
		return false;
	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		return false;
	result = ((Form_pg_class) GETSTRUCT(tup))->relam == am;
	ReleaseSysCache(tup);
	return result;
}

char *
storage_key_list(const OtsTable *t, int ncols)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int k = 0; k < ncols; k++)
		appendStringInfo(&buf, "%s%s", k > 0 ? ", " : "", quote_identifier(storage_key_column(t, k)));
	return buf.data;
}
