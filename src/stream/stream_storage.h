/*-------------------------------------------------------------------------
 * src/stream/stream_storage.h
 *	  How a table's stream is stored and ordered: the one owner of its
 *	  layout, its positions and its shard lock.
 *
 * A stream is two plain tables beside the table's storage, made by
 * ots.stream_create_storage (src/sql/45_stream.sql):
 *
 *	 "<table>$log"  (shard, position, id, spilled, records): one entry per
 *					transaction and shard it wrote, inserted as the
 *					transaction commits, holding its records (jsonb[], in
 *					stream_record.c's format);
 *	 "<table>$rec"  (shard, id, n, record): the records of a large
 *					transaction, written while it runs, as its records would
 *					fill too much memory (its entry's first "spilled" record
 *					numbers are there, the rest in the entry).
 *
 * A shard is one partition of the storage, so it holds a fixed set of
 * partition keys.  id names a transaction's entry of a shard and its
 * spilled records: random (64 bits), so no two entries share one, even
 * after a restore into another cluster, where transaction ids start
 * again.  position
 * is the commit's place in its shard: Unix microseconds, strictly
 * increasing in each shard, given under the shard's lock (an exclusive
 * lock held for that insert only), so positions follow the order in which
 * transactions reach their commit, and an entry is in the index before a
 * later position is given.  A reader takes the lock in share mode only to
 * read the highest position given so far; everything up to it is then in
 * the index, committed, in progress (the reader stops there) or aborted
 * (skipped).  Writers of different rows never wait for each other but for
 * that insert.  A log entry with id 0 is a trim marker: ots.purge removed
 * every entry of the shard up to its position.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_STREAM_STORAGE_H
#define OTS_STREAM_STORAGE_H

#include "postgres.h"

#include "access/genam.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "storage/lockdefs.h"
#include "utils/array.h"
#include "utils/jsonb.h"
#include "utils/rel.h"
#include "utils/snapshot.h"

#include "meta/catalog.h"
#include "meta/storage.h"

/* columns of the log */
#define STREAM_LOG_SHARD	1
#define STREAM_LOG_POSITION 2
#define STREAM_LOG_ID		3
#define STREAM_LOG_SPILLED	4
#define STREAM_LOG_RECORDS	5
#define STREAM_LOG_NCOLUMNS 5
/* columns of the records */
#define STREAM_REC_SHARD	1
#define STREAM_REC_ID		2
#define STREAM_REC_N		3
#define STREAM_REC_RECORD	4
#define STREAM_REC_NCOLUMNS 4

#define STREAM_MAX_COLUMNS	5
#define STREAM_TRIM_MARKER	0	/* id of a trim marker */

/* what a stream relation is made of, for the catalog's checks */
typedef struct StreamRelation
{
	const char *suffix;
	const char *what;			/* "log", "records" */
	int			ncolumns;
	int			nkeys;			/* its primary key: the first nkeys columns */
	struct
	{
		const char *name;
		Oid			type;
	}			columns[STREAM_MAX_COLUMNS];
} StreamRelation;

extern const StreamRelation stream_log_relation;
extern const StreamRelation stream_rec_relation;

/* a stream's relations, open */
typedef struct StreamRels
{
	Relation	log;
	Relation	log_key;
	IndexInfo  *log_key_info;
	Relation	rec;
	Relation	rec_key;
	IndexInfo  *rec_key_info;
} StreamRels;

/*
 * stream_open opens t's stream relations with lockmode, checked to be as
 * ots made them (no other index: ots writes them directly);
 * stream_close closes them, keeping the locks.
 */
extern void stream_open(const OtsTable *t, LOCKMODE lockmode, StreamRels *r);
extern void stream_close(StreamRels *r);

/*
 * stream_log_insert adds an entry: its first spilled record numbers are in
 * the records relation, the others in records (stream_log_records makes
 * the array of n jsonb);
 * stream_rec_insert adds a spilled record.  stream_open_log opens the log alone, stream_open_rec the
 * records alone (what a commit and a spill write); stream_close closes
 * whatever is open.
 */
extern ArrayType *stream_log_records(Datum *records, int n);
extern void stream_log_insert(StreamRels *r, int32 shard, int64 position, int64 id,
							  int32 spilled, ArrayType *records);
extern void stream_rec_insert(StreamRels *r, int32 shard, int64 id, int32 n, Jsonb *record);
extern void stream_open_log(const OtsTable *t, LOCKMODE lockmode, StreamRels *r);
extern void stream_open_rec(const OtsTable *t, LOCKMODE lockmode, StreamRels *r);

/*
 * stream_log_scan and stream_rec_scan start index scans of the shard's log
 * entries from a position on, and of a transaction's spilled records from
 * record n on; stream_datum reads a column of their rows (never NULL)
 */
extern IndexScanDesc stream_log_scan(StreamRels *r, Snapshot snapshot, int32 shard,
									 int64 position);
extern IndexScanDesc stream_rec_scan(StreamRels *r, Snapshot snapshot, int32 shard, int64 id,
									 int32 n);
extern Datum stream_datum(TupleTableSlot *slot, AttrNumber attno);

/*
 * stream_log_last: the highest position in the shard's log index (dead or
 * not), 0 when none.  A writer passes the position it would give (now):
 * the entries just before it are found without reading older ones.
 */
extern int64 stream_log_last(StreamRels *r, int32 shard, int64 near);

/* the shard lock: writers take it exclusively to give a position, readers shared to read the last */
extern void stream_shard_lock(const OtsTable *t, int32 shard, LOCKMODE mode);
extern void stream_shard_unlock(const OtsTable *t, int32 shard, LOCKMODE mode);

/* stream_now: the current time as a position (Unix microseconds) */
extern int64 stream_now(void);

/* stream_cutoff: the position before which t's records have expired */
extern int64 stream_cutoff(const OtsTable *t);

/* stream_shard_of_leaf: the shard of a leaf of t's storage */
extern int32 stream_shard_of_leaf(const OtsTable *t, Oid leaf);

#endif							/* OTS_STREAM_STORAGE_H */
