/*-------------------------------------------------------------------------
 * src/view/view_copy.c
 *	  COPY FROM into an ots table's view takes the row API's batch path.
 *
 * COPY runs the view's INSERT trigger (view_write.c) for each row; during
 * a COPY FROM the trigger hands the row's PutRow here instead of writing
 * it: its key as values, its typed cells and its attributes map, as it
 * hands them to row_write, copied till the batch is written.  The rows are written by row_bulk_put_new (new keys straight into
 * their leaves, in bulk, as COPY inserts into a table; row by row when a
 * key exists) when a thousand of them or 16 MB are held, and when the COPY
 * ends: a ProcessUtility hook brackets every COPY FROM, writing what is
 * held before the COPY returns and dropping it when the COPY fails.  The
 * statement's writes are all made or the COPY fails, as a COPY into a
 * table; an error found at a batch's write names no line of the input.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/memutils.h"

#include "api/row_bulk.h"
#include "view/view_write.h"
#include "utility_hook.h"

/* a batch: at most this many rows, or about this many bytes of them */
#define VIEW_COPY_BATCH_ROWS 1000
#define VIEW_COPY_BATCH_BYTES (16 * 1024 * 1024)

typedef struct ViewCopyRows
{
	bool		active;			/* a COPY FROM runs */
	Oid			view_oid;		/* the view of the rows held */
	MemoryContext context;		/* holds the rows; reset when they are written */
	int			n;
	Size		bytes;
	RowBulkRow	rows[VIEW_COPY_BATCH_ROWS];	/* their values in context */
} ViewCopyRows;

static ViewCopyRows view_copy;
static ProcessUtility_hook_type prev_process_utility = NULL;

bool
view_copy_active(void)
{
	return view_copy.active;
}

/* view_copy_flush writes the rows held */
static void
view_copy_flush(void)
{
	int			n = view_copy.n;

	if (n == 0)
		return;
	view_copy.n = 0;
	view_copy.bytes = 0;
	row_bulk_put_new(view_copy.view_oid, view_copy.rows, n);
	MemoryContextReset(view_copy.context);
}

/*
 * view_copy_value points a String or Binary value at a copy of its bytes
 * in the current memory context; returns the bytes copied
 */
static Size
view_copy_value(OtsValue *v)
{
	char	   *data;

	if (v->type != OTS_VT_STRING && v->type != OTS_VT_BINARY)
		return 0;
	data = palloc(v->u.s.len + 1);
	memcpy(data, v->u.s.data, v->u.s.len);
	v->u.s.data = data;
	return v->u.s.len;
}

void
view_copy_hold(Oid view_oid, int npk, const PkInput *key, const CellInput *cells, int ncells,
			   Jsonb *attributes)
{
	MemoryContext old;
	RowBulkRow *row;
	PkInput    *k;
	CellInput  *c;
	Size		bytes;

	if (view_copy.n > 0 && view_copy.view_oid != view_oid)
		view_copy_flush();
	if (view_copy.context == NULL)
		view_copy.context = AllocSetContextCreate(TopMemoryContext, "ots view COPY rows",
												  ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(view_copy.context);
	view_copy.view_oid = view_oid;
	row = &view_copy.rows[view_copy.n];
	memset(row, 0, sizeof(RowBulkRow));
	row->kind = ROW_WRITE_PUT;
	k = palloc(sizeof(PkInput));
	*k = *key;
	bytes = sizeof(PkInput);
	/* a key short of a column fails on its count (codec_check_pk): its values are not read */
	if (key->n == npk)
		for (int i = 0; i < npk; i++)
			if (k->special[i] == PK_VALUE)
				bytes += view_copy_value(&k->v[i]);
	row->key = k;
	/* the names too: the view's columns may be looked up again before the batch is written */
	c = palloc(sizeof(CellInput) * Max(ncells, 1));
	for (int i = 0; i < ncells; i++)
	{
		c[i] = cells[i];
		c[i].name = pnstrdup(cells[i].name, cells[i].namelen);
		bytes += sizeof(CellInput) + cells[i].namelen + view_copy_value(&c[i].value);
	}
	row->typed_cells = c;
	row->ntyped_cells = ncells;
	if (attributes != NULL)
	{
		row->attributes = (Jsonb *) PG_DETOAST_DATUM_COPY(JsonbPGetDatum(attributes));
		bytes += VARSIZE(row->attributes);
	}
	view_copy.bytes += bytes;
	view_copy.n++;
	MemoryContextSwitchTo(old);
	if (view_copy.n == VIEW_COPY_BATCH_ROWS || view_copy.bytes >= VIEW_COPY_BATCH_BYTES)
		view_copy_flush();
}

/*
 * view_copy_utility (ProcessUtility_hook) brackets COPY FROM.  A COPY run
 * inside another (from a trigger or function of its rows) writes what the
 * outer one holds first, and its own rows before it returns.
 */
static void
view_copy_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
				  ProcessUtilityContext context, ParamListInfo params,
				  QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *stmt = pstmt->utilityStmt;
	bool		outer_active = view_copy.active;
	ViewStatement marker;

	if (!IsA(stmt, CopyStmt) || !((CopyStmt *) stmt)->is_from)
	{
		utility_hook_next(prev_process_utility, pstmt, queryString, readOnlyTree, context,
						  params, queryEnv, dest, qc);
		return;
	}
	if (outer_active)
		view_copy_flush();
	view_statement_copy_begin(&marker);
	PG_TRY();
	{
		view_copy.active = true;
		utility_hook_next(prev_process_utility, pstmt, queryString, readOnlyTree, context,
						  params, queryEnv, dest, qc);
		view_copy_flush();
	}
	PG_FINALLY();
	{
		view_statement_copy_end(&marker);
		view_copy.active = outer_active;
		view_copy.n = 0;
		view_copy.bytes = 0;
		if (view_copy.context != NULL)
			MemoryContextReset(view_copy.context);
	}
	PG_END_TRY();
}

void
view_copy_init(void)
{
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = view_copy_utility;
}
