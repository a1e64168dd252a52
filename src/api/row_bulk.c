/*-------------------------------------------------------------------------
 * src/api/row_bulk.c
 *	  The bulk path of the row API: many plain writes of one table
 *	  (PutRows and DeleteRows that read nothing first and return nothing),
 *	  each validated as its single-row write validates it, then written
 *	  straight into their leaves, one call per leaf instead of one
 *	  statement per row (rowstore_bulk.c).
 *
 * batch_write_row writes a table entry whose rows are all plain this way
 * (ROW_BULK_EACH): a row that fails gets its own OTS error and the others
 * are written.  A COPY into a table's view writes its rows as new ones
 * (row_bulk_put_new, ROW_BULK_NEW): all of them, or, when one of their
 * keys is stored, each through row_write, which decides it.  A table that
 * generates keys, or an index, goes row by row from the start.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "format/visibility.h"
#include "format/codec.h"
#include "errors.h"
#include "ots_limits.h"
#include "api/read_select.h"
#include "api/request.h"
#include "api/row_bulk.h"
#include "api/row_write.h"
#include "store/rowstore.h"
#include "stats.h"
#include "meta/storage.h"

/* one row of a bulk write, validated */
typedef struct RowBulkValid
{
	PkInput		pk;				/* in the row's memory context */
	struct varlena *cells;		/* a PutRow's cells (caller's context); NULL for a DeleteRow */
	int64		oldest_ts;		/* a PutRow's "$oldest_ts", as the cells builder recorded it */
	uint32		pk_size;		/* the key's, for capacity units */
	uint32		write_size;		/* key and cells, for capacity units */
} RowBulkValid;

/* the PutRows of a bulk write, for what they write over stored rows */
typedef struct RowBulkPuts
{
	const OtsTable *t;
	int64		now_ms;			/* the moment their cells were validated and stamped */
	RowBulkRow **rows;			/* rows[i]: put i's row */
	MemoryContext resultctx;	/* where the rows' errors go */
	int			failed;			/* puts that failed over a stored row */
	int64		failed_cu;		/* their capacity units */
} RowBulkPuts;

bool
row_bulk_takes(const OtsTable *t)
{
	return t->auto_increment_col < 0 && !t->is_index;
}

/*
 * row_bulk_caught returns an error caught without a subtransaction (what
 * raised it only parsed and allocated) for the row's result, copied into
 * resultctx (and leaves that context current); any error but an OTS one
 * propagates.
 */
static ErrorData *
row_bulk_caught(MemoryContext resultctx)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(resultctx);
	edata = CopyErrorData();
	FlushErrorState();
	if (ots_error_code_name(edata->sqlerrcode) == NULL)
		ReThrowError(edata);
	return edata;
}

/*
 * row_bulk_put_over: put i's row_write_put_over (RowstoreReplacing).  It
 * only parses and allocates, so its error (no stamp past a marker at the
 * last valid millisecond) is caught without a subtransaction: that row
 * fails, keeping the stored row, and the others apply.
 */
static struct varlena *
row_bulk_put_over(void *arg, int i, const struct varlena *old, int64 *oldest_ts, bool *keep)
{
	RowBulkPuts *puts = arg;
	MemoryContext rowctx = CurrentMemoryContext;
	struct varlena *volatile cells = NULL;

	PG_TRY();
	{
		cells = row_write_put_over(puts->t, puts->rows[i]->attributes,
								   puts->rows[i]->typed_cells, puts->rows[i]->ntyped_cells,
								   puts->now_ms, old, oldest_ts);
	}
	PG_CATCH();
	{
		puts->rows[i]->error = row_bulk_caught(puts->resultctx);
		MemoryContextSwitchTo(rowctx);
		puts->failed++;
		puts->failed_cu += puts->rows[i]->consumed.write;
		*keep = true;
	}
	PG_END_TRY();
	return cells;
}

/*
 * row_bulk_validate parses and validates one row in rowctx as its
 * single-row write does: its key, and a PutRow's cells, encoded for
 * storage in the caller's context; with check_size, a PutRow's 4 MB
 * request limit first, as put_row applies it (a batch applies it to its
 * whole request).
 */
static void
row_bulk_validate(const OtsTable *t, const RowBulkRow *row, int64 now_ms, bool check_size,
				  MemoryContext rowctx, RowBulkValid *out)
{
	MemoryContext callerctx = MemoryContextSwitchTo(rowctx);
	uint32		cells_size = 0;

	if (row->key != NULL)
	{
		codec_check_pk(t, row->key, PK_ALLOW_AUTO_INC);
		out->pk = *row->key;
	}
	else
		codec_parse_pk(t, row->primary_key, PK_ALLOW_AUTO_INC, &out->pk);
	out->pk_size = codec_pk_size(t, &out->pk);
	out->cells = NULL;
	if (row->kind == ROW_WRITE_PUT)
	{
		struct varlena *built;

		if (check_size)
		{
			const char *operation;
			const char *request;

			row_write_names(ROW_WRITE_PUT, &operation, &request);
			request_check_data_size(request,
									row_write_put_size(row->key != NULL ? NULL : row->primary_key,
													   out->pk_size, row->attributes,
													   row->typed_cells, row->ntyped_cells));
		}
		built = row_write_new_row_cells(t, row->attributes, row->typed_cells, row->ntyped_cells,
										now_ms, &out->oldest_ts, &cells_size);
		out->cells = MemoryContextAlloc(callerctx, VARSIZE(built));
		memcpy(out->cells, built, VARSIZE(built));
	}
	out->write_size = out->pk_size + cells_size;
	MemoryContextSwitchTo(callerctx);
}

/*
 * row_bulk_validate_each is row_bulk_validate whose OTS error becomes the
 * row's (false).  Validation only parses and allocates (no locks, buffers
 * or catalog access), so the error is caught without a subtransaction; any
 * other error propagates.
 */
static bool
row_bulk_validate_each(const OtsTable *t, RowBulkRow *row, int64 now_ms, MemoryContext rowctx,
					   RowBulkValid *out)
{
	MemoryContext callerctx = CurrentMemoryContext;
	volatile bool ok = true;

	PG_TRY();
	{
		row_bulk_validate(t, row, now_ms, false, rowctx, out);
	}
	PG_CATCH();
	{
		row->error = row_bulk_caught(callerctx);
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

/*
 * row_bulk_write checks the privileges the rows' writes need, validates
 * each row as its single-row write does (in a memory context of its own,
 * emptied when the row is done), builds the stored keys, and writes the
 * rows in one call for the puts and one for the deletes, as the mode says;
 * the table's statistics count what was written, with its capacity units.
 */
bool
row_bulk_write(const OtsTable *t, RowBulkRow *rows, int n, RowBulkMode mode,
			   const char *operation)
{
	bool		new_rows = mode == ROW_BULK_NEW;
	int			nkeys = storage_nkeys(t);
	int64		now_ms = visibility_now_ms();
	Datum	   *put_keys[OTS_MAX_KEY_COLUMNS + 1];
	Datum	   *del_keys[OTS_MAX_KEY_COLUMNS + 1];
	Datum	   *cells = palloc(sizeof(Datum) * n);
	Datum	   *oldest = palloc(sizeof(Datum) * n);
	int			nputs = 0;
	int			ndels = 0;
	int64		read_cu = 0;
	int64		write_cu = 0;
	AclMode		privileges = new_rows ? ACL_SELECT : 0;
	MemoryContext rowctx;
	RowBulkPuts puts;

	memset(&puts, 0, sizeof(puts));
	puts.t = t;
	puts.now_ms = now_ms;
	puts.rows = palloc(sizeof(RowBulkRow *) * n);
	puts.resultctx = CurrentMemoryContext;
	for (int r = 0; r < n; r++)
		privileges |= row_write_privileges(rows[r].kind);
	rowstore_check_privileges(t, privileges);
	rowstore_check_writable(operation);
	for (int k = 0; k < nkeys; k++)
	{
		put_keys[k] = palloc(sizeof(Datum) * n);
		del_keys[k] = new_rows ? NULL : palloc(sizeof(Datum) * n);
	}

	/* each row's parsing garbage goes when the row is done: memory stays flat */
	rowctx = AllocSetContextCreate(CurrentMemoryContext, "ots bulk row", ALLOCSET_DEFAULT_SIZES);
	for (int r = 0; r < n; r++)
	{
		RowBulkRow *row = &rows[r];
		RowBulkValid valid;
		bool		put = row->kind == ROW_WRITE_PUT;
		int			i;

		CHECK_FOR_INTERRUPTS();
		row->error = NULL;
		if (new_rows)
			row_bulk_validate(t, row, now_ms, true, rowctx, &valid);
		else if (!row_bulk_validate_each(t, row, now_ms, rowctx, &valid))
		{
			MemoryContextReset(rowctx);
			continue;
		}
		i = put ? nputs++ : ndels++;
		storage_key_row(t, &valid.pk, put ? put_keys : del_keys, i);
		row->consumed.read = new_rows ? request_cu(valid.pk_size) : 0;
		row->consumed.write = request_cu(valid.write_size);
		if (put)
		{
			cells[i] = PointerGetDatum(valid.cells);
			oldest[i] = Int64GetDatum(valid.oldest_ts);
			puts.rows[i] = row;
		}
		read_cu += row->consumed.read;
		write_cu += row->consumed.write;
		MemoryContextReset(rowctx);
	}
	MemoryContextDelete(rowctx);
	if (new_rows)
	{
		if (!rowstore_insert_new_many(t, nputs, put_keys, cells, oldest))
			return false;
	}
	else
	{
		if (nputs > 0)
			rowstore_put_many(t, nputs, put_keys, cells, oldest, row_bulk_put_over, &puts);
		if (ndels > 0)
			rowstore_delete_many(t, ndels, del_keys);
	}
	stats_count(t, 0, nputs + ndels - puts.failed, read_cu, write_cu - puts.failed_cu);
	return true;
}

/*
 * row_bulk_put_new validates every row as row_write validates a PutRow
 * with condition EXPECT_NOT_EXIST (same checks in the same order, same
 * capacity units and statistics), then tries them all as new rows in bulk,
 * straight into their leaves as COPY inserts (rowstore_insert_new_many).
 * When one of them exists, live or not, that attempt is undone and the
 * rows go one by one through row_write, which decides each (a live row is
 * the unique violation, an expired one is replaced).  A table that
 * generates keys, or an index, goes row by row from the start.
 */
void
row_bulk_put_new(Oid view_oid, RowBulkRow *rows, int n)
{
	OtsTable   *t = catalog_lookup_view(view_oid);

	if (n > 1 && row_bulk_takes(t))
	{
		const char *operation;
		const char *request;

		row_write_names(ROW_WRITE_PUT, &operation, &request);
		if (row_bulk_write(t, rows, n, ROW_BULK_NEW, operation))
			return;
	}
	for (int i = 0; i < n; i++)
	{
		RowWriteRequest req = {.kind = ROW_WRITE_PUT};
		RowResult	res;

		CHECK_FOR_INTERRUPTS();
		req.view_oid = view_oid;
		req.primary_key = rows[i].primary_key;
		req.key = rows[i].key;
		req.attributes = rows[i].attributes;
		req.typed_cells = rows[i].typed_cells;
		req.ntyped_cells = rows[i].ntyped_cells;
		req.condition = "EXPECT_NOT_EXIST";
		req.on_existing = ROW_EXISTING_UNIQUE;
		row_write(&req, &res);
	}
}
