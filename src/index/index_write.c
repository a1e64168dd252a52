/*-------------------------------------------------------------------------
 * src/index/index_write.c
 *	  Secondary-index maintenance: the entry a base row has in an index, and
 *	  what a change of the row does to it.
 *
 * An index's entry for a base row is keyed by the index's key columns
 * (base key columns, or defined columns read from the newest cell of the
 * row's column of that name), then the base key's other columns, and
 * holds the newest cell of each covered defined column, timestamps kept.
 * A row lacking an index key column, or holding a cell of another type
 * there, has no entry (Tablestore's sparse index).
 *
 * Visibility follows the base row: the entry's row marker is the earliest
 * moment the row could stop qualifying, the older of the row's newest
 * timestamp (when its last cell and marker expire, the row is gone) and
 * its index key cells' (when one expires, the row lacks it), and an index
 * table's rows exist by their marker alone (format/visibility.c), so with the
 * base table's TTL the entry is visible exactly while the row is and has
 * those columns.
 *
 * Who may change an entry: only the writer of its base row, which holds
 * that row's lock (the entry's key holds the whole base key), so entries
 * are read with SnapshotSelf (committed, or this transaction's) and no new
 * command; two writers of one row take their turns on the row first.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"

#include "format/cells.h"
#include "format/codec.h"
#include "errors.h"
#include "index/index_write.h"
#include "store/routing.h"
#include "store/rowstore.h"
#include "meta/storage.h"

/* what index_entry does with an indexed cell that cannot be a key */
typedef enum IndexEntryCheck
{
	INDEX_ENTRY_RAISE,			/* a write: the write's own error */
	INDEX_ENTRY_SKIP,			/* the row before a write: no entry */
	INDEX_ENTRY_REFUSE			/* the backfill: refuse the row by name */
} IndexEntryCheck;

/* an index entry of one base row */
typedef struct IndexEntry
{
	PkInput		key;
	struct varlena *cells;
	int64		oldest_ts;
} IndexEntry;

/*
 * index_entry_refused raises the error of a row that cannot have an entry
 * in idx: its value in column col (why) cannot be an index key.
 */
static void
index_entry_refused(const OtsTable *base, const OtsTable *idx, const IndexSourceRow *row,
					const OtsPkColumn *col, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_OTS_PARAMETER_INVALID),
			 errmsg_internal("A row of table '%s' cannot be in index '%s': it %s in column '%s'.",
							 base->table_name, idx->table_name, why, col->name),
			 errdetail("Index key values are %s values of at most %d bytes.",
					   ots_value_type_name(col->type), OTS_MAX_PK_VALUE_LEN),
			 errhint("Write that row's %s again, or delete the cell, then build the index again (CALL ots.build_index).",
					 col->name)));
}

/*
 * index_entry builds idx's entry for row (of base); false when the row has
 * none.  The entry's String/Binary values point into row's cells.  An
 * indexed cell that cannot be a key (of another type, stored before its
 * column was defined; longer than a key may be) is skipped or raises, as
 * check says: a write raises Tablestore's key length error and skips a
 * cell of another type (a new one was refused before), the row before it
 * skips both, the backfill refuses the row by name, so a complete index
 * lacks no row that has the column.
 */
static bool
index_entry(const OtsTable *base, const OtsTable *idx, const IndexSourceRow *row,
			IndexEntry *e, IndexEntryCheck check)
{
	CellsReader r;
	CellsBuilder *b;
	int64		marker;

	cells_reader_init(&r, row->cells);
	/* whatever the TTL now: update_table may set one later */
	marker = cells_row_newest_ts(&r);
	e->key.n = idx->npk;
	for (int k = 0; k < idx->npk; k++)
	{
		const OtsPkColumn *col = &idx->pk[k];
		int			j;
		int64		ts;

		e->key.special[k] = PK_VALUE;
		for (j = 0; j < base->npk; j++)
			if (strcmp(base->pk[j].name, col->name) == 0)
				break;
		if (j < base->npk)
		{
			e->key.v[k] = row->pk[j];
			if (e->key.v[k].type != col->type)
				catalog_report_damaged(idx, "a key column has another type than its table's");
			continue;
		}
		if (!cells_newest(&r, col->name, col->namelen, &ts, &e->key.v[k]))
			return false;
		if (e->key.v[k].type != col->type)
		{
			/* only a cell stored before its column was defined can be so */
			if (check != INDEX_ENTRY_REFUSE)
				return false;
			index_entry_refused(base, idx, row, col,
								psprintf("has a value of type %s", ots_value_type_name(e->key.v[k].type)));
		}
		if (col->type != OTS_VT_INTEGER && e->key.v[k].u.s.len > OTS_MAX_PK_VALUE_LEN)
		{
			if (check == INDEX_ENTRY_SKIP)
				return false;
			if (check == INDEX_ENTRY_RAISE)
				codec_check_pk_length(col, e->key.v[k].u.s.len);
			index_entry_refused(base, idx, row, col,
								psprintf("has a value of %u bytes", e->key.v[k].u.s.len));
		}
		marker = Min(marker, ts);
	}
	b = cells_builder_create(Max(marker, 0));
	for (int c = 0; c < idx->ndefined; c++)
	{
		const OtsDefinedColumn *d = &idx->defined[c];
		int64		ts;
		OtsValue	v;

		/* a cell stored before its column was defined, of another type, is not covered */
		if (cells_newest(&r, d->name, d->namelen, &ts, &v) && v.type == d->type)
			cells_builder_add(b, d->name, d->namelen, ts, &v);
	}
	e->cells = cells_builder_finish(b, 1);
	e->oldest_ts = cells_builder_oldest_ts(b);
	return true;
}

static bool
index_key_equal(const IndexEntry *a, const IndexEntry *b)
{
	for (int k = 0; k < a->key.n; k++)
		if (!ots_value_equal(&a->key.v[k], &b->key.v[k]))
			return false;
	return true;
}

/* index_entry_put writes entry e into idx: a new row, or the one of its key replaced */
static void
index_entry_put(const OtsTable *idx, const IndexEntry *e)
{
	RowKey		key;

	routing_key(idx, &e->key, &key);
	for (int round = 0;; round++)
	{
		rowstore_cas_round(round);
		(void) rowstore_fetch_self(&key);
		if (!key.found)
		{
			rowstore_insert_plain(&key, e->cells, e->oldest_ts);
			return;
		}
		if (rowstore_update(&key, e->cells, e->oldest_ts))
			return;
	}
}

/* index_entry_delete removes the entry of key k from idx, if there is one */
static void
index_entry_delete(const OtsTable *idx, const PkInput *k)
{
	RowKey		key;

	routing_key(idx, k, &key);
	for (int round = 0;; round++)
	{
		rowstore_cas_round(round);
		(void) rowstore_fetch_self(&key);
		if (!key.found || rowstore_delete(&key))
			return;
	}
}

void
index_write_change(const OtsTable *base, const IndexSourceRow *old_row,
				   const IndexSourceRow *new_row)
{
	for (int i = 0; i < base->nindexes; i++)
	{
		const OtsTable *idx = catalog_lookup_by_data_oid(base->index_data_oids[i]);
		IndexEntry	before;
		IndexEntry	after;
		bool		has_before;
		bool		has_after;

		if (idx == NULL || !idx->is_index)
			catalog_report_damaged(base, "one of its indexes is not registered as an index");
		has_before = old_row != NULL && index_entry(base, idx, old_row, &before, INDEX_ENTRY_SKIP);
		has_after = new_row != NULL && index_entry(base, idx, new_row, &after, INDEX_ENTRY_RAISE);
		if (has_before && has_after && index_key_equal(&before, &after))
		{
			/*
			 * unchanged: nothing to do, but in an index made without the
			 * rows before it, which may lack this row's entry still
			 */
			if (VARSIZE(before.cells) == VARSIZE(after.cells) &&
				memcmp(before.cells, after.cells, VARSIZE(after.cells)) == 0 &&
				!idx->index_partial)
				continue;
			index_entry_put(idx, &after);
			continue;
		}
		if (has_before)
			index_entry_delete(idx, &before.key);
		if (has_after)
			index_entry_put(idx, &after);
	}
}

bool
index_entry_of(const OtsTable *base, const OtsTable *idx, const IndexSourceRow *row, PkInput *key,
			   struct varlena **cells)
{
	IndexEntry	e;

	/* as the write point sees the row before a write: a cell that cannot be a key gives no entry */
	if (!index_entry(base, idx, row, &e, INDEX_ENTRY_SKIP))
		return false;
	*key = e.key;
	*cells = e.cells;
	return true;
}

bool
index_entry_stored(const OtsTable *base, const OtsTable *idx, const IndexSourceRow *row,
				   Datum *key, struct varlena **cells, int64 *oldest_ts, MemoryContext workcxt)
{
	MemoryContext callercxt = MemoryContextSwitchTo(workcxt);
	IndexEntry	e;
	Oid			types[OTS_MAX_KEY_COLUMNS + 1];
	Datum		work_key[OTS_MAX_KEY_COLUMNS + 1];
	int			nkeys;

	if (!index_entry(base, idx, row, &e, INDEX_ENTRY_REFUSE))
	{
		MemoryContextSwitchTo(callercxt);
		return false;
	}
	nkeys = storage_key(idx, &e.key, idx->npk, work_key, types);
	MemoryContextSwitchTo(callercxt);
	for (int k = 0; k < nkeys; k++)
		key[k] = types[k] == INT8OID ? work_key[k] : PointerGetDatum(PG_DETOAST_DATUM_COPY(work_key[k]));
	*cells = palloc(VARSIZE(e.cells));
	memcpy(*cells, e.cells, VARSIZE(e.cells));
	*oldest_ts = e.oldest_ts;
	return true;
}
