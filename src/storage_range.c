/*-------------------------------------------------------------------------
 * src/storage_range.c
 *	  Range scans of a table's storage in stored key order: open a range
 *	  over two primary-key bounds in a direction, read its rows one by one,
 *	  close it.  The only code that reads many stored rows through SQL.
 *
 * A range is one ordered scan of the storage table through a cursor: row
 * comparisons on the stored key give the bounds (INF_MIN/INF_MAX cut a
 * bound down to the columns before them), ORDER BY the key in the scan
 * direction, so PostgreSQL merges the leaves' primary-key indexes.  When
 * both bounds fix the partition key, an equality on it prunes the scan to
 * one leaf.  Plans are prepared once per bound shape and backend.  The
 * cursor is opened and read as the table's owner (asrole), a chunk of rows
 * at a time, straight into the range's own memory, so a range can be read
 * across calls (get_range_rows) and its memory does not grow with its
 * length.
 *
 * Hash-prefixed tables store ("$hash", key...), and a range walks that
 * stored order: each bound's natural key is mapped to its stored position,
 * so a range within one partition key (or over the whole table) means what
 * it says, while a range across partition keys covers the rows whose
 * stored keys fall between the two mapped bounds.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "tcop/pquery.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/portal.h"

#include "asrole.h"
#include "cache.h"
#include "rowstore.h"
#include "storage.h"

/*
 * rows fetched from the cursor at a time, at most: a fetched row holds its
 * "$cells" as a TOAST pointer or inline (under 2 kB), so a chunk's memory
 * does not grow with row size; each row is detoasted when it is decoded
 */
#define RANGE_FETCH_CHUNK 256

typedef enum BoundOp
{
	BOUND_NONE,					/* no condition */
	BOUND_EMPTY,				/* nothing can satisfy it */
	BOUND_GE,
	BOUND_GT,
	BOUND_LE,
	BOUND_LT
} BoundOp;

/* one side of a range as a condition on the first ncols stored key columns */
typedef struct RangeBound
{
	BoundOp		op;
	int			ncols;
	Datum		values[OTS_MAX_PK_COLUMNS + 1];
	Oid			types[OTS_MAX_PK_COLUMNS + 1];
} RangeBound;

/* the statement of a range and its parameters */
typedef struct RangeQuery
{
	StringInfoData sql;
	int			nparams;
	Datum		params[2 * (OTS_MAX_PK_COLUMNS + 1) + 1];
	Oid			types[2 * (OTS_MAX_PK_COLUMNS + 1) + 1];
} RangeQuery;

/* receives the rows of one fetch into the range's chunk */
typedef struct RangeReceiver
{
	DestReceiver pub;
	StorageRange *range;
} RangeReceiver;

struct StorageRange
{
	const OtsTable *t;
	Oid			owner;
	char	   *portal;			/* the cursor's name; NULL once closed */
	MemoryContext cxt;			/* holds the range */
	MemoryContext chunk_ctx;	/* the rows of the last fetch */
	TupleDesc	desc;
	HeapTuple  *chunk;
	uint64		chunk_len;
	uint64		chunk_pos;
	RangeReceiver receiver;
};

typedef struct RangePlan
{
	char		sql[NAMEDATALEN * 48];	/* hash key: the statement itself */
	SPIPlanPtr	plan;
} RangePlan;

/* saved plans go stale in the plan cache (SPI_plan_is_valid), not here */
static OtsCache range_plans = {
	.name = "ots range plans",
	.keysize = sizeof(((RangePlan *) 0)->sql),
	.entrysize = sizeof(RangePlan),
	.string_keys = true,
};

/*
 * storage_range_compare orders two bounds in stored order, column by
 * column, with INF_MIN < every value < INF_MAX.
 */
int
storage_range_compare(const OtsTable *t, const PkInput *a, const PkInput *b)
{
	/* a prefixed table is ordered by the prefix first */
	if (t->hash_prefix_len > 0 && a->special[0] == PK_VALUE && b->special[0] == PK_VALUE)
	{
		int64		ha = storage_hash_prefix(&a->v[0], t->hash_prefix_len);
		int64		hb = storage_hash_prefix(&b->v[0], t->hash_prefix_len);

		if (ha != hb)
			return ha < hb ? -1 : 1;
	}
	for (int i = 0; i < t->npk; i++)
	{
		int			ra = a->special[i] == PK_INF_MIN ? -1 : a->special[i] == PK_INF_MAX ? 1 : 0;
		int			rb = b->special[i] == PK_INF_MIN ? -1 : b->special[i] == PK_INF_MAX ? 1 : 0;
		int			c;

		if (ra != rb)
			return ra < rb ? -1 : 1;
		if (ra != 0)
			continue;
		c = ots_value_compare(&a->v[i], &b->v[i]);
		if (c != 0)
			return c;
	}
	return 0;
}

/*
 * range_bound converts one bound into a condition on the stored key:
 * "lower" for the side rows must be above (start of FORWARD, end of
 * BACKWARD), "inclusive" for the start.
 */
static void
range_bound(const OtsTable *t, const PkInput *pk, bool lower, bool inclusive, RangeBound *b)
{
	int			first_inf = t->npk;

	for (int i = 0; i < t->npk; i++)
		if (pk->special[i] != PK_VALUE)
		{
			first_inf = i;
			break;
		}
	b->ncols = storage_key(t, pk, first_inf, b->values, b->types);

	if (first_inf == t->npk)
		b->op = lower ? (inclusive ? BOUND_GE : BOUND_GT) : (inclusive ? BOUND_LE : BOUND_LT);
	else
	{
		/* an INF at column i decides the comparison of the columns before it */
		bool		inf_min = pk->special[first_inf] == PK_INF_MIN;

		if (lower)
			b->op = inf_min ? BOUND_GE : BOUND_GT;
		else
			b->op = inf_min ? BOUND_LT : BOUND_LE;
		if (first_inf == 0)
			b->op = (b->op == BOUND_GE || b->op == BOUND_LE) ? BOUND_NONE : BOUND_EMPTY;
	}
}

static const char *
range_op_sql(BoundOp op)
{
	switch (op)
	{
		case BOUND_GE:
			return ">=";
		case BOUND_GT:
			return ">";
		case BOUND_LE:
			return "<=";
		case BOUND_LT:
			return "<";
		default:
			return NULL;
	}
}

/* range_add_param makes value a parameter of the statement, returning its number */
static int
range_add_param(RangeQuery *q, Datum value, Oid type)
{
	q->params[q->nparams] = value;
	q->types[q->nparams] = type;
	return ++q->nparams;
}

/* range_append_bound adds "(c1, c2) op ($n, $n+1)" to the condition */
static void
range_append_bound(const OtsTable *t, RangeQuery *q, StringInfo where, const RangeBound *b)
{
	if (b->op == BOUND_NONE)
		return;
	appendStringInfo(where, "%s(%s) OPERATOR(pg_catalog.%s) (", where->len > 0 ? " AND " : "",
					 storage_key_list(t, b->ncols), range_op_sql(b->op));
	for (int k = 0; k < b->ncols; k++)
		appendStringInfo(where, "%s$%d", k > 0 ? ", " : "",
						 range_add_param(q, b->values[k], b->types[k]));
	appendStringInfoChar(where, ')');
}

/*
 * range_query writes the statement of the range from start to end in the
 * direction and its parameters; false when no row can be in it.
 */
static bool
range_query(const OtsTable *t, const PkInput *start, const PkInput *end, bool backward,
			RangeQuery *q)
{
	RangeBound	lo;
	RangeBound	hi;
	StringInfoData where;

	range_bound(t, backward ? end : start, true, !backward, &lo);
	range_bound(t, backward ? start : end, false, backward, &hi);
	if (lo.op == BOUND_EMPTY || hi.op == BOUND_EMPTY)
		return false;

	q->nparams = 0;
	initStringInfo(&where);
	range_append_bound(t, q, &where, &lo);
	range_append_bound(t, q, &where, &hi);
	/*
	 * both bounds fix the partition key: say so, and the scan prunes to its
	 * leaf (by "$hash", what prefixed storage is partitioned by)
	 */
	if (start->special[0] == PK_VALUE && end->special[0] == PK_VALUE &&
		ots_value_compare(&start->v[0], &end->v[0]) == 0)
	{
		int			k = t->hash_prefix_len > 0 ? 1 : 0;

		appendStringInfo(&where, "%s%s OPERATOR(pg_catalog.=) $%d", where.len > 0 ? " AND " : "",
						 quote_identifier(t->pk[0].name),
						 range_add_param(q, lo.values[k], lo.types[k]));
		if (k == 1)
			appendStringInfo(&where, " AND " STORAGE_HASH_SQL " OPERATOR(pg_catalog.=) $%d",
							 range_add_param(q, lo.values[0], lo.types[0]));
	}

	initStringInfo(&q->sql);
	appendStringInfoString(&q->sql, "SELECT ");
	for (int i = 0; i < t->npk; i++)
		appendStringInfo(&q->sql, "%s, ", quote_identifier(t->pk[i].name));
	appendStringInfo(&q->sql, STORAGE_CELLS_SQL " FROM %s", storage_name(t));
	if (where.len > 0)
		appendStringInfo(&q->sql, " WHERE %s", where.data);
	appendStringInfoString(&q->sql, " ORDER BY ");
	for (int k = 0; k < storage_nkeys(t); k++)
		appendStringInfo(&q->sql, "%s%s%s", k > 0 ? ", " : "",
						 quote_identifier(storage_key_column(t, k)), backward ? " DESC" : "");
	return true;
}

/* range_plan returns the saved plan of the statement (SPI connected) */
static SPIPlanPtr
range_plan(const RangeQuery *q)
{
	RangePlan  *rp;
	bool		found;
	char		key[sizeof(((RangePlan *) 0)->sql)];

	if (q->sql.len >= sizeof(key))
		elog(ERROR, "ots range statement too long");
	memset(key, 0, sizeof(key));
	strlcpy(key, q->sql.data, sizeof(key));
	rp = cache_lookup(&range_plans, key, &found);
	if (rp->plan != NULL && !SPI_plan_is_valid(rp->plan))
	{
		SPI_freeplan(rp->plan);
		rp->plan = NULL;
	}
	if (rp->plan == NULL)
	{
		/* bounds change per call, the shape does not: plan it once, prune at run time */
		SPIPlanPtr	plan = SPI_prepare_cursor(q->sql.data, q->nparams, (Oid *) q->types,
											  CURSOR_OPT_NO_SCROLL | CURSOR_OPT_GENERIC_PLAN);

		if (plan == NULL)
			elog(ERROR, "could not prepare ots range statement: %s",
				 SPI_result_code_string(SPI_result));
		if (SPI_keepplan(plan) != 0)
			elog(ERROR, "could not save ots range statement");
		rp->plan = plan;
	}
	return rp->plan;
}

/* range_receive keeps a copy of a fetched row in the range's chunk */
static bool
range_receive(TupleTableSlot *slot, DestReceiver *self)
{
	StorageRange *r = ((RangeReceiver *) self)->range;
	MemoryContext old = MemoryContextSwitchTo(r->chunk_ctx);

	r->chunk[r->chunk_len++] = ExecCopySlotHeapTuple(slot);
	MemoryContextSwitchTo(old);
	return true;
}

/* range_receive_startup keeps the rows' descriptor, once per range */
static void
range_receive_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	StorageRange *r = ((RangeReceiver *) self)->range;

	/* the executor's memory goes with the cursor: the copy lives with the range */
	if (r->desc == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(r->cxt);

		r->desc = CreateTupleDescCopy(typeinfo);
		MemoryContextSwitchTo(old);
	}
}

static void
range_receive_nothing(DestReceiver *self)
{
}

/*
 * storage_range_open opens the range of t's storage from start (inclusive)
 * to end (exclusive), read forward or backward, as the table's owner
 * (OTSObjectNotExist when the storage is gone).  The range and its rows
 * live in CurrentMemoryContext; its cursor until storage_range_close or the
 * end of the transaction.
 */
StorageRange *
storage_range_open(const OtsTable *t, const PkInput *start, const PkInput *end, bool backward)
{
	StorageRange *r = palloc0(sizeof(StorageRange));
	RangeQuery	q;
	AsRole		saved;
	Portal		portal;

	r->t = t;
	r->cxt = CurrentMemoryContext;
	r->owner = rowstore_owner(t);
	if (!range_query(t, start, end, backward, &q))
		return r;
	r->chunk_ctx = AllocSetContextCreate(r->cxt, "ots range chunk", ALLOCSET_DEFAULT_SIZES);
	r->receiver.pub.receiveSlot = range_receive;
	r->receiver.pub.rStartup = range_receive_startup;
	r->receiver.pub.rShutdown = range_receive_nothing;
	r->receiver.pub.rDestroy = range_receive_nothing;
	r->receiver.pub.mydest = DestNone;
	r->receiver.range = r;

	asrole_enter(r->owner, &saved);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	portal = SPI_cursor_open(NULL, range_plan(&q), q.params, NULL, true);
	r->portal = MemoryContextStrdup(r->cxt, portal->name);
	SPI_finish();
	asrole_leave(&saved);
	return r;
}

/*
 * range_fill fetches the next rows of the range, count at most, into its
 * chunk (which it empties first), as the table's owner, and closes the
 * cursor once it has given its last row; false when there were none.
 */
static bool
range_fill(StorageRange *r, long count)
{
	Portal		portal = SPI_cursor_find(r->portal);
	AsRole		saved;

	if (portal == NULL)
		elog(ERROR, "ots range cursor \"%s\" disappeared", r->portal);
	MemoryContextReset(r->chunk_ctx);
	r->chunk = MemoryContextAlloc(r->chunk_ctx, sizeof(HeapTuple) * count);
	r->chunk_len = r->chunk_pos = 0;
	asrole_enter(r->owner, &saved);
	PortalRunFetch(portal, FETCH_FORWARD, count, &r->receiver.pub);
	asrole_leave(&saved);
	if (r->chunk_len < count)
		storage_range_close(r);
	return r->chunk_len > 0;
}

/*
 * storage_range_next reads the range's next row: its primary key into pk
 * (pointing into the row, or into CurrentMemoryContext) and its stored
 * cells as they are stored (possibly compressed or a TOAST pointer); false
 * when the range is over.  want, when positive, is the number of rows the
 * caller may still read, so a fetch reads no more than those.
 */
bool
storage_range_next(StorageRange *r, int64 want, PkInput *pk, struct varlena **cells)
{
	const OtsTable *t = r->t;
	HeapTuple	tup;
	bool		isnull;

	if (r->chunk_pos == r->chunk_len &&
		(r->portal == NULL || !range_fill(r, want > 0 ? Min(want, RANGE_FETCH_CHUNK) : RANGE_FETCH_CHUNK)))
		return false;
	tup = r->chunk[r->chunk_pos++];
	pk->n = t->npk;
	for (int i = 0; i < t->npk; i++)
	{
		Datum		d = heap_getattr(tup, i + 1, r->desc, &isnull);

		pk->special[i] = PK_VALUE;
		pk->v[i].type = t->pk[i].type;
		if (t->pk[i].type == OTS_VT_INTEGER)
			pk->v[i].u.i = DatumGetInt64(d);
		else
		{
			struct varlena *v = PG_DETOAST_DATUM_PACKED(d);

			pk->v[i].u.s.data = VARDATA_ANY(v);
			pk->v[i].u.s.len = VARSIZE_ANY_EXHDR(v);
		}
	}
	*cells = (struct varlena *) DatumGetPointer(heap_getattr(tup, t->npk + 1, r->desc, &isnull));
	return true;
}

/* storage_range_close closes the range's cursor now rather than at commit */
void
storage_range_close(StorageRange *r)
{
	Portal		portal;

	if (r->portal == NULL)
		return;
	portal = SPI_cursor_find(r->portal);
	if (portal != NULL)
		SPI_cursor_close(portal);
	r->portal = NULL;
}
