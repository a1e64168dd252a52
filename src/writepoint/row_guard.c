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
 * partition key, key values within Tablestore's length.  The table AM's
 * write callbacks (tableam.c) call it, as does the write point for rows
 * that join a table below it (storage_write_rows_join), and ots.verify for
 * stored rows.
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
	const OtsTable *table;
} GuardContext;

static void
row_guard_context(void *arg)
{
	const GuardContext *gc = arg;

	if (gc->table != NULL)
		errcontext("row written to partition %s of ots table %s",
				   quote_identifier(RelationGetRelationName(gc->leaf)),
				   quote_qualified_identifier(gc->table->schema_name, gc->table->table_name));
	else
		errcontext("row written to partition %s of ots storage",
				   quote_identifier(RelationGetRelationName(gc->leaf)));
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
 * row_guard refuses a new row that ots's row code did not build
 * unless it is exactly what ots would have stored for it: its cells valid
 * and within the size the text form carries, "$oldest_ts" its oldest cell
 * (the row marker without cells), and on a registered table "$hash" and
 * key lengths as create_table's rules make them.  It reads nothing but the
 * new row.
 */
void
row_guard(Relation rel, const StorageLeaf *leaf, TupleTableSlot *slot)
{
	GuardContext gc = {rel, leaf->table};
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
	d = slot_getattr(slot, leaf->oldest_attno, &isnull);
	oldest = cells_oldest_ts(cells);
	if (isnull || DatumGetInt64(d) != oldest)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg(STORAGE_OLDEST_TS_SQL " of an ots row is not the timestamp of its oldest cell"),
				 errdetail("The row's " STORAGE_OLDEST_TS_SQL " is %s; its oldest cell (or, without cells, its row marker) is at %lld.",
						   isnull ? "null" : psprintf("%lld", (long long) DatumGetInt64(d)),
						   (long long) oldest)));
	if (leaf->table != NULL)
		row_guard_key(leaf, slot);
	if ((Pointer) cells != DatumGetPointer(stored_cells))
		pfree(cells);

	error_context_stack = errcb.previous;
}
