/*-------------------------------------------------------------------------
 * src/writepoint/row_guard.c
 *	  The guard on rows ots did not build: row_guard, which every new row
 *	  from anywhere but ots's row code passes before it is stored.
 *
 * ots's row code announces each of its own row writes just before it
 * calls the table AM (store/announce.h): the cells are its own work,
 * already checked.  Any other new row, those of the statements ots runs on
 * storage (the bulk upsert, purge) included, is checked here before it is
 * stored: cells in the ots.cells format, within the row size the text form
 * carries, "$oldest_ts" its oldest cell, "$hash" the hash prefix of its
 * partition key, key values within Tablestore's length.  A chunk of a
 * table's chunk relation (docs/design.md, "Wide rows: heads and chunks")
 * is checked the same way, and is also what the row code writes of a
 * split row: cells of format version 1, at least one, "$column" and "$ts"
 * its first cell in chunk order (column name ascending, then timestamp
 * ascending), its row marker its newest cell.  The table AM's write
 * callbacks (tableam.c) call it, as does the write point for rows that
 * join a table below it (storage_write_rows_join), and ots.verify for
 * stored rows and chunks.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"

#include "errors.h"
#include "format/cells.h"
#include "format/codec.h"
#include "meta/storage.h"
#include "writepoint/row_guard.h"

/* the context of a guard's error: which row of which table */
typedef struct GuardContext
{
	Relation	leaf;
	const StorageLeaf *place;
} GuardContext;

static void
row_guard_context(void *arg)
{
	const GuardContext *gc = arg;
	const OtsTable *t = gc->place->table;
	const char *rel = quote_identifier(RelationGetRelationName(gc->leaf));

	if (gc->place->chunk && t != NULL)
		errcontext("chunk written to the chunk relation %s of ots table %s", rel,
				   quote_qualified_identifier(t->schema_name, t->table_name));
	else if (gc->place->chunk)
		errcontext("chunk written to the chunk relation %s of ots storage", rel);
	else if (t != NULL)
		errcontext("row written to partition %s of ots table %s", rel,
				   quote_qualified_identifier(t->schema_name, t->table_name));
	else
		errcontext("row written to partition %s of ots storage", rel);
}

/*
 * row_guard_chunk checks what makes a chunk one (cells valid already):
 * format version 1, at least one cell, "$column" and "$ts" its first cell
 * in chunk order (the smallest column name, bytewise, and that column's
 * oldest timestamp: cells are stored newest first), and its row marker
 * the newest timestamp of its cells.
 */
static void
row_guard_chunk(const StorageLeaf *leaf, TupleTableSlot *slot, const struct varlena *cells)
{
	CellsReader r;
	CellsColumn first;
	int64		first_ts = 0;
	int64		newest = PG_INT64_MIN;
	int64		ts;
	OtsValue	v;
	bool		null_column;
	bool		null_ts;
	Datum		column = slot_getattr(slot, leaf->column_attno, &null_column);
	Datum		stored_ts = slot_getattr(slot, leaf->ts_attno, &null_ts);
	text	   *name;

	if (VARSIZE_ANY_EXHDR(cells) < 1 || *(const uint8 *) VARDATA_ANY(cells) != CELLS_FORMAT_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("the cells of an ots chunk are not in format version %d", CELLS_FORMAT_VERSION),
				 errdetail("A chunk holds cells of a split row as an inline row holds its own.")));
	cells_reader_init(&r, cells);
	if (r.ncols == 0)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("an ots chunk has no cells"),
				 errdetail("Every chunk holds at least one cell of its row.")));
	for (uint32 i = 0; i < r.ncols; i++)
	{
		CellsColumn col;

		cells_column_at(&r, i, &col);
		/* each column's first cell is its newest */
		if (cells_column_next(&col, &ts, &v) && ts > newest)
			newest = ts;
	}
	cells_column_at(&r, 0, &first);
	while (cells_column_next(&first, &ts, &v))
		first_ts = ts;
	name = null_column ? NULL : DatumGetTextPP(column);
	if (null_column || null_ts ||
		cells_name_cmp(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name), first.name, first.namelen) != 0 ||
		DatumGetInt64(stored_ts) != first_ts)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg(STORAGE_CHUNK_COLUMN_SQL " and " STORAGE_CHUNK_TS_SQL " of an ots chunk are not its first cell"),
				 errdetail("The chunk's " STORAGE_CHUNK_COLUMN_SQL " is %s and its " STORAGE_CHUNK_TS_SQL " %s; its first cell (by column name, then oldest first) is column %s at %lld.",
						   null_column ? "null" : quote_literal_cstr(text_to_cstring(name)),
						   null_ts ? "null" : psprintf("%lld", (long long) DatumGetInt64(stored_ts)),
						   quote_literal_cstr(pnstrdup(first.name, first.namelen)), (long long) first_ts)));
	if (r.row_ts != newest)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("the row marker of an ots chunk is not its newest cell"),
				 errdetail("The chunk's cells have row_ts %lld; its newest cell is at %lld.",
						   (long long) r.row_ts, (long long) newest)));
}

/* row_guard_key checks the stored key: "$hash" and key value lengths */
static void
row_guard_key(const StorageLeaf *leaf, TupleTableSlot *slot)
{
	const OtsTable *t = leaf->table;
	int			first = t->hash_prefix_len > 0 ? 1 : 0;
	OtsValue	pk[OTS_MAX_KEY_COLUMNS];
	int			nread = storage_leaf_key(t, leaf->key_attnos, slot, pk);

	for (int i = 0; i < t->npk; i++)
	{
		bool		isnull;

		if (i == nread)
			ereport(ERROR,
					(errcode(ERRCODE_NOT_NULL_VIOLATION),
					 errmsg("primary key column \"%s\" of an ots row is null", t->pk[i].name)));
		if (pk[i].type != OTS_VT_INTEGER)
			codec_check_pk_length(&t->pk[i], pk[i].u.s.len);
		if (i == 0 && first == 1)
		{
			int64		stored = DatumGetInt64(slot_getattr(slot, leaf->key_attnos[0], &isnull));
			int64		hash = storage_hash_prefix(&pk[0], t->hash_prefix_len);

			if (isnull || stored != hash)
				ereport(ERROR,
						(errcode(ERRCODE_CHECK_VIOLATION),
						 errmsg(STORAGE_HASH_SQL " of an ots row is not the hash prefix of its partition key"),
						 errdetail("The row's " STORAGE_HASH_SQL " is %s; the hash prefix of its partition key is %lld (the hex digits %0*llx of ots.hash_prefix).",
								   isnull ? "null" : psprintf("%lld", (long long) stored),
								   (long long) hash, t->hash_prefix_len, (unsigned long long) hash)));
		}
	}
}

/*
 * row_guard_head refuses a split row's head (docs/design.md, "Wide rows:
 * heads and chunks") whose copy of the stored key is not its row's: a read
 * of the head would find another row's chunks
 */
static void
row_guard_head(const StorageLeaf *leaf, TupleTableSlot *slot, const struct varlena *cells)
{
	const OtsTable *t = leaf->table;
	int			first = t->hash_prefix_len > 0 ? 1 : 0;
	OtsValue	pk[OTS_MAX_KEY_COLUMNS];
	CellsHead	h;
	bool		same;

	cells_head_read(cells, &h);
	(void) storage_leaf_key(t, leaf->key_attnos, slot, pk);
	same = h.nkeys == t->npk + first;
	if (same && first == 1)
	{
		bool		isnull;

		same = h.key[0].kind == CELLS_KEY_INTEGER &&
			h.key[0].i == DatumGetInt64(slot_getattr(slot, leaf->key_attnos[0], &isnull));
	}
	for (int i = 0; same && i < t->npk; i++)
	{
		const CellsKeyValue *k = &h.key[first + i];

		if (pk[i].type == OTS_VT_INTEGER)
			same = k->kind == CELLS_KEY_INTEGER && k->i == pk[i].u.i;
		else
			same = k->kind == (pk[i].type == OTS_VT_STRING ? CELLS_KEY_STRING : CELLS_KEY_BINARY) &&
				k->len == pk[i].u.s.len && memcmp(k->data, pk[i].u.s.data, k->len) == 0;
	}
	if (!same)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("the head of a split ots row does not hold the row's key"),
				 errdetail("A split row's " STORAGE_CELLS_SQL " holds a copy of its stored key, by which its chunks are found.")));
}

/*
 * row_guard refuses a new row that ots's row code did not build
 * unless it is exactly what ots would have stored for it: its cells valid
 * and within the size the text form carries, "$oldest_ts" its oldest cell
 * (the row marker without cells), and on a registered table "$hash" and
 * key lengths as create_table's rules make them; a chunk (leaf->chunk)
 * also as row_guard_chunk checks it.  It reads nothing but the new row.
 */
void
row_guard(Relation rel, const StorageLeaf *leaf, TupleTableSlot *slot)
{
	GuardContext gc = {rel, leaf};
	ErrorContextCallback errcb;
	bool		isnull;
	Datum		stored_cells;
	Datum		d;
	struct varlena *cells;
	int64		oldest;

	if (leaf->origin == STORAGE_ORIGIN_OTS)
		return;
	errcb.callback = row_guard_context;
	errcb.arg = &gc;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;

	stored_cells = slot_getattr(slot, leaf->cells_attno, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NOT_NULL_VIOLATION),
				 errmsg(STORAGE_CELLS_SQL " of an ots row is null")));
	cells = PG_DETOAST_DATUM_PACKED(stored_cells);
	cells_validate((const uint8 *) VARDATA_ANY(cells), VARSIZE_ANY_EXHDR(cells));
	cells_io_check_size(cells);
	if (leaf->chunk)
		row_guard_chunk(leaf, slot, cells);
	d = slot_getattr(slot, leaf->oldest_attno, &isnull);
	oldest = cells_oldest_ts(cells);
	if (isnull || DatumGetInt64(d) != oldest)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg(STORAGE_OLDEST_TS_SQL " of an ots %s is not the timestamp of its oldest cell",
						leaf->chunk ? "chunk" : "row"),
				 errdetail("The %s's " STORAGE_OLDEST_TS_SQL " is %s; its oldest cell (or, without cells, its row marker) is at %lld.",
						   leaf->chunk ? "chunk" : "row",
						   isnull ? "null" : psprintf("%lld", (long long) DatumGetInt64(d)),
						   (long long) oldest)));
	if (leaf->table != NULL)
		row_guard_key(leaf, slot);
	if (leaf->table != NULL && !leaf->chunk && cells_is_head(cells))
		row_guard_head(leaf, slot, cells);
	if ((Pointer) cells != DatumGetPointer(stored_cells))
		pfree(cells);

	error_context_stack = errcb.previous;
}
