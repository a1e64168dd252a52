/*-------------------------------------------------------------------------
 * src/rowstore.c
 *	  Primary-key access to the rows of one leaf partition, straight through
 *	  the table AM and the leaf's indexes (no executor, no SQL), and bulk
 *	  statements for batches.
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
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
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
#include "storage/lmgr.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "tcop/utility.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/relcache.h"
#include "utils/snapmgr.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "asrole.h"
#include "errors.h"
#include "rowstore.h"
#include "subxact.h"

typedef struct LeafCache
{
	Oid			leaf_oid;		/* hash key */
	/* the leaf's attribute numbers, for direct access; cells_attno 0 = not looked up */
	AttrNumber	cells_attno;
	AttrNumber	oldest_attno;
	AttrNumber	key_attnos[OTS_MAX_PK_COLUMNS + 1];
	/* the last insert of a key not known to be new found it existing */
	bool		keys_exist;
	/* the leaf's indexes and their IndexInfo, built once (rowstore_open_indexes) */
	MemoryContext index_cxt;
	List	   *index_oids;
	IndexInfo **index_info;
	bool		index_info_shared;	/* false: an index keeps per-call state in it */
} LeafCache;

static HTAB *leaf_cache = NULL;

static LeafCache *rowstore_leaf(Oid leaf_oid);
static void rowstore_invalidate(Datum arg, Oid relid);

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
 * both rules are kept.
 */
void
rowstore_check_privileges(const OtsTable *t, AclMode mode)
{
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

Oid
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

/* rowstore_init registers the leaf cache's invalidation; called from _PG_init */
void
rowstore_init(void)
{
	CacheRegisterRelcacheCallback(rowstore_invalidate, (Datum) 0);
}

/*
 * rowstore_invalidate forgets where a leaf's columns are when its relcache
 * entry is invalidated (ALTER TABLE ... DROP/ADD COLUMN among others;
 * InvalidOid: every relation), so the next access looks them up again.  It
 * runs inside invalidation processing: it only marks entries.  Accesses
 * look the columns up with the leaf locked, so they cannot change between
 * the lookup and the use.  The index list is compared on every access
 * (rowstore_open_indexes) and needs nothing here.
 */
static void
rowstore_invalidate(Datum arg, Oid relid)
{
	LeafCache  *lp;

	if (leaf_cache == NULL)
		return;
	if (OidIsValid(relid))
	{
		lp = hash_search(leaf_cache, &relid, HASH_FIND, NULL);
		if (lp != NULL)
			lp->cells_attno = 0;
	}
	else
	{
		HASH_SEQ_STATUS seq;

		hash_seq_init(&seq, leaf_cache);
		while ((lp = hash_seq_search(&seq)) != NULL)
			lp->cells_attno = 0;
	}
}

/* rowstore_leaf returns the leaf's cache entry, creating it empty */
static LeafCache *
rowstore_leaf(Oid leaf_oid)
{
	LeafCache  *lp;
	bool		found;

	if (leaf_cache == NULL)
	{
		HASHCTL		ctl;

		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(LeafCache);
		ctl.hcxt = CacheMemoryContext;
		leaf_cache = hash_create("ots leaf cache", 256, &ctl,
								 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	lp = hash_search(leaf_cache, &leaf_oid, HASH_ENTER, &found);
	if (!found)
	{
		lp->cells_attno = 0;
		lp->keys_exist = false;
		lp->index_cxt = NULL;
		lp->index_oids = NIL;
		lp->index_info = NULL;
		lp->index_info_shared = false;
	}
	return lp;
}

/* rowstore_attnums looks up, once per leaf, where its columns are */
static void
rowstore_attnums(const OtsTable *t, Oid leaf_oid, LeafCache *lp)
{
	int			nkeys = storage_nkeys(t);
	AttrNumber	keys[OTS_MAX_PK_COLUMNS + 1];
	AttrNumber	oldest;
	AttrNumber	cells;

	if (lp->cells_attno != 0)
		return;
	for (int k = 0; k < nkeys; k++)
		if ((keys[k] = get_attnum(leaf_oid, storage_key_column(t, k))) == InvalidAttrNumber)
			catalog_report_damaged(t, psprintf("partition %s of its storage table lacks key column %s",
											   quote_identifier(get_rel_name(leaf_oid)),
											   quote_identifier(storage_key_column(t, k))));
	oldest = get_attnum(leaf_oid, STORAGE_OLDEST_TS_COLUMN);
	cells = get_attnum(leaf_oid, STORAGE_CELLS_COLUMN);
	if (cells == InvalidAttrNumber || oldest == InvalidAttrNumber)
		catalog_report_damaged(t, psprintf("partition %s of its storage table lacks its "
										   STORAGE_CELLS_SQL " or " STORAGE_OLDEST_TS_SQL " column",
										   quote_identifier(get_rel_name(leaf_oid))));
	/* filled only when complete: cells_attno marks the entry as looked up */
	memcpy(lp->key_attnos, keys, sizeof(AttrNumber) * nkeys);
	lp->oldest_attno = oldest;
	lp->cells_attno = cells;
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
static void
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
static void
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
static bool
rowstore_index_code_begin(const OtsTable *t, const LeafCache *lp, AsRole *saved)
{
	if (lp->index_info_shared)
		return false;
	asrole_enter(rowstore_owner(t), saved);
	return true;
}

/* rowstore_index_code_end ends what rowstore_index_code_begin began */
static void
rowstore_index_code_end(bool switched, const AsRole *saved)
{
	if (switched)
		asrole_leave(saved);
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
struct varlena *
rowstore_fetch(RowKey *key, bool latest)
{
	LeafCache  *lp = rowstore_leaf(key->leaf_oid);
	LOCKMODE	lockmode = latest ? RowExclusiveLock : AccessShareLock;
	Relation	leaf = table_open(key->leaf_oid, lockmode);
	Relation	index;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	ScanKeyData skeys[OTS_MAX_PK_COLUMNS + 1];
	Snapshot	snapshot;
	struct varlena *cells = NULL;

	if (latest)
	{
		CommandCounterIncrement();
		snapshot = RegisterSnapshot(GetTransactionSnapshot());
	}
	else
		snapshot = RegisterSnapshot(GetActiveSnapshot());
	key->found = false;

	rowstore_attnums(key->t, key->leaf_oid, lp);
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
	}
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	index_close(index, NoLock);
	table_close(leaf, NoLock);
	UnregisterSnapshot(snapshot);
	return cells;
}

/*
 * rowstore_replaced handles the outcome of an update or delete of the
 * version read: false when a concurrent writer replaced or deleted it
 * first (the caller reads again), a serialization failure under snapshot
 * isolation, as the executor raises for UPDATE and DELETE.
 */
static bool
rowstore_replaced(TM_Result result, const char *what)
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
	TupleDesc	desc = RelationGetDescr(leaf);
	TupleTableSlot *slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);

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
	LeafCache  *lp = rowstore_leaf(key->leaf_oid);
	Relation	leaf = table_open(key->leaf_oid, RowExclusiveLock);
	EState	   *estate = CreateExecutorState();
	ResultRelInfo *rri = makeNode(ResultRelInfo);
	TupleTableSlot *slot;
	List	   *arbiters;
	bool		precheck;
	bool		inserted = false;
	AsRole		saved;
	bool		as_owner;

	rowstore_attnums(key->t, key->leaf_oid, lp);
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
		table_tuple_insert_speculative(leaf, slot, GetCurrentCommandId(true), 0, NULL, token);
		ExecInsertIndexTuples(rri, slot, estate, false, true, &conflicted, arbiters);
		table_tuple_complete_speculative(leaf, slot, token, !conflicted);
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
 * first.  Columns ots does not know about keep their values.
 */
bool
rowstore_update(const RowKey *key, struct varlena *cells, int64 oldest_ts)
{
	LeafCache  *lp = rowstore_leaf(key->leaf_oid);
	Relation	leaf;
	TupleTableSlot *old;
	TupleTableSlot *slot;
	ItemPointerData tid = key->tid;
	TM_FailureData tmfd;
	LockTupleMode lockmode;
	bool		update_indexes;
	bool		done;

	if (!key->found)
		elog(ERROR, "ots row to update was not read");
	leaf = table_open(key->leaf_oid, RowExclusiveLock);
	rowstore_attnums(key->t, key->leaf_oid, lp);
	old = table_slot_create(leaf, NULL);
	if (!table_tuple_fetch_row_version(leaf, &tid, SnapshotAny, old))
		elog(ERROR, "failed to fetch ots row version");
	slot = rowstore_key_slot(leaf, lp, key->nkeys, key->values, old, cells, oldest_ts);
	done = rowstore_replaced(table_tuple_update(leaf, &tid, slot, GetCurrentCommandId(true),
												GetActiveSnapshot(), InvalidSnapshot, true,
												&tmfd, &lockmode, &update_indexes),
							 "updating");
	if (done && update_indexes)
		rowstore_index_version(key->t, leaf, lp, slot);
	ExecDropSingleTupleTableSlot(slot);
	ExecDropSingleTupleTableSlot(old);
	table_close(leaf, NoLock);
	return done;
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
	leaf = table_open(key->leaf_oid, RowExclusiveLock);
	done = rowstore_replaced(table_tuple_delete(leaf, &tid, GetCurrentCommandId(true),
												GetActiveSnapshot(), InvalidSnapshot, true,
												&tmfd, false),
							 "deleting");
	table_close(leaf, NoLock);
	return done;
}

/* ---- many rows at once ---- */

/* a table's saved upsert statement, for batches of rows of which some exist */
typedef struct BulkPlans
{
	Oid			data_oid;		/* hash key */
	SPIPlanPtr	upsert;
} BulkPlans;

static HTAB *bulk_plans = NULL;

/*
 * rowstore_bulk_sql writes the upsert statement through the partitioned
 * table (one statement for many rows, so routing per row is the
 * executor's): the key columns and their unnest() parameters come from the
 * table's schema.  It runs as the table's owner: every function in it is
 * schema-qualified, and it has no operator (ON CONFLICT finds its index by
 * the columns).
 */
static char *
rowstore_bulk_sql(const OtsTable *t)
{
	StringInfoData cols;
	StringInfoData args;
	StringInfoData sql;
	int			nkeys = storage_nkeys(t);
	char	   *parent = storage_name(t);

	initStringInfo(&cols);
	initStringInfo(&args);
	for (int k = 0; k < nkeys; k++)
	{
		appendStringInfo(&cols, "%s%s", k > 0 ? ", " : "", quote_identifier(storage_key_column(t, k)));
		appendStringInfo(&args, "%spg_catalog.unnest($%d)", k > 0 ? ", " : "", k + 1);
	}
	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "INSERT INTO %s (%s, " STORAGE_CELLS_SQL ", " STORAGE_OLDEST_TS_SQL ")"
					 " SELECT * FROM ROWS FROM (%s, pg_catalog.unnest($%d), pg_catalog.unnest($%d))"
					 " ON CONFLICT (%s) DO UPDATE SET " STORAGE_CELLS_SQL " = EXCLUDED." STORAGE_CELLS_SQL ","
					 " " STORAGE_OLDEST_TS_SQL " = EXCLUDED." STORAGE_OLDEST_TS_SQL,
					 parent, cols.data, args.data, nkeys + 1, nkeys + 2, cols.data);
	return sql.data;
}

/* rowstore_bulk_plan returns the table's saved upsert statement */
static SPIPlanPtr
rowstore_bulk_plan(const OtsTable *t)
{
	BulkPlans  *bp;
	bool		found;
	SPIPlanPtr *slot;

	if (bulk_plans == NULL)
	{
		HASHCTL		ctl;

		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(BulkPlans);
		ctl.hcxt = CacheMemoryContext;
		bulk_plans = hash_create("ots bulk plans", 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	bp = hash_search(bulk_plans, &t->data_oid, HASH_ENTER, &found);
	if (!found)
		bp->upsert = NULL;
	slot = &bp->upsert;
	if (*slot != NULL && !SPI_plan_is_valid(*slot))
	{
		SPI_freeplan(*slot);
		*slot = NULL;
	}
	if (*slot == NULL)
	{
		int			nkeys = storage_nkeys(t);
		Oid			types[OTS_MAX_PK_COLUMNS + 3];
		SPIPlanPtr	plan;

		for (int k = 0; k < nkeys; k++)
			types[k] = get_array_type(storage_key_type(t, k));
		types[nkeys] = get_array_type(storage_cells_type());
		types[nkeys + 1] = INT8ARRAYOID;
		plan = SPI_prepare(rowstore_bulk_sql(t), nkeys + 2, types);
		if (plan == NULL)
			elog(ERROR, "could not prepare ots bulk statement: %s",
				 SPI_result_code_string(SPI_result));
		if (SPI_keepplan(plan) != 0)
			elog(ERROR, "could not save ots bulk statement");
		*slot = plan;
	}
	return *slot;
}

/* rowstore_bulk_run executes the upsert statement (SPI connected, as the owner) */
static void
rowstore_bulk_run(const OtsTable *t, Datum *params)
{
	int			ret = SPI_execute_plan(rowstore_bulk_plan(t), params, NULL, false, 0);

	if (ret < 0)
		elog(ERROR, "ots bulk statement failed: %s", SPI_result_code_string(ret));
}

/*
 * the rows of one bulk write: keys[k][i] is stored key column k of row i,
 * leaves[i] the leaf that holds row i (cells and oldest_ts only for puts)
 */
typedef struct BulkRows
{
	const OtsTable *t;
	int			nrows;
	Datum	   *keys[OTS_MAX_PK_COLUMNS + 1];
	Datum	   *cells;
	Datum	   *oldest_ts;
	Oid		   *leaves;
} BulkRows;

/*
 * rowstore_row_order orders two rows of a bulk write (row numbers) by leaf,
 * then by stored key as the leaf's primary-key index does: column by column,
 * the hash prefix first, int8 signed, text (COLLATE "C") and bytea bytewise.
 */
static int
rowstore_row_order(const void *a, const void *b, void *arg)
{
	const BulkRows *rows = arg;
	int			x = *(const int *) a;
	int			y = *(const int *) b;
	int			nkeys = storage_nkeys(rows->t);

	if (rows->leaves[x] != rows->leaves[y])
		return rows->leaves[x] < rows->leaves[y] ? -1 : 1;
	for (int k = 0; k < nkeys; k++)
	{
		Datum		dx = rows->keys[k][x];
		Datum		dy = rows->keys[k][y];

		if (storage_key_type(rows->t, k) == INT8OID)
		{
			int64		ix = DatumGetInt64(dx);
			int64		iy = DatumGetInt64(dy);

			if (ix != iy)
				return ix < iy ? -1 : 1;
		}
		else
		{
			bytea	   *vx = DatumGetByteaPP(dx);
			bytea	   *vy = DatumGetByteaPP(dy);
			Size		lx = VARSIZE_ANY_EXHDR(vx);
			Size		ly = VARSIZE_ANY_EXHDR(vy);
			int			c = memcmp(VARDATA_ANY(vx), VARDATA_ANY(vy), Min(lx, ly));

			if (c != 0)
				return c < 0 ? -1 : 1;
			if (lx != ly)
				return lx < ly ? -1 : 1;
		}
	}
	return 0;
}

/*
 * rowstore_sort_rows returns the rows of a bulk write in one order that
 * depends only on the keys, not on the request: by leaf, then by stored
 * key (rowstore_row_order).  Every bulk write takes its rows' locks in this
 * order (new rows inserted leaf by leaf, the upsert statement in array
 * order, deletes key by key), so two batches that share keys, in whatever request order, wait
 * for each other at their first common key instead of deadlocking.
 */
static BulkRows
rowstore_sort_rows(const OtsTable *t, int nrows, Datum **keys, Datum *cells, Datum *oldest_ts)
{
	int			nkeys = storage_nkeys(t);
	BulkRows	in = {t, nrows};
	BulkRows	out = {t, nrows};
	int		   *order = palloc(sizeof(int) * nrows);

	in.leaves = palloc(sizeof(Oid) * nrows);
	routing_leaves(t, nrows, keys[0], in.leaves);
	for (int k = 0; k < nkeys; k++)
		in.keys[k] = keys[k];
	for (int r = 0; r < nrows; r++)
		order[r] = r;
	qsort_arg(order, nrows, sizeof(int), rowstore_row_order, &in);

	out.leaves = palloc(sizeof(Oid) * nrows);
	for (int k = 0; k < nkeys; k++)
		out.keys[k] = palloc(sizeof(Datum) * nrows);
	out.cells = cells != NULL ? palloc(sizeof(Datum) * nrows) : NULL;
	out.oldest_ts = oldest_ts != NULL ? palloc(sizeof(Datum) * nrows) : NULL;
	for (int i = 0; i < nrows; i++)
	{
		out.leaves[i] = in.leaves[order[i]];
		for (int k = 0; k < nkeys; k++)
			out.keys[k][i] = keys[k][order[i]];
		if (cells != NULL)
			out.cells[i] = cells[order[i]];
		if (oldest_ts != NULL)
			out.oldest_ts[i] = oldest_ts[order[i]];
	}
	pfree(order);
	pfree(in.leaves);
	return out;
}

/*
 * rowstore_insert_leaf inserts rows first .. first + n - 1, all of one
 * leaf, as COPY does: their heap tuples with one table_multi_insert, then
 * their index entries in row order, which raise unique_violation for a key
 * that exists.
 */
static void
rowstore_insert_leaf(const BulkRows *b, Oid leaf_oid, int first, int n)
{
	LeafCache  *lp = rowstore_leaf(leaf_oid);
	Relation	leaf = table_open(leaf_oid, RowExclusiveLock);
	/* the leaf's slots and tuple copies go when it is done: one leaf's worth at a time */
	MemoryContext leafctx = AllocSetContextCreate(CurrentMemoryContext, "ots leaf insert",
												  ALLOCSET_DEFAULT_SIZES);
	MemoryContext callerctx = MemoryContextSwitchTo(leafctx);
	EState	   *estate = CreateExecutorState();
	ResultRelInfo *rri = makeNode(ResultRelInfo);
	TupleTableSlot **slots = palloc(sizeof(TupleTableSlot *) * n);
	int			nkeys = storage_nkeys(b->t);
	AsRole		saved;
	bool		as_owner;

	rowstore_attnums(b->t, leaf_oid, lp);
	InitResultRelInfo(rri, leaf, 0, NULL, 0);
	rowstore_open_indexes(leaf, lp, rri);
	for (int j = 0; j < n; j++)
	{
		Datum		key[OTS_MAX_PK_COLUMNS + 1];

		for (int k = 0; k < nkeys; k++)
			key[k] = b->keys[k][first + j];
		slots[j] = rowstore_key_slot(leaf, lp, nkeys, key, NULL,
									 (struct varlena *) DatumGetPointer(b->cells[first + j]),
									 DatumGetInt64(b->oldest_ts[first + j]));
	}
	table_multi_insert(leaf, slots, n, GetCurrentCommandId(true), 0, NULL);
	as_owner = rowstore_index_code_begin(b->t, lp, &saved);
	for (int j = 0; j < n; j++)
	{
		ExecInsertIndexTuples(rri, slots[j], estate, false, false, NULL, NIL);
		ExecDropSingleTupleTableSlot(slots[j]);
	}
	rowstore_index_code_end(as_owner, &saved);
	table_finish_bulk_insert(leaf, 0);
	rowstore_close_indexes(rri);
	FreeExecutorState(estate);
	table_close(leaf, NoLock);
	MemoryContextSwitchTo(callerctx);
	MemoryContextDelete(leafctx);
}

/*
 * rowstore_insert_many_work inserts rows that should all be new, sorted by
 * rowstore_sort_rows, one leaf's run at a time (SubxactWork).
 */
static bool
rowstore_insert_many_work(void *arg)
{
	const BulkRows *b = arg;

	for (int i = 0, j; i < b->nrows; i = j)
	{
		for (j = i + 1; j < b->nrows && b->leaves[j] == b->leaves[i]; j++)
			;
		rowstore_insert_leaf(b, b->leaves[i], i, j - i);
	}
	return true;
}

static bool
rowstore_catch_unique_violation(int sqlerrcode)
{
	return sqlerrcode == ERRCODE_UNIQUE_VIOLATION;
}

/* rowstore_bulk_upsert runs the upsert statement as the table's owner */
static void
rowstore_bulk_upsert(const OtsTable *t, int nrows, Datum **keys, Datum *cells, Datum *oldest_ts)
{
	int			nkeys = storage_nkeys(t);
	Datum		params[OTS_MAX_PK_COLUMNS + 3];
	AsRole		saved;

	for (int k = 0; k < nkeys; k++)
	{
		Oid			type = storage_key_type(t, k);
		int16		typlen;
		bool		typbyval;
		char		typalign;

		get_typlenbyvalalign(type, &typlen, &typbyval, &typalign);
		params[k] = PointerGetDatum(construct_array(keys[k], nrows, type, typlen, typbyval,
													typalign));
	}
	params[nkeys] = PointerGetDatum(construct_array(cells, nrows, storage_cells_type(), -1,
													false, TYPALIGN_INT));
	params[nkeys + 1] = PointerGetDatum(construct_array(oldest_ts, nrows, INT8OID, 8,
														FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));

	asrole_enter(rowstore_owner(t), &saved);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	rowstore_bulk_run(t, params);
	SPI_finish();
	asrole_leave(&saved);
}

/*
 * rowstore_put_many first tries the rows as new ones, straight into their
 * leaves (no upsert, no executor); when one of them exists that attempt is
 * undone and one upsert statement writes them all.  Both take the rows in
 * rowstore_sort_rows's order.
 */
void
rowstore_put_many(const OtsTable *t, int nrows, Datum **keys, Datum *cells, Datum *oldest_ts)
{
	BulkRows	rows = rowstore_sort_rows(t, nrows, keys, cells, oldest_ts);
	bool		kept;

	if (subxact_run(rowstore_insert_many_work, &rows, rowstore_catch_unique_violation,
					&kept) == NULL)
		return;
	rowstore_bulk_upsert(t, nrows, rows.keys, rows.cells, rows.oldest_ts);
}

/*
 * rowstore_delete_many deletes the rows one key at a time, in
 * rowstore_sort_rows's order, as delete_row does: it reads the newest
 * version of the row and deletes exactly that version, and reads again when
 * a concurrent writer replaced it first (a serialization failure under
 * snapshot isolation), as DELETE's re-check does.  A DELETE statement for
 * all the keys would take the rows in the order its plan chooses (for a big
 * table, a hash of the keys, whose order changes with their number and
 * request order), so two batches could lock shared keys in opposite orders.
 */
void
rowstore_delete_many(const OtsTable *t, int nrows, Datum **keys)
{
	BulkRows	rows = rowstore_sort_rows(t, nrows, keys, NULL, NULL);
	RowKey		key;

	memset(&key, 0, sizeof(key));
	key.t = t;
	key.nkeys = storage_nkeys(t);
	for (int k = 0; k < key.nkeys; k++)
		key.types[k] = storage_key_type(t, k);
	for (int i = 0; i < nrows; i++)
	{
		key.leaf_oid = rows.leaves[i];
		for (int k = 0; k < key.nkeys; k++)
			key.values[k] = rows.keys[k][i];
		for (;;)
		{
			struct varlena *cells;

			CHECK_FOR_INTERRUPTS();
			cells = rowstore_fetch(&key, true);
			if (cells != NULL)
				pfree(cells);
			if (!key.found || rowstore_delete(&key))
				break;
		}
	}
}
