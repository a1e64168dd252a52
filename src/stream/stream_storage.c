/*-------------------------------------------------------------------------
 * src/stream/stream_storage.c
 *	  A table's stream as stored: its two relations, written directly
 *	  (heap and btree inserts, as PostgreSQL writes its catalogs) and
 *	  scanned by key, the shard lock, positions.  See stream_storage.h.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "cache.h"
#include "meta/catalog.h"
#include "errors.h"
#include "store/routing.h"
#include "stream/stream_storage.h"

const StreamRelation stream_log_relation = {
	STORAGE_STREAM_LOG_SUFFIX, "log", STREAM_LOG_NCOLUMNS, 2,
	{{"shard", INT4OID}, {"position", INT8OID}, {"id", INT8OID}, {"spilled", INT4OID},
	{"records", JSONBARRAYOID}}
};

const StreamRelation stream_rec_relation = {
	STORAGE_STREAM_REC_SUFFIX, "records", STREAM_REC_NCOLUMNS, 3,
	{{"shard", INT4OID}, {"id", INT8OID}, {"n", INT4OID}, {"record", JSONBOID}}
};

/*
 * The shard lock of a stream is an advisory lock on (database, log OID,
 * shard) with a field4 SQL's pg_advisory_* functions never use (1 and 2),
 * so no role can take it through SQL; pg_locks shows it as locktype
 * advisory, classid the log's OID, objid the shard, objsubid 29556.
 */
#define STREAM_LOCK_FIELD4 0x7374	/* 'st' */

/*
 * stream_open_one opens one relation of t's stream and checks, each time
 * (DDL on it does not reload t), that it is what ots made and writes
 * directly: a heap table with exactly ots's columns, NOT NULL, whose only
 * index is its primary key, a btree on its first columns in order.
 */
static Relation
stream_open_one(const OtsTable *t, Oid relid, const StreamRelation *sr, LOCKMODE lockmode,
				Relation *key, IndexInfo **key_info)
{
	Relation	rel = table_open(relid, lockmode);
	TupleDesc	desc = RelationGetDescr(rel);
	List	   *indexes;
	Oid			key_oid;
	Form_pg_index index;

	if (desc->natts != sr->ncolumns || rel->rd_rel->relam != HEAP_TABLE_AM_OID ||
		rel->rd_rel->relkind != RELKIND_RELATION)
		catalog_report_damaged(t, "a relation of its stream is not the table ots made");
	for (int c = 0; c < sr->ncolumns; c++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, c);

		if (att->attisdropped || !att->attnotnull || att->atttypid != sr->columns[c].type ||
			strcmp(NameStr(att->attname), sr->columns[c].name) != 0)
			catalog_report_damaged(t, "a relation of its stream has other columns than ots made");
	}
	indexes = RelationGetIndexList(rel);
	key_oid = RelationGetPrimaryKeyIndex(rel);
	if (list_length(indexes) != 1 || !OidIsValid(key_oid) || linitial_oid(indexes) != key_oid)
		catalog_report_damaged(t, "a relation of its stream has other indexes than its primary key");
	list_free(indexes);
	*key = index_open(key_oid, lockmode);
	index = (*key)->rd_index;
	if ((*key)->rd_rel->relam != BTREE_AM_OID || index->indnkeyatts != sr->nkeys ||
		index->indnatts != sr->nkeys)
		catalog_report_damaged(t, "the primary key of a relation of its stream is not the one ots made");
	for (int k = 0; k < sr->nkeys; k++)
		if (index->indkey.values[k] != k + 1)
			catalog_report_damaged(t, "the primary key of a relation of its stream is not the one ots made");
	*key_info = BuildIndexInfo(*key);
	return rel;
}

static void
stream_check_enabled(const OtsTable *t)
{
	if (!t->stream_enabled)
		elog(ERROR, "ots table %s has no stream",
			 quote_qualified_identifier(t->schema_name, t->table_name));
}

void
stream_open_log(const OtsTable *t, LOCKMODE lockmode, StreamRels *r)
{
	stream_check_enabled(t);
	memset(r, 0, sizeof(*r));
	r->log = stream_open_one(t, t->stream_log_oid, &stream_log_relation, lockmode, &r->log_key,
							 &r->log_key_info);
}

void
stream_open_rec(const OtsTable *t, LOCKMODE lockmode, StreamRels *r)
{
	stream_check_enabled(t);
	memset(r, 0, sizeof(*r));
	r->rec = stream_open_one(t, t->stream_rec_oid, &stream_rec_relation, lockmode, &r->rec_key,
							 &r->rec_key_info);
}

void
stream_open(const OtsTable *t, LOCKMODE lockmode, StreamRels *r)
{
	stream_open_log(t, lockmode, r);
	r->rec = stream_open_one(t, t->stream_rec_oid, &stream_rec_relation, lockmode, &r->rec_key,
							 &r->rec_key_info);
}

void
stream_close(StreamRels *r)
{
	if (r->log != NULL)
	{
		index_close(r->log_key, NoLock);
		table_close(r->log, NoLock);
	}
	if (r->rec != NULL)
	{
		index_close(r->rec_key, NoLock);
		table_close(r->rec, NoLock);
	}
}

/*
 * stream_insert stores one row of rel and its primary key entry.  The key
 * is unique by construction (a random entry id with its own numbers;
 * positions strictly increasing under the shard lock, a trim marker at the
 * position of an entry its transaction deletes), so it is not checked.
 */
static void
stream_insert(Relation rel, Relation key, IndexInfo *key_info, Datum *values, bool *isnull)
{
	HeapTuple	tup = heap_form_tuple(RelationGetDescr(rel), values, isnull);

	heap_insert(rel, tup, GetCurrentCommandId(true), 0, NULL);
	/* the key columns come first, in order */
	index_insert(key, values, isnull, &tup->t_self, rel, UNIQUE_CHECK_NO, false, key_info);
	heap_freetuple(tup);
}

ArrayType *
stream_log_records(Datum *records, int n)
{
	/* an array of the records as they are (construct_array copies them once) */
	return construct_array(records, n, JSONBOID, -1, false, TYPALIGN_INT);
}

void
stream_log_insert(StreamRels *r, int32 shard, int64 position, int64 id, int32 spilled,
				  ArrayType *records)
{
	Datum		values[STREAM_LOG_NCOLUMNS];
	bool		isnull[STREAM_LOG_NCOLUMNS] = {false};

	values[STREAM_LOG_SHARD - 1] = Int32GetDatum(shard);
	values[STREAM_LOG_POSITION - 1] = Int64GetDatum(position);
	values[STREAM_LOG_ID - 1] = Int64GetDatum(id);
	values[STREAM_LOG_SPILLED - 1] = Int32GetDatum(spilled);
	values[STREAM_LOG_RECORDS - 1] = PointerGetDatum(records);
	stream_insert(r->log, r->log_key, r->log_key_info, values, isnull);
}

void
stream_rec_insert(StreamRels *r, int32 shard, int64 id, int32 n, Jsonb *record)
{
	Datum		values[STREAM_REC_NCOLUMNS];
	bool		isnull[STREAM_REC_NCOLUMNS] = {false};

	values[STREAM_REC_SHARD - 1] = Int32GetDatum(shard);
	values[STREAM_REC_ID - 1] = Int64GetDatum(id);
	values[STREAM_REC_N - 1] = Int32GetDatum(n);
	values[STREAM_REC_RECORD - 1] = JsonbPGetDatum(record);
	stream_insert(r->rec, r->rec_key, r->rec_key_info, values, isnull);
}

/* stream_log_scan starts a scan of the shard's log entries from position on */
IndexScanDesc
stream_log_scan(StreamRels *r, Snapshot snapshot, int32 shard, int64 position)
{
	ScanKeyData keys[2];
	IndexScanDesc scan;

	ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(shard));
	ScanKeyInit(&keys[1], 2, BTGreaterEqualStrategyNumber, F_INT8GE, Int64GetDatum(position));
	scan = index_beginscan(r->log, r->log_key, snapshot, 2, 0);
	index_rescan(scan, keys, 2, NULL, 0);
	return scan;
}

/* stream_rec_scan starts a scan of a transaction's records in a shard from record n on */
IndexScanDesc
stream_rec_scan(StreamRels *r, Snapshot snapshot, int32 shard, int64 id, int32 n)
{
	ScanKeyData keys[3];
	IndexScanDesc scan;

	ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(shard));
	ScanKeyInit(&keys[1], 2, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(id));
	ScanKeyInit(&keys[2], 3, BTGreaterEqualStrategyNumber, F_INT4GE, Int32GetDatum(n));
	scan = index_beginscan(r->rec, r->rec_key, snapshot, 3, 0);
	index_rescan(scan, keys, 3, NULL, 0);
	return scan;
}

/* stream_datum: a column of a stream row, which is never NULL */
Datum
stream_datum(TupleTableSlot *slot, AttrNumber attno)
{
	bool		isnull;
	Datum		d = slot_getattr(slot, attno, &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a row of an ots stream has a NULL column")));
	return d;
}

/* stream_cutoff: the position before which t's records have expired */
int64
stream_cutoff(const OtsTable *t)
{
	return stream_now() - (int64) t->stream_expiration_hours * 3600 * USECS_PER_SEC;
}

/* how far before "near" stream_log_last looks, in turn, µs */
static const int64 stream_last_windows[] = {10000, 1000000};

/* stream_log_last_from: the last position of the shard's index at or after from */
static int64
stream_log_last_from(StreamRels *r, int32 shard, int64 from)
{
	ScanKeyData keys[2];
	IndexScanDesc scan;
	int64		last = 0;

	ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(shard));
	ScanKeyInit(&keys[1], 2, BTGreaterEqualStrategyNumber, F_INT8GE, Int64GetDatum(from));
	scan = index_beginscan(r->log, r->log_key, SnapshotAny, 2, 0);
	scan->xs_want_itup = true;
	index_rescan(scan, keys, 2, NULL, 0);
	if (index_getnext_tid(scan, BackwardScanDirection) != NULL)
	{
		bool		isnull;
		Datum		d = index_getattr(scan->xs_itup, 2, scan->xs_itupdesc, &isnull);

		if (!isnull)
			last = DatumGetInt64(d);
	}
	index_endscan(scan);
	return last;
}

/* a position this backend knows was given in a shard: where stream_log_last looks first */
typedef struct StreamLastKey
{
	Oid			log_oid;
	int32		shard;
} StreamLastKey;

typedef struct StreamLastSeen
{
	StreamLastKey key;
	int64		position;
} StreamLastSeen;

/* positions only grow, so an entry is never wrong, only old: nothing makes it stale */
static OtsCache last_seen = {
	.name = "ots stream positions seen",
	.keysize = sizeof(StreamLastKey),
	.entrysize = sizeof(StreamLastSeen),
};

/*
 * stream_log_last reads the last entry of the shard in the log's index,
 * without looking at the heap: whatever its state, a position given
 * before is never given again, and under the shard lock every position
 * given is in the index.  A btree scan reads all the entries of a leaf page
 * that match, so it looks from the last position this backend found in the
 * shard first, then at the entries since shortly before near (10 ms, then
 * 1 s), and at the whole shard only when those find none: a busy shard
 * costs the entries since this backend's last look, an idle one a page.
 * Whichever look finds a position, it is the last: the last is at least
 * where that look began.
 */
int64
stream_log_last(StreamRels *r, int32 shard, int64 near)
{
	StreamLastKey key = {RelationGetRelid(r->log), shard};
	StreamLastSeen *seen;
	bool		found;
	int64		last = 0;

	seen = cache_lookup(&last_seen, &key, &found);
	if (!found)
		seen->position = 0;
	if (seen->position > 0)
		last = stream_log_last_from(r, shard, seen->position);
	for (int w = 0; last == 0 && near > 0 && w < lengthof(stream_last_windows); w++)
		last = stream_log_last_from(r, shard, near - stream_last_windows[w]);
	if (last == 0)
		last = stream_log_last_from(r, shard, PG_INT64_MIN);
	seen->position = last;
	return last;
}

static void
stream_lock_tag(LOCKTAG *tag, const OtsTable *t, int32 shard)
{
	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, t->stream_log_oid, (uint32) shard, STREAM_LOCK_FIELD4);
}

void
stream_shard_lock(const OtsTable *t, int32 shard, LOCKMODE mode)
{
	LOCKTAG		tag;

	stream_lock_tag(&tag, t, shard);
	(void) LockAcquire(&tag, mode, false, false);
}

void
stream_shard_unlock(const OtsTable *t, int32 shard, LOCKMODE mode)
{
	LOCKTAG		tag;

	stream_lock_tag(&tag, t, shard);
	LockRelease(&tag, mode, false);
}

int64
stream_now(void)
{
	return (int64) GetCurrentTimestamp() +
		((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * USECS_PER_SEC);
}

int32
stream_shard_of_leaf(const OtsTable *t, Oid leaf)
{
	int			shard = routing_leaf_index(t, leaf);

	if (shard < 0)
		catalog_report_damaged(t, "a row was written to a partition its storage table does not route to");
	return shard;
}
