/*-------------------------------------------------------------------------
 * src/index/index_build.c
 *	  Backfill of a secondary index created on a table with rows: the batch
 *	  that fills the entries of a range of a leaf's blocks, and the
 *	  background worker that runs the whole build after create_index, and
 *	  after create_search_index on a large table (the same steps, by the
 *	  search index's own functions: ots.search_build_begin, ...).
 *
 * From the moment create_index commits, every writer of the base table
 * keeps the index (the write point, index_write.c).  The build then:
 *
 * 1. waits out the writers that looked the table up before (a SHARE lock
 *    on the base storage, released at once: ots.index_build_begin);
 * 2. walks every leaf in ranges of blocks.  Each batch holds a SHARE lock
 *    on its leaf until it commits, reads the rows with a snapshot taken
 *    under it (so every writer of the leaf has committed or will come
 *    after, and maintain the entries of what it writes), and writes their
 *    entries in bulk (rowstore_put_many: an entry a writer put first is
 *    replaced by the same entry).  Writers of that leaf wait for one batch,
 *    never for the whole build; those of other leaves not at all;
 * 3. marks the index complete (phase INCR): reads of it were refused until
 *    then with Tablestore's "Disallow read index table in building base
 *    state".
 *
 * The background worker of the index's owner (one per role and database,
 * started when a transaction that created an index commits) and CALL
 * ots.build_index run these same steps; two builds at once only write the
 * same entries twice.  The worker connects as the bootstrap superuser and
 * runs every step as the index's owner in a security-restricted operation
 * (asrole), as autovacuum runs maintenance.  It takes the steps of the
 * role's waiting indexes in turn.  When a table's writers hold a step's
 * lock, the worker puts that index aside until the transactions holding it
 * then have ended (queueing no writer, going on with its other builds),
 * and then waits for the lock as long as it takes: so a busy table's build
 * goes on, each step within about two of its writers' transactions; a
 * transaction left open on a table holds up that table's build alone; and
 * one role's transactions, no other role's builds.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/twophase.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_authid.h"
#include "catalog/partition.h"
#include "catalog/pg_inherits.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "asrole.h"
#include "meta/catalog.h"
#include "errors.h"
#include "guc.h"
#include "index/index_write.h"
#include "store/leaf.h"
#include "store/rowsplit.h"
#include "store/rowstore.h"
#include "meta/storage.h"

PG_FUNCTION_INFO_V1(ots_index_backfill_batch);
PG_FUNCTION_INFO_V1(ots_index_build_launch);
PG_FUNCTION_INFO_V1(ots_search_build_launch);

PGDLLEXPORT void ots_index_build_main(Datum arg);

/* index_build_lookup: index schema.index, which the caller must own */
static OtsTable *
index_build_lookup(const char *schema, const char *index)
{
	/* the table part of an ots name is literal: only the schema is quoted */
	OtsTable   *idx = catalog_lookup(cstring_to_text(psprintf("%s.%s", quote_identifier(schema), index)));

	if (!idx->is_index)
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	if (!catalog_owns(idx->data_oid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of ots table %s", quote_qualified_identifier(schema, index))));
	return idx;
}

/*
 * ots_index_backfill_batch is ots.index_backfill_batch(schema_name,
 * index_name, leaf regclass, first_block, nblocks, seen_filenode): writes the
 * entries of the rows in blocks [first_block, first_block + nblocks) of a
 * leaf of the index's base table, holding a SHARE lock on the leaf until
 * commit; returns the next block (NULL when first_block is past the leaf's
 * end) and the leaf's file node.  When the leaf was rewritten since the
 * batch that returned seen_filenode (VACUUM FULL, CLUSTER move rows into blocks
 * already read), it starts the leaf again from its first block.
 */
Datum
ots_index_backfill_batch(PG_FUNCTION_ARGS)
{
	OtsTable   *idx = index_build_lookup(NameStr(*PG_GETARG_NAME(0)), NameStr(*PG_GETARG_NAME(1)));
	const OtsTable *base = catalog_index_base(idx);
	Oid			leaf_oid = PG_GETARG_OID(2);
	int64		first = PG_GETARG_INT64(3);
	int32		nblocks = PG_GETARG_INT32(4);
	Oid			filenode = PG_GETARG_OID(5);
	TupleDesc	result_desc;
	Datum		result[2];
	bool		result_null[2] = {false, false};
	MemoryContext batchcxt;
	MemoryContext rowcxt;
	MemoryContext oldcxt;
	Relation	leaf;
	BlockNumber last;
	Snapshot	snapshot;
	TableScanDesc scan;
	TupleTableSlot *slot;
	ItemPointerData mintid;
	ItemPointerData maxtid;
	LeafCache  *lc;
	AttrNumber	key_attnos[OTS_MAX_PK_COLUMNS + 1];
	AttrNumber	cells_attno;
	int			nkeys = storage_nkeys(idx);
	int			cap = 1024;
	int			n = 0;
	Datum	   *keys[OTS_MAX_KEY_COLUMNS + 1];
	Datum	   *cells;
	Datum	   *oldest;

	rowstore_check_writable("ots.build_index");
	if (get_call_result_type(fcinfo, NULL, &result_desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "ots.index_backfill_batch must return a row");
	result_desc = BlessTupleDesc(result_desc);
	leaf = leaf_backfill_open(base, leaf_oid, &first, nblocks, filenode, &filenode, &last);
	result[1] = ObjectIdGetDatum(filenode);
	if (leaf == NULL)
	{
		result_null[0] = true;
		PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(result_desc, result, result_null)));
	}
	lc = leaf_place(leaf_oid);
	if (!leaf_keys(lc, base))
		catalog_report_damaged(base, "a partition of its storage table lacks a key column");
	if (lc->cells_attno == InvalidAttrNumber)
		catalog_report_damaged(base, "a partition of its storage table lacks its cells");
	/* copied: the leaf's cache entry may go stale during the scan */
	memcpy(key_attnos, lc->key_attnos, sizeof(AttrNumber) * storage_nkeys(base));
	cells_attno = lc->cells_attno;

	batchcxt = AllocSetContextCreate(CurrentMemoryContext, "ots index build", ALLOCSET_DEFAULT_SIZES);
	/* a row's decoding and building go with the row; its entry is copied into the batch */
	rowcxt = AllocSetContextCreate(batchcxt, "ots index build row", ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(batchcxt);
	for (int k = 0; k < nkeys; k++)
		keys[k] = palloc(sizeof(Datum) * cap);
	cells = palloc(sizeof(Datum) * cap);
	oldest = palloc(sizeof(Datum) * cap);

	ItemPointerSet(&mintid, (BlockNumber) first, FirstOffsetNumber);
	ItemPointerSet(&maxtid, last, MaxOffsetNumber);
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	slot = table_slot_create(leaf, NULL);
	scan = table_beginscan_tidrange(leaf, snapshot, &mintid, &maxtid);
	while (table_scan_getnextslot_tidrange(scan, ForwardScanDirection, slot))
	{
		IndexSourceRow row;
		Datum		key[OTS_MAX_KEY_COLUMNS + 1];
		struct varlena *entry_cells;
		int64		entry_oldest;
		bool		isnull;

		CHECK_FOR_INTERRUPTS();
		MemoryContextSwitchTo(rowcxt);
		/* a primary key's columns are never null; the entry copies what it keeps */
		(void) storage_leaf_key(base, key_attnos, slot, row.pk);
		row.cells = PG_DETOAST_DATUM_COPY(slot_getattr(slot, cells_attno, &isnull));
		if (cells_is_head(row.cells))
		{
			/* a split row: the defined columns an entry copies, from its chunks */
			RowNeeds	needs;
			RowKey		rowkey;

			rowneeds_init(&needs);
			for (int i = 0; i < base->ndefined; i++)
				rowneeds_newest(&needs, base->defined[i].name, base->defined[i].namelen, 1, 0,
								PG_INT64_MAX);
			row.cells = rowsplit_load_head(base, row.cells, &needs, snapshot, &rowkey);
		}
		MemoryContextSwitchTo(batchcxt);
		if (!index_entry_stored(base, idx, &row, key, &entry_cells, &entry_oldest, rowcxt))
		{
			MemoryContextReset(rowcxt);
			continue;
		}
		if (n == cap)
		{
			cap *= 2;
			for (int k = 0; k < nkeys; k++)
				keys[k] = repalloc(keys[k], sizeof(Datum) * cap);
			cells = repalloc(cells, sizeof(Datum) * cap);
			oldest = repalloc(oldest, sizeof(Datum) * cap);
		}
		for (int k = 0; k < nkeys; k++)
			keys[k][n] = key[k];
		cells[n] = PointerGetDatum(entry_cells);
		oldest[n] = Int64GetDatum(entry_oldest);
		n++;
		MemoryContextReset(rowcxt);
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	UnregisterSnapshot(snapshot);
	table_close(leaf, NoLock);
	if (n > 0)
		rowstore_put_many(idx, n, keys, cells, oldest, NULL, NULL);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(batchcxt);
	result[0] = Int64GetDatum(first + nblocks);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(result_desc, result, result_null)));
}

/*
 * The owners whose build workers are due at the commit of this transaction
 * (index_build_xact), in TopMemoryContext
 */
static List *build_owners_due = NIL;
static bool build_callback_registered = false;

/*
 * index_build_xact starts, at the commit of a transaction that created
 * indexes to build, the build worker of each of their owners in this
 * database: one worker per owner, which builds every index of that owner
 * waiting for its build, a step of each in turn, and which a second one
 * started meanwhile leaves alone (ots_index_build_main).  A worker per
 * owner keeps one tenant's open transactions from holding up another's
 * builds, and a tenant from holding more than one worker slot; no worker
 * is started for a transaction still open.
 */
static void
index_build_xact(XactEvent event, void *arg)
{
	ListCell   *lc;

	if (build_owners_due == NIL)
		return;
	if (event != XACT_EVENT_COMMIT)
	{
		if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		{
			list_free(build_owners_due);
			build_owners_due = NIL;
		}
		return;
	}
	foreach(lc, build_owners_due)
	{
		BackgroundWorker worker;

		memset(&worker, 0, sizeof(worker));
		snprintf(worker.bgw_name, BGW_MAXLEN, "ots index build of role %u", lfirst_oid(lc));
		snprintf(worker.bgw_type, BGW_MAXLEN, "ots index build");
		worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
		worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
		worker.bgw_restart_time = BGW_NEVER_RESTART;
		snprintf(worker.bgw_library_name, BGW_MAXLEN, "ots");
		snprintf(worker.bgw_function_name, BGW_MAXLEN, "ots_index_build_main");
		worker.bgw_main_arg = ObjectIdGetDatum(lfirst_oid(lc));
		memcpy(worker.bgw_extra, &MyDatabaseId, sizeof(Oid));
		if (!RegisterDynamicBackgroundWorker(&worker, NULL))
			ereport(WARNING,
					(errmsg("could not start the background worker that builds ots indexes"),
					 errhint("Build them with CALL ots.build_index.")));
	}
	list_free(build_owners_due);
	build_owners_due = NIL;
}

/*
 * index_build_due has the build worker of owner in this database start when
 * this transaction commits; false when ots.index_build_worker is off (CALL
 * ots.build_index or ots.build_search_index builds then)
 */
static bool
index_build_due(Oid owner)
{
	if (!ots_index_build_worker)
		return false;
	if (!build_callback_registered)
	{
		RegisterXactCallback(index_build_xact, NULL);
		build_callback_registered = true;
	}
	if (!list_member_oid(build_owners_due, owner))
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		build_owners_due = lappend_oid(build_owners_due, owner);
		MemoryContextSwitchTo(old);
	}
	return true;
}

/*
 * ots_index_build_launch is ots.index_build_launch(schema_name,
 * index_name): has the build worker of the index's owner in this database
 * started when the transaction that creates the index (and only it)
 * commits; false when ots.index_build_worker is off (CALL ots.build_index
 * builds it then).
 */
Datum
ots_index_build_launch(PG_FUNCTION_ARGS)
{
	char	   *schema = NameStr(*PG_GETARG_NAME(0));
	char	   *index = NameStr(*PG_GETARG_NAME(1));
	OtsTable   *idx = index_build_lookup(schema, index);
	Relation	rel;
	bool		created_now;
	Oid			owner;

	rel = table_open(idx->data_oid, AccessShareLock);
	created_now = rel->rd_createSubid != InvalidSubTransactionId;
	owner = rel->rd_rel->relowner;
	table_close(rel, AccessShareLock);
	if (!created_now || !idx->index_building)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the build of index %s is started by the transaction that creates it",
						quote_qualified_identifier(schema, index)),
				 errhint("Build it with CALL ots.build_index.")));
	PG_RETURN_BOOL(index_build_due(owner));
}

/*
 * ots_search_build_launch is ots.search_build_launch(storage): as
 * ots.index_build_launch, for the search index kept in storage, which the
 * calling transaction must have made (its catalog row says sync_phase
 * FULL: the worker builds it then).
 */
Datum
ots_search_build_launch(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel;
	bool		created_now;
	Oid			owner;

	rel = table_open(relid, AccessShareLock);
	created_now = rel->rd_createSubid != InvalidSubTransactionId;
	owner = rel->rd_rel->relowner;
	table_close(rel, AccessShareLock);
	if (!created_now || !catalog_owns(relid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the build of the search index kept in %s is started by the transaction that creates it",
						quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), get_rel_name(relid))),
				 errhint("Build it with CALL ots.build_search_index.")));
	PG_RETURN_BOOL(index_build_due(owner));
}

/*
 * How a step of the worker waits for its locks (SHARE on the table's
 * storage or a leaf: its writers).  The worker first looks for
 * transactions holding a conflicting lock; when there are none, the step
 * waits INDEX_BUILD_FIRST_WAIT at most (a writer may come first).  When
 * there are, or that was not enough, it puts the index aside until every
 * one of them has ended, looking every INDEX_BUILD_POLL_MS and going on
 * with its other builds meanwhile, queueing no writer; then the step waits
 * for its locks without a limit.  Those holding them then began after the
 * worker looked: a busy table's writers end within one of their
 * transactions' length, and a transaction left open on a table holds up
 * that table's build alone.
 */
#define INDEX_BUILD_FIRST_WAIT	"100ms"
#define INDEX_BUILD_POLL_MS		100

/* the worker's one step: sql with the schema and index names (and more), in its own transaction */
typedef struct BuildStep
{
	const char *schema;
	const char *index;
	Oid			owner;
} BuildStep;

/*
 * index_build_step runs sql ($1 schema, $2 index, then extra; no names when
 * b->schema is NULL, extra from $1 then) as the index's owner in a
 * transaction of its own, waiting for each lock INDEX_BUILD_FIRST_WAIT at
 * most (lock_not_available after it), or without a limit when wait_long;
 * returns the columns of the rows it returned, one after another, as text
 * copied into the caller's context (NULLs as NULL).
 */
static List *
index_build_step(const BuildStep *b, bool wait_long, const char *sql, int nextra,
				 Oid *extra_types, Datum *extra)
{
	MemoryContext callercxt = CurrentMemoryContext;
	Oid			types[5] = {NAMEOID, NAMEOID};
	Datum		values[5];
	AsRole		saved;
	List	   *result = NIL;

	int			nnames = b->schema != NULL ? 2 : 0;

	Assert(nextra <= 3);
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	(void) set_config_option("lock_timeout", wait_long ? "0" : INDEX_BUILD_FIRST_WAIT,
							 PGC_SUSET, PGC_S_SESSION, GUC_ACTION_LOCAL, true, 0, false);
	/* a long wait is this worker's own: the server's statement_timeout does not cut it */
	(void) set_config_option("statement_timeout", "0", PGC_SUSET, PGC_S_SESSION,
							 GUC_ACTION_LOCAL, true, 0, false);
	PushActiveSnapshot(GetTransactionSnapshot());
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (nnames > 0)
	{
		values[0] = DirectFunctionCall1(namein, CStringGetDatum(b->schema));
		values[1] = DirectFunctionCall1(namein, CStringGetDatum(b->index));
	}
	for (int i = 0; i < nextra; i++)
	{
		types[nnames + i] = extra_types[i];
		values[nnames + i] = extra[i];
	}
	pgstat_report_activity(STATE_RUNNING, sql);
	asrole_enter(b->owner, &saved);
	if (SPI_execute_with_args(sql, nnames + nextra, types, values, NULL, false, 0) < 0)
		elog(ERROR, "ots index build step failed: %s", sql);
	asrole_leave(&saved);
	for (uint64 r = 0; r < SPI_processed; r++)
		for (int c = 1; c <= SPI_tuptable->tupdesc->natts; c++)
		{
			char	   *v = SPI_getvalue(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, c);
			MemoryContext old = MemoryContextSwitchTo(callercxt);

			result = lappend(result, v != NULL ? pstrdup(v) : NULL);
			MemoryContextSwitchTo(old);
		}
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(callercxt);
	pgstat_report_activity(STATE_IDLE, NULL);
	return result;
}

/*
 * One index the worker builds, and how far it got: the build's steps are
 * those of CALL ots.build_index, each its own transaction, so the worker
 * can take them for several indexes in turn.
 */
typedef struct BuildSteps
{
	const char *begin;			/* the leaves, once the writers that do not keep the index have ended */
	const char *batch;			/* one batch: $3 leaf, $4 first block, $5 file node seen */
	const char *end;			/* the index answers reads */
} BuildSteps;

typedef struct IndexBuild
{
	BuildStep	step;			/* the names (a search index's: its storage's) and the owner */
	const BuildSteps *steps;	/* a secondary index's, or a search index's */
	char	   *name;			/* what the worker's list knows it by */
	char	   *base;			/* the table it indexes (in the same schema) */
	bool		begun;			/* ots.index_build_begin has run: leaves holds its leaves */
	List	   *leaves;
	int			leaf;			/* the leaf being read */
	int64		block;			/* its next block */
	Oid			filenode;		/* its file node at the last batch */
	bool		finished;		/* built, gone, or failed (its error logged) */
	bool		wait_long;		/* its next step waits for its locks without a limit */
	bool		aside;			/* put aside until holders have ended, and retry_at */
	VirtualTransactionId *holders;	/* ended by an invalid one */
	TimestampTz retry_at;
} IndexBuild;

/* a secondary index's steps, which know it by its schema and name */
static const BuildSteps secondary_steps = {
	"SELECT l FROM ots.index_build_begin($1, $2) l",
	"SELECT b.next_block, b.filenode"
	" FROM ots.index_backfill_batch($1, $2, pg_catalog.to_regclass($3), $4, ots.index_build_blocks(), $5) b",
	"SELECT ots.index_build_end($1, $2)"
};

/*
 * search_steps: a search index's steps, which know it by its storage's OID
 * (an index deleted and made again meanwhile, of the same storage name, is
 * another)
 */
static const BuildSteps *
search_steps(Oid storage)
{
	BuildSteps *steps = palloc(sizeof(BuildSteps));

	steps->begin = psprintf("SELECT l FROM ots.search_build_begin(%u::pg_catalog.regclass) l", storage);
	steps->batch = psprintf("SELECT b.next_block, b.filenode FROM ots.search_backfill_batch(%u::pg_catalog.regclass,"
							" pg_catalog.to_regclass($3), $4, ots.index_build_blocks(), $5) b", storage);
	steps->end = psprintf("SELECT ots.search_build_end(%u::pg_catalog.regclass)", storage);
	return steps;
}

/*
 * index_build_next runs the next step of ib's build: waiting out the
 * writers that do not maintain the index, one backfill batch, or marking
 * the index complete.  A step that waited too long for a lock raises
 * lock_not_available, having changed nothing; the caller tries it again
 * later.
 */
static void
index_build_next(IndexBuild *ib)
{
	BuildStep  *b = &ib->step;
	const BuildSteps *steps = ib->steps;

	if (!ib->begun)
	{
		ib->leaves = index_build_step(b, ib->wait_long, steps->begin, 0, NULL, NULL);
		ib->begun = true;
		/* no leaves: the index is complete, or gone */
		ib->finished = ib->leaves == NIL;
	}
	else if (ib->leaf < list_length(ib->leaves))
	{
		Oid			types[3] = {TEXTOID, INT8OID, OIDOID};
		Datum		extra[3] = {CStringGetTextDatum(list_nth(ib->leaves, ib->leaf)),
		Int64GetDatum(ib->block), ObjectIdGetDatum(ib->filenode)};
		List	   *next = index_build_step(b, ib->wait_long, steps->batch, 3, types, extra);

		if (next == NIL || linitial(next) == NULL)
		{
			ib->leaf++;
			ib->block = 0;
			ib->filenode = InvalidOid;
		}
		else
		{
			ib->block = pg_strtoint64(linitial(next));
			ib->filenode = (Oid) pg_strtoint64(lsecond(next));
		}
	}
	else
	{
		index_build_step(b, ib->wait_long, steps->end, 0, NULL, NULL);
		ib->finished = true;
	}
}

/*
 * index_build_try runs ib's next step; false when it had to wait for a
 * lock longer than the step waits (or was a deadlock's victim), so the
 * index is to be put aside.  Any other error ends its build: it stays
 * waiting, its error in the server log, for CALL ots.build_index.
 */
static bool
index_build_try(IndexBuild *ib, MemoryContext buildcxt)
{
	volatile bool done = true;

	PG_TRY();
	{
		index_build_next(ib);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(buildcxt);
		edata = CopyErrorData();
		/* a deadlock with its table's writers: they went on; so will it, later */
		if (edata->sqlerrcode == ERRCODE_LOCK_NOT_AVAILABLE ||
			edata->sqlerrcode == ERRCODE_T_R_DEADLOCK_DETECTED)
			done = false;
		else
		{
			EmitErrorReport();
			ib->finished = true;
		}
		FlushErrorState();
		FreeErrorData(edata);
		AbortCurrentTransaction();
		MemoryContextSwitchTo(buildcxt);
		pgstat_report_activity(STATE_IDLE, NULL);
	}
	PG_END_TRY();
	return done;
}

/*
 * index_build_put_aside notes the transactions that hold a lock conflicting
 * with SHARE on a relation ib's next step locks (the table's storage and
 * leaves, or the leaf of the batch: its writers) and, when there are any or
 * its step just waited too long (timed_out), puts ib aside until they have
 * ended, and INDEX_BUILD_POLL_MS at least; its step then waits for its
 * locks without a limit.  Returns whether it put ib aside.
 */
static bool
index_build_put_aside(IndexBuild *ib, bool timed_out, MemoryContext buildcxt)
{
	int			max = MaxBackends + max_prepared_xacts;
	int			n = 0;
	List	   *relids = NIL;
	ListCell   *lc;

	if (ib->holders == NULL)
		ib->holders = MemoryContextAlloc(buildcxt, sizeof(VirtualTransactionId) * (max + 1));
	StartTransactionCommand();
	if (!ib->begun)
	{
		Oid			base = storage_oid(get_namespace_oid(ib->step.schema, true), ib->base);

		if (OidIsValid(base))
			relids = find_all_inheritors(base, NoLock, NULL);
	}
	else if (ib->leaf < list_length(ib->leaves))
	{
		List	   *names = stringToQualifiedNameList(list_nth(ib->leaves, ib->leaf));
		Oid			leaf = RangeVarGetRelid(makeRangeVarFromNameList(names), NoLock, true);

		if (OidIsValid(leaf))
			relids = list_make1_oid(leaf);
	}
	foreach(lc, relids)
	{
		LOCKTAG		tag;

		SET_LOCKTAG_RELATION(tag, MyDatabaseId, lfirst_oid(lc));
		for (VirtualTransactionId *held = GetLockConflicts(&tag, ShareLock, NULL);
			 VirtualTransactionIdIsValid(*held); held++)
		{
			int			i = 0;

			while (i < n && !VirtualTransactionIdEquals(ib->holders[i], *held))
				i++;
			if (i == n && n < max)
				ib->holders[n++] = *held;
		}
	}
	SetInvalidVirtualTransactionId(ib->holders[n]);
	CommitTransactionCommand();
	MemoryContextSwitchTo(buildcxt);
	if (n == 0 && !timed_out)
		return false;
	ib->aside = true;
	ib->wait_long = true;
	ib->retry_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), INDEX_BUILD_POLL_MS);
	return true;
}

/* index_build_holders_running: has a transaction ib was put aside for not ended yet? */
static bool
index_build_holders_running(IndexBuild *ib)
{
	bool		running = false;

	StartTransactionCommand();
	for (VirtualTransactionId *h = ib->holders; !running && VirtualTransactionIdIsValid(*h); h++)
		running = !VirtualXactLock(*h, false);
	CommitTransactionCommand();
	return running;
}

/* index_build_search_catalog: has this database ots.search_indexes? */
static bool
index_build_search_catalog(void)
{
	MemoryContext callercxt = CurrentMemoryContext;
	bool		present;

	StartTransactionCommand();
	present = OidIsValid(get_relname_relid("search_indexes", get_namespace_oid("ots", true)));
	CommitTransactionCommand();
	MemoryContextSwitchTo(callercxt);
	return present;
}

/*
 * index_build_add_waiting adds to builds (a list of IndexBuild in
 * buildcxt) each index of owner in this database waiting for its build
 * that it does not hold yet; returns whether it added any
 */
static bool
index_build_add_waiting(List **builds, Oid owner, MemoryContext buildcxt)
{
	BuildStep	none = {NULL, NULL, BOOTSTRAP_SUPERUSERID};
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(owner)};
	MemoryContext old = MemoryContextSwitchTo(buildcxt);
	/* secondary indexes (false), then search indexes (true, named by their storage) */
	List	   *waiting = index_build_step(&none, false,
										   "SELECT false, o.schema_name, o.table_name, o.index_of, 0 FROM ots.tables o"
										   " JOIN pg_catalog.pg_namespace n"
										   " ON n.nspname OPERATOR(pg_catalog.=) o.schema_name"
										   " JOIN pg_catalog.pg_class c"
										   " ON c.relnamespace OPERATOR(pg_catalog.=) n.oid"
										   " AND c.relname OPERATOR(pg_catalog.=)"
										   " (o.table_name OPERATOR(pg_catalog.||) '" STORAGE_SUFFIX "')"
										   " WHERE o.index_phase OPERATOR(pg_catalog.=) 'FULL'"
										   " AND c.relowner OPERATOR(pg_catalog.=) $1"
										   " ORDER BY o.schema_name, o.table_name", 1, types, values);
	bool		added = false;

	/* a database not updated to 0.3.0 yet has no search indexes */
	if (index_build_search_catalog())
		waiting = list_concat(waiting,
							  index_build_step(&none, false,
											   "SELECT true, s.schema_name, s.storage_name, s.table_name, c.oid"
											   " FROM ots.search_indexes s"
											   " JOIN pg_catalog.pg_namespace n"
											   " ON n.nspname OPERATOR(pg_catalog.=) s.schema_name"
											   " JOIN pg_catalog.pg_class c"
											   " ON c.relnamespace OPERATOR(pg_catalog.=) n.oid"
											   " AND c.relname OPERATOR(pg_catalog.=) s.storage_name"
											   " WHERE s.sync_phase OPERATOR(pg_catalog.=) 'FULL'"
											   " AND c.relowner OPERATOR(pg_catalog.=) $1"
											   " ORDER BY s.schema_name, s.storage_name", 1, types, values));

	for (int i = 0; i + 4 < list_length(waiting); i += 5)
	{
		bool		search = strcmp(list_nth(waiting, i), "t") == 0;
		Oid			storage = (Oid) strtoul(list_nth(waiting, i + 4), NULL, 10);
		char	   *name = search ? psprintf("search index in %u", storage) :
			psprintf("%s.%s", (char *) list_nth(waiting, i + 1), (char *) list_nth(waiting, i + 2));
		ListCell   *lc;
		IndexBuild *ib;

		foreach(lc, *builds)
			if (strcmp(((IndexBuild *) lfirst(lc))->name, name) == 0)
				break;
		if (lc != NULL)
			continue;
		ib = palloc0(sizeof(IndexBuild));
		ib->steps = search ? search_steps(storage) : &secondary_steps;
		ib->step.schema = list_nth(waiting, i + 1);
		ib->step.index = list_nth(waiting, i + 2);
		ib->step.owner = owner;
		ib->base = list_nth(waiting, i + 3);
		ib->name = name;
		*builds = lappend(*builds, ib);
		added = true;
	}
	MemoryContextSwitchTo(old);
	return added;
}

/*
 * index_build_round runs one step of each index of builds that is not
 * finished or put aside; returns whether any remains to build, and sets
 * *wait_ms to how long the worker may sleep when none of them went on
 * (until the first one put aside is due to be looked at).
 */
static bool
index_build_round(List *builds, MemoryContext buildcxt, bool *went_on, long *wait_ms)
{
	ListCell   *lc;
	bool		remaining = false;

	*went_on = false;
	*wait_ms = INDEX_BUILD_POLL_MS;
	foreach(lc, builds)
	{
		IndexBuild *ib = lfirst(lc);
		TimestampTz now = GetCurrentTimestamp();

		CHECK_FOR_INTERRUPTS();
		if (ib->finished)
			continue;
		remaining = true;
		if (ib->aside)
		{
			if (ib->retry_at <= now && index_build_holders_running(ib))
				ib->retry_at = TimestampTzPlusMilliseconds(now, INDEX_BUILD_POLL_MS);
			if (ib->retry_at > now)
			{
				*wait_ms = Min(*wait_ms, TimestampDifferenceMilliseconds(now, ib->retry_at));
				continue;
			}
			ib->aside = false;
		}
		/* a step whose lock is held waits for the holders first, queueing no writer */
		else if (!ib->wait_long && index_build_put_aside(ib, false, buildcxt))
			continue;
		if (index_build_try(ib, buildcxt))
		{
			ib->wait_long = false;
			*went_on = true;
		}
		else
			(void) index_build_put_aside(ib, true, buildcxt);
	}
	return remaining;
}

/*
 * ots_index_build_main is the build worker of a role (the argument) in a
 * database (bgw_extra): holding the role's build lock there (a second
 * worker started meanwhile leaves at once), it builds every index the role
 * owns waiting for its build, once each (one that fails stays waiting, its
 * error in the server log, for CALL ots.build_index), taking new ones in as
 * their creators commit.  It takes the indexes' steps in turn, and puts
 * aside an index whose step's locks its table's writers hold until the
 * transactions holding them have ended, to take the step then, waiting as
 * long as it needs: a transaction left open on a table holds up that
 * table's build alone, and the builds of other roles not at all.  After
 * letting the lock go it looks once more, for an index whose creator
 * committed while its worker found the lock taken.
 */
void
ots_index_build_main(Datum arg)
{
	Oid			owner = DatumGetObjectId(arg);
	Oid			database;
	LOCKTAG		tag;
	MemoryContext buildcxt;
	List	   *builds = NIL;

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	memcpy(&database, MyBgworkerEntry->bgw_extra, sizeof(Oid));
	BackgroundWorkerInitializeConnectionByOid(database, InvalidOid, 0);
	/* field 4 = 5: no SQL advisory lock function reaches it (purge's is 4) */
	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, owner, 0x696e6478, 5);
	buildcxt = AllocSetContextCreate(TopMemoryContext, "ots index builds", ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(buildcxt);

	for (;;)
	{
		bool		went_on;
		long		wait_ms;

		if (LockAcquire(&tag, ExclusiveLock, true, true) == LOCKACQUIRE_NOT_AVAIL)
			break;
		(void) index_build_add_waiting(&builds, owner, buildcxt);
		while (index_build_round(builds, buildcxt, &went_on, &wait_ms))
		{
			if (!went_on)
			{
				(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
								 wait_ms, PG_WAIT_EXTENSION);
				ResetLatch(MyLatch);
			}
			(void) index_build_add_waiting(&builds, owner, buildcxt);
		}
		LockRelease(&tag, ExclusiveLock, true);
		if (!index_build_add_waiting(&builds, owner, buildcxt))
			break;
	}
	proc_exit(0);
}
