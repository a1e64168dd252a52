/*-------------------------------------------------------------------------
 * src/writepoint/storage_write.h
 *	  The one write point of ots storage: every change of a stored row,
 *	  whoever makes it, reaches storage_write from the ots table access
 *	  method's write callbacks (tableam.c), with the row's old and new cells,
 *	  in the writing transaction.  Rows that ots itself did not build are
 *	  checked first (row_guard.c), so nothing reaches storage that ots
 *	  cannot read back or dump.
 *
 * ots's own row code tells the write point what it already knows before it
 * calls the table AM (the announcement, store/announce.h): the table, the
 * old cells it read, and that it built the new cells itself, so nothing is
 * decoded or checked twice.  A change from anywhere else (plain SQL on the
 * storage, COPY, logical replication apply, pg_restore) gets the same
 * treatment with what the write point derives itself.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_STORAGE_WRITE_H
#define OTS_STORAGE_WRITE_H

#include "postgres.h"

#include "executor/tuptable.h"
#include "utils/rel.h"

#include "meta/catalog.h"
#include "format/codec.h"
#include "stream/stream.h"

/* the table AM callback a change came through; the numbering is shown by ots.write_point_counts */
typedef enum StorageWriteCallback
{
	STORAGE_CB_INSERT,			/* tuple_insert */
	STORAGE_CB_SPECULATIVE,		/* tuple_complete_speculative, succeeded */
	STORAGE_CB_MULTI_INSERT,	/* multi_insert */
	STORAGE_CB_UPDATE,			/* tuple_update */
	STORAGE_CB_DELETE,			/* tuple_delete */
	STORAGE_CB_TRUNCATE,		/* relation_set_new_filenode of an existing leaf */
	STORAGE_CB_ATTACH,			/* rows of a table ATTACH PARTITION makes a leaf */
	STORAGE_CB_DETACH,			/* rows of a leaf DETACH PARTITION or DROP takes away */
	STORAGE_CB_COUNT
} StorageWriteCallback;

/* who made a change: ots's row code (which built the cells), or anything else */
typedef enum StorageWriteOrigin
{
	STORAGE_ORIGIN_OTS,
	STORAGE_ORIGIN_SQL,
	STORAGE_ORIGIN_COUNT
} StorageWriteOrigin;

/*
 * Is a change a new change of a table's rows, or a copy of one made and
 * recorded elsewhere?  storage_write_change_kind (storage_write.c), the
 * one place that decides, says what each kind skips and why.
 */
typedef enum StorageChangeKind
{
	STORAGE_CHANGE_NEW,			/* indexes kept, a stream record */
	STORAGE_CHANGE_APPLIED,		/* a logical replication worker's: no stream record */
	STORAGE_CHANGE_REPLICA,		/* session_replication_role = replica: no stream record */
	STORAGE_CHANGE_RESTORED,	/* a row a dump's script loads: neither */
	STORAGE_CHANGE_PURGED		/* purge's removal of what no read sees: no stream record */
} StorageChangeKind;

/*
 * One change of one or more rows of one leaf, as the write point sees it.
 * old_cells[i] / new_cells[i] are row i's cells before and after (NULL
 * where there are none: an insert has no old row, a delete no new one),
 * possibly packed or toasted: detoast before reading.  They are valid only
 * during the call (old cells of a change ots did not make point into a
 * pinned shared buffer): copy what must outlive it.
 */
typedef struct StorageWrite
{
	Relation	leaf;			/* the leaf, or the chunk relation (chunk) */
	bool		chunk;			/* a change of the table's chunk relation */
	Oid			storage_oid;	/* the partitioned storage table, s."t$data" */
	const OtsTable *table;		/* NULL: storage not registered (yet) */
	StorageWriteCallback callback;
	StorageWriteOrigin origin;
	int			nrows;
	Datum	   *old_cells;
	Datum	   *new_cells;
	/* the rows themselves, for their keys (NULL where there is none) */
	TupleTableSlot **old_rows;
	TupleTableSlot **new_rows;
	/* what ots's row code said its single-row change is (stream.h), or NULL */
	const StreamChange *change;
} StorageWrite;

/*
 * storage_write_needs_rows: does a change of t need the rows' keys at the
 * write point (it has secondary or search indexes or a stream), so the
 * table AM reads a replaced version's key too?
 */
static inline bool
storage_write_needs_rows(const OtsTable *t)
{
	return t != NULL && (t->nindexes > 0 || t->nsearch > 0 || t->stream_enabled);
}

/* storage_write_row_cells: row i's old and new cells, detoasted (NULL where the change has none) */
static inline void
storage_write_row_cells(const StorageWrite *w, int i, struct varlena **old_cells,
						struct varlena **new_cells)
{
	*old_cells = w->old_cells[i] != (Datum) 0 ? PG_DETOAST_DATUM_PACKED(w->old_cells[i]) : NULL;
	*new_cells = w->new_cells[i] != (Datum) 0 ? PG_DETOAST_DATUM_PACKED(w->new_cells[i]) : NULL;
}

/* storage_write is the one write function; see storage_write.c */
extern void storage_write(const StorageWrite *w);

/*
 * The table AM's side: storage_write_leaf finds what the write point needs
 * to know of a relation (false: neither a leaf of ots storage nor a
 * table's chunk relation, e.g. the transient copy of an ALTER TABLE
 * rewrite, which is no change of rows); row_guard (row_guard.h) refuses
 * malformed new rows before they are stored.
 */
typedef struct StorageLeaf
{
	Oid			storage_oid;
	bool		chunk;			/* the relation is the chunk relation of storage_oid's table */
	const OtsTable *table;		/* NULL: storage not registered (yet) */
	StorageWriteOrigin origin;
	Datum		old_cells;		/* what ots's row code read, or 0 */
	Datum		new_cells;		/* a split row's cells, which its head does not hold, or 0 */
	const StreamChange *change; /* what ots's row code said the change is, or NULL */
	AttrNumber	cells_attno;
	AttrNumber	oldest_attno;
	AttrNumber	column_attno;	/* a chunk relation's "$column" and "$ts" */
	AttrNumber	ts_attno;
	AttrNumber	key_attnos[OTS_MAX_KEY_COLUMNS + 1];
	int			nkeys;			/* 0 unless table is set */
} StorageLeaf;

extern bool storage_write_leaf(Relation rel, TupleTableSlot *slot, StorageLeaf *leaf);

/*
 * Rows that join or leave t's storage below the write point (storage_write.c):
 * storage_write_check_rows guards those of a relation becoming a leaf (SET
 * ACCESS METHOD ots); storage_write_rows_join guards those of a table ATTACH
 * makes a leaf and hands them to the write point as joining, and
 * storage_write_rows_leave hands those of a leaf DETACH or DROP takes away
 * to it as leaving, so indexes are kept (and a stream refuses them).
 */
extern void storage_write_check_rows(Oid relid, const OtsTable *t);
extern void storage_write_rows_join(Oid relid, const OtsTable *t);
extern void storage_write_rows_leave(Oid relid, const OtsTable *t);

#endif							/* OTS_STORAGE_WRITE_H */
