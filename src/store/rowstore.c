/*-------------------------------------------------------------------------
 * src/store/rowstore.c
 *	  Primary-key access to the rows of one leaf partition, straight through
 *	  the table AM and the leaf's indexes (no executor, no SQL).
 *
 * A single-row call costs about what the executor's own work on that row
 * costs, without planning, executor start-up or routing through the
 * partitioned parent.  Concurrency follows the executor's recipes, as
 * compare-and-swap: a writer reads the newest version of a row (as a new
 * statement would), decides on it, and updates or deletes exactly that
 * version by TID; if a concurrent writer replaced it first, the update
 * waits for that writer and reports it (READ COMMITTED: the caller reads
 * again and decides again, as EvalPlanQual re-checks a row; snapshot
 * isolation: a serialization failure).  A new key is inserted as INSERT ...
 * ON CONFLICT DO NOTHING inserts it (a speculative insertion that a
 * concurrent insert of the key defeats), and the caller then reads again.
 * Many rows at once are rowstore_bulk.c's, on the leaf access shared here
 * (rowstore_internal.h).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/relcache.h"
#include "utils/snapmgr.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "asrole.h"
#include "errors.h"
#include "store/announce.h"
#include "store/leaf.h"
#include "store/rowstore.h"
#include "store/rowstore_internal.h"
#include "store/rowsplit.h"
#include "subxact.h"

static Oid	rowstore_owner(const OtsTable *t);

static bool rowstore_insert_tuple(const RowKey *key, struct varlena *cells, int64 oldest_ts,
								  bool known_missing, struct varlena *view);
static bool rowstore_update_tuple(const RowKey *key, struct varlena *cells, int64 oldest_ts,
								  struct varlena *view);

static TupleTableSlot *rowstore_key_slot(Relation leaf, const LeafCache *lp, int nkeys,
										 const Datum *key, TupleTableSlot *base,
										 struct varlena *cells, int64 oldest_ts);

/* how many rounds a compare-and-swap may lose to concurrent writers (rowstore_cas_round) */
#define ROWSTORE_CAS_ROUNDS 1000

/* rowstore_privilege_names lists the privileges in mode: "SELECT, INSERT and UPDATE" */
static char *
rowstore_privilege_names(AclMode mode)
{
	static const struct
	{
		AclMode		bit;
		const char *name;
	}			privs[] = {{ACL_SELECT, "SELECT"}, {ACL_INSERT, "INSERT"},
	{ACL_UPDATE, "UPDATE"}, {ACL_DELETE, "DELETE"}};
	StringInfoData buf;
	int			total = 0;
	int			done = 0;

	for (int i = 0; i < lengthof(privs); i++)
		total += (mode & privs[i].bit) != 0;
	initStringInfo(&buf);
	for (int i = 0; i < lengthof(privs); i++)
	{
		if (!(mode & privs[i].bit))
			continue;
		if (done > 0)
			appendStringInfoString(&buf, done == total - 1 ? " and " : ", ");
		appendStringInfoString(&buf, privs[i].name);
		done++;
	}
	return buf.data;
}

/*
 * rowstore_check_privileges requires every privilege in mode on the
 * storage table (pg_class_aclcheck would accept any one of them), and
 * refuses the call when row-level security applies to the calling role on
 * the storage table: the row functions read and write the leaves directly
 * and apply no policies, so they must not run where plain SQL on "t$data"
 * would apply some.  That is when the table has row-level security enabled
 * and the role is neither its owner nor BYPASSRLS, or the table forces it
 * on its owner too; with row_security off, check_enable_rls raises
 * PostgreSQL's own error, as a query on the table would.  Every row
 * function calls this before it touches a row, so this is the one place
 * both rules are kept.  A secondary index is read with its base table's
 * rights (its own storage is its owner's alone), only once its backfill is
 * complete, and never written through the row functions.
 */
void
rowstore_check_privileges(const OtsTable *t, AclMode mode)
{
	/* an index is read with its base table's rights, and written only by its maintenance */
	if (t->is_index)
	{
		if (mode & ~ACL_SELECT)
			ots_error(PARAMETER_INVALID, "Can't write index table directly.");
		rowstore_check_privileges(catalog_index_base(t), mode);
		catalog_check_index_readable(t);
		return;
	}
	if (pg_class_aclmask(t->data_oid, GetUserId(), mode, ACLMASK_ALL) != mode)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for ots table %s",
						quote_qualified_identifier(t->schema_name, t->table_name)),
				 errdetail("This call needs %s on %s.", rowstore_privilege_names(mode),
						   storage_name(t))));
	if (check_enable_rls(t->data_oid, InvalidOid, false) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("row-level security applies to ots table %s",
						quote_qualified_identifier(t->schema_name, t->table_name)),
				 errdetail("Row-level security on %s applies to the current role, and ots "
						   "row functions do not apply row-level security policies.",
						   storage_name(t)),
				 errhint("Read %s with plain SQL, which applies the policies, "
						 "or call as a role they do not apply to: the table's owner "
						 "(without FORCE ROW LEVEL SECURITY) or a role with BYPASSRLS.",
						 storage_name(t))));
}

bool
rowstore_may_read(const OtsTable *t, Oid role)
{
	if (t->is_index)
		t = catalog_index_base(t);
	return pg_class_aclcheck(t->data_oid, role, ACL_SELECT) == ACLCHECK_OK &&
		check_enable_rls(t->data_oid, role, true) != RLS_ENABLED;
}

/* rowstore_owner is the owner of the table's storage, whom leaf access runs as */
static Oid
rowstore_owner(const OtsTable *t)
{
	Oid			owner = asrole_owner(t->data_oid);

	if (!OidIsValid(owner))
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	return owner;
}

void
rowstore_check_writable(const char *operation)
{
	PreventCommandIfReadOnly(operation);
	PreventCommandIfParallelMode(operation);
	PreventCommandDuringRecovery(operation);
}

/*
 * rowstore_open_indexes opens the leaf's indexes into rri (locked until the
 * end of the transaction) as ExecOpenIndices(rri, true) does, but builds
 * their IndexInfo (with the speculative-insertion information) once per leaf
 * rather than per call; an index OID names the same definition for life, so
 * the list of OIDs tells when to build again (whether the index takes
 * inserts yet, which CREATE INDEX CONCURRENTLY changes later, is read from
 * the relcache per call).  Only plain btree indexes
 * qualify: expressions and predicates keep per-call executor state in the
 * IndexInfo, and other access methods cache their own state there (ii_AmCache),
 * so a leaf with any other index gets a fresh IndexInfo per call.
 */
void
rowstore_open_indexes(Relation leaf, LeafCache *lp, ResultRelInfo *rri)
{
	List	   *oids = RelationGetIndexList(leaf);
	int			n = list_length(oids);
	int			i = 0;
	ListCell   *lc;

	if (!equal(oids, lp->index_oids))
	{
		MemoryContext old;

		if (lp->index_cxt == NULL)
			lp->index_cxt = AllocSetContextCreate(CacheMemoryContext, "ots leaf indexes",
												  ALLOCSET_SMALL_SIZES);
		MemoryContextReset(lp->index_cxt);
		lp->index_oids = NIL;
		old = MemoryContextSwitchTo(lp->index_cxt);
		lp->index_info = palloc(sizeof(IndexInfo *) * Max(n, 1));
		lp->index_info_shared = true;
		foreach(lc, oids)
		{
			Relation	index = index_open(lfirst_oid(lc), RowExclusiveLock);
			IndexInfo  *info = BuildIndexInfo(index);

			if (info->ii_Unique)
				BuildSpeculativeIndexInfo(index, info);
			if (index->rd_rel->relam != BTREE_AM_OID ||
				info->ii_Expressions != NIL || info->ii_Predicate != NIL)
				lp->index_info_shared = false;
			lp->index_info[i++] = info;
			index_close(index, NoLock);
		}
		lp->index_oids = list_copy(oids);
		MemoryContextSwitchTo(old);
	}
	if (!lp->index_info_shared)
	{
		ExecOpenIndices(rri, true);
		return;
	}
	rri->ri_NumIndices = n;
	rri->ri_IndexRelationDescs = palloc(sizeof(Relation) * Max(n, 1));
	rri->ri_IndexRelationInfo = lp->index_info;
	i = 0;
	foreach(lc, oids)
	{
		Relation	index = index_open(lfirst_oid(lc), RowExclusiveLock);

		rri->ri_IndexRelationDescs[i] = index;
		/* CREATE INDEX CONCURRENTLY makes an index ready later, under the same OID */
		lp->index_info[i]->ii_ReadyForInserts = index->rd_index->indisready;
		i++;
	}
}

/* rowstore_close_indexes closes what rowstore_open_indexes opened, keeping the locks */
void
rowstore_close_indexes(ResultRelInfo *rri)
{
	for (int i = 0; i < rri->ri_NumIndices; i++)
		index_close(rri->ri_IndexRelationDescs[i], NoLock);
	rri->ri_NumIndices = 0;
}

/*
 * rowstore_index_code_begin makes the code a leaf's indexes run on a write
 * (expressions, predicates, another access method's support functions) run
 * as the table's owner in a security-restricted operation with the search
 * path pinned (asrole), as VACUUM runs it: never with the caller's rights,
 * nor the caller's objects with the owner's.  It returns whether it
 * switched, for rowstore_index_code_end.  Plain btree indexes on the
 * storage's columns run no one's code (their operator classes are built in,
 * or a superuser's), so the common leaf costs nothing here.  Call after
 * rowstore_open_indexes, which tells which kind the leaf has.
 */
bool
rowstore_index_code_begin(const OtsTable *t, const LeafCache *lp, AsRole *saved)
{
	if (lp->index_info_shared)
		return false;
	asrole_enter(rowstore_owner(t), saved);
	return true;
}

/* rowstore_index_code_end ends what rowstore_index_code_begin began */
void
rowstore_index_code_end(bool switched, const AsRole *saved)
{
	if (switched)
		asrole_leave(saved);
}

/*
 * rowstore_open_for_write opens a leaf to write it, after locking its
 * storage table as INSERT through the storage would: every writer takes the
 * storage before a leaf, as LOCK TABLE on the storage does (an index build,
 * enabling a stream), so no writer holds a leaf while it waits for the
 * storage that such a lock holds while waiting for the leaf.
 */
Relation
rowstore_open_for_write(const OtsTable *t, Oid leaf_oid)
{
	LockRelationOid(t->data_oid, RowExclusiveLock);
	return table_open(leaf_oid, RowExclusiveLock);
}

/*
 * rowstore_fetch finds the row in the leaf's primary-key index, without
 * the executor, and returns its cells.  latest reads as a new statement
 * would (this transaction's earlier writes included, and in READ COMMITTED
 * everything committed until now) and records the version read in the key
 * for rowstore_update and rowstore_delete.  Index and heap access keep SSI
 * predicate locks and statistics; privileges were checked on the storage
 * table.
 */
static struct varlena *
rowstore_fetch_with(RowKey *key, Snapshot snapshot, LOCKMODE lockmode, const RowNeeds *needs)
{
	Relation	leaf = lockmode == RowExclusiveLock ? rowstore_open_for_write(key->t, key->leaf_oid) :
		table_open(key->leaf_oid, lockmode);
	LeafCache  *lp = leaf_attnums(key->t, key->leaf_oid);
	Relation	index;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	ScanKeyData skeys[OTS_MAX_KEY_COLUMNS + 1];
	struct varlena *cells = NULL;

	key->found = false;
	key->split = NULL;
	index = index_open(RelationGetPrimaryKeyIndex(leaf), lockmode);
	for (int k = 0; k < key->nkeys; k++)
	{
		RegProcedure eq = key->types[k] == INT8OID ? F_INT8EQ :
			key->types[k] == TEXTOID ? F_TEXTEQ : F_BYTEAEQ;

		ScanKeyInit(&skeys[k], k + 1, BTEqualStrategyNumber, eq, key->values[k]);
		skeys[k].sk_collation = index->rd_indcollation[k];
	}
	slot = table_slot_create(leaf, NULL);
	scan = index_beginscan(leaf, index, snapshot, key->nkeys, 0);
	index_rescan(scan, skeys, key->nkeys, NULL, 0);
	if (index_getnext_slot(scan, ForwardScanDirection, slot))
	{
		bool		isnull;
		Datum		d = slot_getattr(slot, lp->cells_attno, &isnull);

		key->tid = slot->tts_tid;
		key->found = true;
		if (!isnull)
			cells = PG_DETOAST_DATUM_COPY(d);
		key->old_cells = cells;
	}
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	index_close(index, NoLock);
	table_close(leaf, NoLock);
	/* a split row: the cells the caller needs, from its chunks, under the same snapshot */
	if (cells != NULL && needs != NULL && cells_is_head(cells))
		cells = rowsplit_load(key, cells, needs, snapshot);
	return cells;
}

struct varlena *
rowstore_fetch(RowKey *key, bool latest)
{
	return rowstore_fetch_row(key, latest, NULL);
}

struct varlena *
rowstore_fetch_row(RowKey *key, bool latest, const RowNeeds *needs)
{
	Snapshot	snapshot;
	struct varlena *cells;

	if (latest)
	{
		CommandCounterIncrement();
		snapshot = RegisterSnapshot(GetTransactionSnapshot());
	}
	else
		snapshot = RegisterSnapshot(GetActiveSnapshot());
	cells = rowstore_fetch_with(key, snapshot, latest ? RowExclusiveLock : AccessShareLock, needs);
	UnregisterSnapshot(snapshot);
	return cells;
}

/*
 * rowstore_fetch_self reads the newest version of a row as SnapshotSelf
 * sees it (committed, or written by this transaction, this command
 * included), with no new command: for a row only its writer's lock on
 * another row lets anyone change (an index entry, under its base row's),
 * from inside a statement that must not see its own changes otherwise.
 */
struct varlena *
rowstore_fetch_self(RowKey *key)
{
	return rowstore_fetch_with(key, SnapshotSelf, RowExclusiveLock, NULL);
}

bool
rowstore_fetched_own(const RowKey *key)
{
	Relation	leaf = table_open(key->leaf_oid, AccessShareLock);
	HeapTupleData tuple;
	Buffer		buffer;
	bool		own = false;

	tuple.t_self = key->tid;
	if (heap_fetch(leaf, SnapshotAny, &tuple, &buffer, false))
	{
		own = TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetRawXmin(tuple.t_data));
		ReleaseBuffer(buffer);
	}
	table_close(leaf, AccessShareLock);
	return own;
}

/*
 * rowstore_lock_newest locks the newest version of a row whose version at
 * tid a concurrent writer replaced, as EvalPlanQual does before it checks
 * the row again: the writers that waited for that writer then take their
 * turns on the row in the order they came, whichever of them is quicker to
 * read the row again.  Whatever happened to the row meanwhile, the caller
 * reads it again.
 */
static void
rowstore_lock_newest(Relation leaf, ItemPointer tid, LockTupleMode mode)
{
	TupleTableSlot *slot = table_slot_create(leaf, NULL);
	TM_FailureData tmfd;

	(void) table_tuple_lock(leaf, tid, GetActiveSnapshot(), slot, GetCurrentCommandId(true),
							mode, LockWaitBlock, TUPLE_LOCK_FLAG_FIND_LAST_VERSION, &tmfd);
	ExecDropSingleTupleTableSlot(slot);
}

/*
 * rowstore_replaced handles the outcome of an update or delete of the
 * version read: false when a concurrent writer replaced or deleted it
 * first (the caller reads again, the newest version locked for it), a
 * serialization failure under snapshot isolation, as the executor raises
 * for UPDATE and DELETE.
 */
static bool
rowstore_replaced(Relation leaf, TM_Result result, TM_FailureData *tmfd, LockTupleMode mode,
				  const char *what)
{
	switch (result)
	{
		case TM_Ok:
			return true;
		case TM_Updated:
		case TM_Deleted:
			if (IsolationUsesXactSnapshot())
				ereport(ERROR,
						(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
						 errmsg("could not serialize access due to concurrent %s",
								result == TM_Updated ? "update" : "delete")));
			if (result == TM_Updated)
				rowstore_lock_newest(leaf, &tmfd->ctid, mode);
			return false;
		default:
			elog(ERROR, "unexpected result %d %s an ots row", (int) result, what);
	}
	return false;
}

/*
 * rowstore_key_slot fills a virtual slot of the leaf with a new row version:
 * the stored key values, cells and oldest_ts, and every other column of
 * base (the version it replaces; NULL for a new row).
 */
static TupleTableSlot *
rowstore_key_slot(Relation leaf, const LeafCache *lp, int nkeys, const Datum *key,
				  TupleTableSlot *base, struct varlena *cells, int64 oldest_ts)
{
	TupleTableSlot *slot = MakeSingleTupleTableSlot(RelationGetDescr(leaf), &TTSOpsVirtual);

	return rowstore_fill_slot(slot, lp, nkeys, key, base, cells, oldest_ts);
}

/* rowstore_fill_slot stores that row version in a virtual slot of the leaf */
TupleTableSlot *
rowstore_fill_slot(TupleTableSlot *slot, const LeafCache *lp, int nkeys, const Datum *key,
				   TupleTableSlot *base, struct varlena *cells, int64 oldest_ts)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;

	ExecClearTuple(slot);
	if (base != NULL)
	{
		slot_getallattrs(base);
		memcpy(slot->tts_values, base->tts_values, sizeof(Datum) * desc->natts);
		memcpy(slot->tts_isnull, base->tts_isnull, sizeof(bool) * desc->natts);
	}
	else
	{
		memset(slot->tts_isnull, true, sizeof(bool) * desc->natts);
		for (int k = 0; k < nkeys; k++)
		{
			slot->tts_values[lp->key_attnos[k] - 1] = key[k];
			slot->tts_isnull[lp->key_attnos[k] - 1] = false;
		}
	}
	slot->tts_values[lp->cells_attno - 1] = PointerGetDatum(cells);
	slot->tts_isnull[lp->cells_attno - 1] = false;
	slot->tts_values[lp->oldest_attno - 1] = Int64GetDatum(oldest_ts);
	slot->tts_isnull[lp->oldest_attno - 1] = false;
	return ExecStoreVirtualTuple(slot);
}

/*
 * rowstore_check_conflict is the executor's pre-check of INSERT ... ON
 * CONFLICT (ExecCheckIndexConstraints): false when the key exists.  Under
 * snapshot isolation an existing key the snapshot cannot see is a
 * serialization failure, as ExecCheckTIDVisible makes it.
 */
static bool
rowstore_check_conflict(Relation leaf, ResultRelInfo *rri, TupleTableSlot *slot,
						EState *estate, List *arbiters)
{
	ItemPointerData conflict;
	TupleTableSlot *existing;

	if (ExecCheckIndexConstraints(rri, slot, estate, &conflict, arbiters))
		return true;
	if (!IsolationUsesXactSnapshot())
		return false;
	existing = table_slot_create(leaf, &estate->es_tupleTable);
	if (!table_tuple_fetch_row_version(leaf, &conflict, SnapshotAny, existing))
		elog(ERROR, "failed to fetch conflicting ots row");
	if (!table_tuple_satisfies_snapshot(leaf, existing, GetActiveSnapshot()))
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("could not serialize access due to concurrent update")));
	return false;
}

/*
 * rowstore_insert adds the row the way INSERT ... ON CONFLICT DO NOTHING
 * does (nodeModifyTable.c), without the executor: a speculative heap insert
 * that is confirmed only if no concurrent insert of the same key got in
 * first, so two sessions never both create a key.  The executor's pre-check
 * of the key costs an index descent per insert; it runs only when the key
 * may well exist (the caller did not just find it missing, and the leaf's
 * last such insert hit an existing key) and after a conflict, where it
 * finds the existing row (nodeModifyTable's "vlock" retry).  The leaf's own
 * partition constraint needs no check: routing chose the leaf from that
 * very key.
 */
bool
rowstore_insert(const RowKey *key, struct varlena *cells, int64 oldest_ts, bool known_missing)
{
	RowSplitPlan *plan;
	struct varlena *head;
	int64		head_oldest;

	if (!rowsplit_needs_split(key->t, cells))
		return rowstore_insert_tuple(key, cells, oldest_ts, known_missing, NULL);
	/* a new row too large to stay inline: its head, then its chunks */
	plan = rowsplit_prepare(key, NULL, cells, oldest_ts, &head, &head_oldest);
	if (!rowstore_insert_tuple(key, head, head_oldest, known_missing, cells))
		return false;
	rowsplit_finish(key, plan);
	return true;
}

/*
 * rowstore_insert_tuple inserts the row's tuple (its cells, or a split
 * row's head, whose cells, view, the write point gets instead)
 */
static bool
rowstore_insert_tuple(const RowKey *key, struct varlena *cells, int64 oldest_ts,
					  bool known_missing, struct varlena *view)
{
	Relation	leaf = rowstore_open_for_write(key->t, key->leaf_oid);
	LeafCache  *lp = leaf_attnums(key->t, key->leaf_oid);
	EState	   *estate = CreateExecutorState();
	ResultRelInfo *rri = makeNode(ResultRelInfo);
	TupleTableSlot *slot;
	List	   *arbiters;
	bool		precheck;
	bool		inserted = false;
	AsRole		saved;
	bool		as_owner;

	InitResultRelInfo(rri, leaf, 0, NULL, 0);
	rowstore_open_indexes(leaf, lp, rri);
	arbiters = list_make1_oid(RelationGetPrimaryKeyIndex(leaf));
	slot = rowstore_key_slot(leaf, lp, key->nkeys, key->values, NULL, cells, oldest_ts);
	precheck = !known_missing && lp->keys_exist;

	as_owner = rowstore_index_code_begin(key->t, lp, &saved);
	for (;;)
	{
		TransactionId xid;
		uint32		token;
		bool		conflicted = false;

		if (precheck && !rowstore_check_conflict(leaf, rri, slot, estate, arbiters))
			break;
		xid = GetCurrentTransactionId();
		token = SpeculativeInsertionLockAcquire(xid);
		announce_row(key->t, key->leaf_oid, slot, lp->cells_attno, NULL, key->change);
		announce_row_new_cells(view);
		table_tuple_insert_speculative(leaf, slot, GetCurrentCommandId(true), 0, NULL, token);
		ExecInsertIndexTuples(rri, slot, estate, false, true, &conflicted, arbiters);
		announce_row(key->t, key->leaf_oid, slot, lp->cells_attno, NULL, key->change);
		announce_row_new_cells(view);
		table_tuple_complete_speculative(leaf, slot, token, !conflicted);
		announce_end();
		SpeculativeInsertionLockRelease(xid);
		if (!conflicted)
		{
			inserted = true;
			break;
		}
		CHECK_FOR_INTERRUPTS();
		precheck = true;
	}
	rowstore_index_code_end(as_owner, &saved);
	if (!known_missing)
		lp->keys_exist = !inserted;

	ExecDropSingleTupleTableSlot(slot);
	rowstore_close_indexes(rri);
	ExecResetTupleTable(estate->es_tupleTable, false);
	FreeExecutorState(estate);
	table_close(leaf, NoLock);
	return inserted;
}

/*
 * rowstore_insert_plain adds a row whose key no one else can be writing
 * (an index entry: its base row's writer holds that row's lock), as a
 * plain INSERT does: no speculative insertion, which cannot nest inside
 * another one's confirmation, where index maintenance runs.  A concurrent
 * insert of the key is a unique violation.
 */
void
rowstore_insert_plain(const RowKey *key, struct varlena *cells, int64 oldest_ts)
{
	Relation	leaf = rowstore_open_for_write(key->t, key->leaf_oid);
	LeafCache  *lp = leaf_attnums(key->t, key->leaf_oid);
	EState	   *estate = CreateExecutorState();
	ResultRelInfo *rri = makeNode(ResultRelInfo);
	TupleTableSlot *slot;
	AsRole		saved;
	bool		as_owner;

	InitResultRelInfo(rri, leaf, 0, NULL, 0);
	rowstore_open_indexes(leaf, lp, rri);
	slot = rowstore_key_slot(leaf, lp, key->nkeys, key->values, NULL, cells, oldest_ts);
	announce_row(key->t, key->leaf_oid, slot, lp->cells_attno, NULL, key->change);
	table_tuple_insert(leaf, slot, GetCurrentCommandId(true), 0, NULL);
	announce_end();
	as_owner = rowstore_index_code_begin(key->t, lp, &saved);
	ExecInsertIndexTuples(rri, slot, estate, false, false, NULL, NIL);
	rowstore_index_code_end(as_owner, &saved);

	ExecDropSingleTupleTableSlot(slot);
	rowstore_close_indexes(rri);
	ExecResetTupleTable(estate->es_tupleTable, false);
	FreeExecutorState(estate);
	table_close(leaf, NoLock);
}

/*
 * rowstore_index_version adds index entries for a row version that
 * table_tuple_update could not make a HOT update (the page was full, or an
 * indexed column changed).
 */
static void
rowstore_index_version(const OtsTable *t, Relation leaf, LeafCache *lp, TupleTableSlot *slot)
{
	EState	   *estate = CreateExecutorState();
	ResultRelInfo *rri = makeNode(ResultRelInfo);
	AsRole		saved;
	bool		as_owner;

	InitResultRelInfo(rri, leaf, 0, NULL, 0);
	rowstore_open_indexes(leaf, lp, rri);
	as_owner = rowstore_index_code_begin(t, lp, &saved);
	ExecInsertIndexTuples(rri, slot, estate, false, false, NULL, NIL);
	rowstore_index_code_end(as_owner, &saved);
	rowstore_close_indexes(rri);
	FreeExecutorState(estate);
}

/*
 * rowstore_update replaces the cells of the row version rowstore_fetch
 * read, in place of an UPDATE; false when a concurrent writer got there
 * first.  Columns ots does not know about keep their values.  A split row
 * read by rowstore_fetch_row gets cells over the ranges it loaded, and a
 * row too large to stay inline is split: the head is written first, as
 * the row's compare-and-swap, then the chunks.
 */
bool
rowstore_update(const RowKey *key, struct varlena *cells, int64 oldest_ts)
{
	RowSplitPlan *plan;
	struct varlena *head;
	int64		head_oldest;

	if (key->split == NULL && !rowsplit_needs_split(key->t, cells))
		return rowstore_update_tuple(key, cells, oldest_ts, NULL);
	plan = rowsplit_prepare(key, key->split, cells, oldest_ts, &head, &head_oldest);
	if (!rowstore_update_tuple(key, head, head_oldest, cells))
		return false;
	rowsplit_finish(key, plan);
	return true;
}

/*
 * rowstore_update_tuple replaces the row's tuple (view: the row's cells
 * the write point gets, when the tuple holds a split row's head)
 */
static bool
rowstore_update_tuple(const RowKey *key, struct varlena *cells, int64 oldest_ts,
					  struct varlena *view)
{
	LeafCache  *lp;
	Relation	leaf;
	TupleTableSlot *old;
	TupleTableSlot *slot;
	ItemPointerData tid = key->tid;
	TM_FailureData tmfd;
	LockTupleMode lockmode;
	bool		update_indexes;
	TM_Result	result;
	bool		done;

	if (!key->found)
		elog(ERROR, "ots row to update was not read");
	leaf = rowstore_open_for_write(key->t, key->leaf_oid);
	lp = leaf_attnums(key->t, key->leaf_oid);
	old = table_slot_create(leaf, NULL);
	if (!table_tuple_fetch_row_version(leaf, &tid, SnapshotAny, old))
		elog(ERROR, "failed to fetch ots row version");
	slot = rowstore_key_slot(leaf, lp, key->nkeys, key->values, old, cells, oldest_ts);
	announce_row(key->t, key->leaf_oid, slot, lp->cells_attno,
				 key->split != NULL ? key->split->view : key->old_cells, key->change);
	announce_row_new_cells(view != cells ? view : NULL);
	/* the update sets lockmode: a call of its own, before lockmode is read */
	result = table_tuple_update(leaf, &tid, slot, GetCurrentCommandId(true),
								GetActiveSnapshot(), InvalidSnapshot, true,
								&tmfd, &lockmode, &update_indexes);
	done = rowstore_replaced(leaf, result, &tmfd, lockmode, "updating");
	announce_end();
	if (done && update_indexes)
		rowstore_index_version(key->t, leaf, lp, slot);
	ExecDropSingleTupleTableSlot(slot);
	ExecDropSingleTupleTableSlot(old);
	table_close(leaf, NoLock);
	return done;
}

/*
 * rowstore_put writes a row whatever is stored under its key, as an
 * unconditional PutRow: over the newest version, with the cells replacing
 * returns for it (no replacing, or NULL from it: the cells given; nothing
 * when it says keep), else as a new row.  False, having written nothing, when a concurrent writer
 * replaced or deleted that version, or inserted the key, first: the caller
 * tries again.  key->found tells whether a stored row was replaced.
 */
bool
rowstore_put(RowKey *key, struct varlena *cells, int64 oldest_ts,
			 RowstoreReplacing replacing, void *arg, int row)
{
	RowNeeds	needs;
	struct varlena *old;
	struct varlena *over;
	int64		over_oldest = oldest_ts;
	bool		keep = false;

	/* a split row is replaced whole: read what its indexes and its stream record need */
	rowneeds_init_write(&needs, key->t);
	needs.replacing = true;
	old = rowstore_fetch_row(key, true, &needs);

	if (old == NULL)
		return rowstore_insert(key, cells, oldest_ts, true);
	over = replacing != NULL ? replacing(arg, row, old, &over_oldest, &keep) : NULL;
	return keep || rowstore_update(key, over != NULL ? over : cells, over_oldest);
}

/*
 * rowstore_delete removes the row version rowstore_fetch read, in place of
 * a DELETE; false when a concurrent writer got there first.
 */
bool
rowstore_delete(const RowKey *key)
{
	Relation	leaf;
	ItemPointerData tid = key->tid;
	TM_FailureData tmfd;
	bool		done;

	if (!key->found)
		elog(ERROR, "ots row to delete was not read");
	leaf = rowstore_open_for_write(key->t, key->leaf_oid);
	announce_row(key->t, key->leaf_oid, NULL, 0,
				 key->split != NULL ? key->split->view : key->old_cells, key->change);
	done = rowstore_replaced(leaf,
							 table_tuple_delete(leaf, &tid, GetCurrentCommandId(true),
												GetActiveSnapshot(), InvalidSnapshot, true,
												&tmfd, false),
							 &tmfd, LockTupleExclusive, "deleting");
	announce_end();
	table_close(leaf, NoLock);
	/* a split row's head is gone: its chunks go too */
	if (done && key->split != NULL)
		rowsplit_delete_chunks(key);
	return done;
}

/*
 * rowstore_cas_round begins round `round` (from 0) of a caller's
 * compare-and-swap over a row: read it, decide, write exactly the version
 * read (rowstore_update, rowstore_delete, rowstore_insert and rowstore_put
 * return false when a concurrent writer got there first, and the caller
 * goes round again).  After ROWSTORE_CAS_ROUNDS rounds lost to concurrent
 * writers the call gives up with OTSRowOperationConflict.
 */
void
rowstore_cas_round(int round)
{
	CHECK_FOR_INTERRUPTS();
	if (round >= ROWSTORE_CAS_ROUNDS)
		ots_error(ROW_OPERATION_CONFLICT, "Data is being modified by the other request.");
}
