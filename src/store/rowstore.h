/*-------------------------------------------------------------------------
 * src/store/rowstore.h
 *	  Reads and writes stored rows by primary key: one row of a leaf
 *	  partition, or many rows of a table at once (batches).
 *
 * This is the only module that touches rows by key, so the access path
 * (direct index reads, speculative inserts, compare-and-swap updates and
 * deletes of the version read, by TID) can change without touching the row
 * API.  Callers check privileges on the storage table first, and that no
 * row-level security policy applies to them there
 * (rowstore_check_privileges); the leaf is then reached without
 * further checks, as the executor reaches the partitions of a table it has
 * checked.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ROWSTORE_H
#define OTS_ROWSTORE_H

#include "postgres.h"
#include "utils/acl.h"

#include "store/routing.h"

/* rowstore_check_privileges raises insufficient_privilege unless every privilege in mode is granted and no RLS policy applies */
extern void rowstore_check_privileges(const OtsTable *t, AclMode mode);

/* rowstore_may_read: could role read every row of t as the row functions read them (same rules)? */
extern bool rowstore_may_read(const OtsTable *t, Oid role);

/* rowstore_check_writable refuses writes in read-only transactions and on standbys */
extern void rowstore_check_writable(const char *operation);

/*
 * rowstore_fetch returns the row's cells (palloc'd in the caller's
 * context, 4-byte header) or NULL.  latest reads the newest version a new
 * statement would see (in READ COMMITTED: committed until now) instead of
 * the calling statement's snapshot, and remembers it in the key for
 * rowstore_update/delete.
 */
extern struct varlena *rowstore_fetch(RowKey *key, bool latest);

/*
 * rowstore_fetch_row is rowstore_fetch for a caller that reads split rows
 * (store/rowsplit.h): a split row's cells that needs asks for, as one value
 * with the row's marker, and key->split for a write of them
 */
struct RowNeeds;
extern struct varlena *rowstore_fetch_row(RowKey *key, bool latest, const struct RowNeeds *needs);

/* rowstore_fetch_self: the newest version by SnapshotSelf, without a new command (rowstore.c) */
extern struct varlena *rowstore_fetch_self(RowKey *key);

/* rowstore_fetched_own: was the row version rowstore_fetch* read written by this transaction? */
extern bool rowstore_fetched_own(const RowKey *key);

/* rowstore_open_for_write: a leaf to write, its storage table locked first (rowstore.c) */
extern Relation rowstore_open_for_write(const OtsTable *t, Oid leaf_oid);

/*
 * rowstore_insert adds a row; false (and nothing written) when the key
 * exists, including when a concurrent insert of it commits first.
 * known_missing tells that the caller just found no row with this key.
 */
extern bool rowstore_insert(const RowKey *key, struct varlena *cells, int64 oldest_ts,
							bool known_missing);

/* rowstore_insert_plain adds a row no one else can be inserting (rowstore.c) */
extern void rowstore_insert_plain(const RowKey *key, struct varlena *cells, int64 oldest_ts);

/*
 * RowstoreReplacing: the cells a put writes in place of its row's stored
 * cells old, with their "$oldest_ts"; NULL: the cells it was given.  row is
 * the row's number among the caller's (0 for a single row).  *keep: write
 * nothing over old (the put failed for that row, and the caller says so).
 */
typedef struct varlena *(*RowstoreReplacing) (void *arg, int row, const struct varlena *old,
											  int64 *oldest_ts, bool *keep);

/*
 * rowstore_put writes a row as an unconditional PutRow: over the newest
 * version (replacing says with what), else as new; false when a concurrent
 * writer got there first
 */
extern bool rowstore_put(RowKey *key, struct varlena *cells, int64 oldest_ts,
						 RowstoreReplacing replacing, void *arg, int row);

/*
 * rowstore_update replaces the cells of the row version rowstore_fetch
 * read, and rowstore_delete removes it, only if no concurrent writer
 * replaced or deleted that version first (waiting for one in progress):
 * false then, and the caller reads again and decides again.  Under
 * snapshot isolation that case is a serialization failure instead.
 */
extern bool rowstore_update(const RowKey *key, struct varlena *cells, int64 oldest_ts);
extern bool rowstore_delete(const RowKey *key);

/*
 * rowstore_cas_round begins round `round` (from 0) of a caller's loop of
 * read, decide and write: OTSRowOperationConflict when too many rounds
 * were lost to concurrent writers (every such loop goes through it)
 */
extern void rowstore_cas_round(int round);

/*
 * rowstore_put_many writes (inserts or replaces, as rowstore_put does, with
 * replacing) many rows of a table, and rowstore_delete_many deletes many
 * (by key, as rowstore_delete does): the bulk path of batch_write_row and
 * of index builds (rowstore_bulk.c).
 * keys[k][i] is stored key column k of row i (the hash prefix first on
 * prefixed tables); the keys must be distinct.  The rows are written in
 * stored key order, whatever their order here, so that concurrent batches
 * lock shared keys in the same order.
 */
extern void rowstore_put_many(const OtsTable *t, int nrows, Datum **keys, Datum *cells,
							  Datum *oldest_ts, RowstoreReplacing replacing, void *arg);
extern void rowstore_delete_many(const OtsTable *t, int nrows, Datum **keys);

/*
 * rowstore_insert_new_many inserts many rows that should all be new, as
 * rowstore_put_many first tries them; false, having inserted none, when
 * one of them exists (live or not)
 */
extern bool rowstore_insert_new_many(const OtsTable *t, int nrows, Datum **keys, Datum *cells,
									 Datum *oldest_ts);

#endif							/* OTS_ROWSTORE_H */
