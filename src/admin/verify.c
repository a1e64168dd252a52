/*-------------------------------------------------------------------------
 * src/admin/verify.c
 *	  Checking ots storage (ots.verify, src/sql/65_verify.sql): the heap
 *	  and btree checks of a relation through amcheck, and the checks only
 *	  ots can make: each stored row against what ots would store, each
 *	  secondary index against a recomputation from its table, each stream's
 *	  records.  Every check reports what it finds as rows, one per problem,
 *	  and goes on.
 *
 * amcheck's verify_heapam checks heap pages but refuses any relation whose
 * pg_class.relam is not heap, and ots leaves are heap on disk under the
 * ots access method.  So for the duration of the call this backend's
 * relcache entry of the leaf says heap (relam only: the routine stays
 * ots's), amcheck's own function is called, and the entry says ots again,
 * also on error.  Nothing others can see changes: not the catalog, not
 * another backend's relcache.  A relcache rebuild in between (an
 * invalidation processed before verify_heapam's check) would make it
 * refuse: the call is then made again.  bt_index_check needs no such help
 * (it checks the index's access method, and its heap scan goes through
 * the leaf's routine, heap's scan).  amcheck's functions are called as the
 * caller, who needs EXECUTE on them (amcheck grants it to no one).
 *
 * The row checks read each leaf (and the chunk relation: a table without
 * one is reported) under the statement's snapshot, in
 * batches of rows copied out of the scan, each batch checked in a
 * subtransaction; a batch that fails is checked again row by row, so each
 * damaged row is reported with its own error and the others are not.  A
 * row's check is the write point's guard (row_guard: cells,
 * "$oldest_ts", "$hash", key lengths; a chunk's first cell and row marker); for a table with indexes, then
 * each index's entry for it (index_entry_of) looked up in the index
 * (missing, or stale: other cells).  Each index row is guarded too and its
 * row looked up in the table (an entry of no row, or not the entry its
 * row has: wrong).  A stream's log is read in its key order: shards the
 * table has, positions increasing, the trim marker only first, each record
 * as stream_record_check wants it and of a key of its shard, the spilled
 * records an entry counts all there, none of no entry.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_index.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/executor.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "meta/catalog.h"
#include "ddl/guard_access.h"
#include "format/cells.h"
#include "format/codec.h"
#include "index/index_write.h"
#include "store/routing.h"
#include "store/rowsplit.h"
#include "store/rowstore.h"
#include "meta/storage.h"
#include "writepoint/row_guard.h"
#include "writepoint/storage_write.h"
#include "stream/stream_record.h"
#include "stream/stream_storage.h"
#include "subxact.h"

PG_FUNCTION_INFO_V1(ots_verify_relation);
PG_FUNCTION_INFO_V1(ots_verify_rows);

/* rows copied out of a scan and checked in one subtransaction */
#define VERIFY_BATCH 256

/* one problem found */
typedef struct VerifyProblem
{
	Oid			relation;
	const char *kind;
	char	   *location;
	char	   *problem;
	char	   *detail;
} VerifyProblem;

/* what a check reports to, and the tables it checks */
typedef struct Verify
{
	List	   *problems;		/* VerifyProblem, in the report's context */
	MemoryContext cxt;			/* where problems live */
	Snapshot	snapshot;
} Verify;

static void
verify_report(Verify *v, Oid relation, const char *kind, char *location, char *problem,
			  char *detail)
{
	MemoryContext old = MemoryContextSwitchTo(v->cxt);
	VerifyProblem *p = palloc(sizeof(VerifyProblem));

	p->relation = relation;
	p->kind = kind;
	p->location = location != NULL ? pstrdup(location) : NULL;
	p->problem = pstrdup(problem);
	p->detail = detail != NULL ? pstrdup(detail) : NULL;
	v->problems = lappend(v->problems, p);
	MemoryContextSwitchTo(old);
}

/* verify_report_error reports an error caught as a problem */
static void
verify_report_error(Verify *v, Oid relation, const char *kind, char *location, ErrorData *e)
{
	verify_report(v, relation, kind, location, e->message, e->detail);
}

/* verify_catch_all: a check's errors are its findings, but a cancel is a cancel */
static bool
verify_catch_all(int sqlerrcode)
{
	return sqlerrcode != ERRCODE_QUERY_CANCELED && sqlerrcode != ERRCODE_ADMIN_SHUTDOWN;
}

/* verify_return puts the problems found into the result of a materialized SRF */
static void
verify_return(FunctionCallInfo fcinfo, Verify *v)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ListCell   *lc;

	foreach(lc, v->problems)
	{
		VerifyProblem *p = lfirst(lc);
		Datum		values[5];
		bool		nulls[5] = {0};
		int			n = 0;

		values[n++] = ObjectIdGetDatum(p->relation);
		values[n++] = CStringGetTextDatum(p->kind);
		nulls[n] = p->location == NULL;
		values[n++] = p->location != NULL ? CStringGetTextDatum(p->location) : (Datum) 0;
		values[n++] = CStringGetTextDatum(p->problem);
		nulls[n] = p->detail == NULL;
		values[n++] = p->detail != NULL ? CStringGetTextDatum(p->detail) : (Datum) 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/* ---------------------------------------------------------------------
 * Heap and btree: amcheck's functions
 * ---------------------------------------------------------------------
 */

/* verify_amcheck_function: amcheck's function name(argtypes), which the caller may execute */
static Oid
verify_amcheck_function(const char *name, int nargs, const Oid *argtypes)
{
	Oid			ext = get_extension_oid("amcheck", true);
	Oid			nsp = InvalidOid;
	Oid			fn = InvalidOid;
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;

	if (!OidIsValid(ext))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ots.verify needs the amcheck extension for its heap and btree checks"),
				 errhint("CREATE EXTENSION amcheck, or check rows, indexes and streams only with ots.verify(..., amcheck => false).")));
	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(ext));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
		nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (OidIsValid(nsp))
		fn = LookupFuncName(list_make2(makeString(get_namespace_name(nsp)), makeString(pstrdup(name))),
							nargs, argtypes, true);
	if (!OidIsValid(fn) || getExtensionOfObject(ProcedureRelationId, fn) != ext)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("the amcheck extension has no function %s", name),
				 errhint("Update amcheck (ALTER EXTENSION amcheck UPDATE): ots.verify needs version 1.3.")));
	if (pg_proc_aclcheck(fn, GetUserId(), ACL_EXECUTE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for function %s", format_procedure(fn)),
				 errdetail("ots.verify runs amcheck's checks as the calling role, and amcheck grants them to no one."),
				 errhint("GRANT EXECUTE ON FUNCTION %s to the role, or call ots.verify(..., amcheck => false).",
						 format_procedure(fn))));
	return fn;
}

/* one call of verify_heapam on a relation open as rel */
typedef struct VerifyHeapCall
{
	Oid			fn;
	Relation	rel;
	Verify	   *v;
	bool		rebuilt;		/* the relcache entry was rebuilt during the call */
} VerifyHeapCall;

/*
 * verify_heap_work calls verify_heapam(rel, check_toast => true), the
 * relation presented as heap when it is on the ots access method, and
 * reports each row it returns
 */
static bool
verify_heap_work(void *arg)
{
	VerifyHeapCall *c = arg;
	Relation	rel = c->rel;
	Oid			am = rel->rd_rel->relam;
	bool		present = am == storage_am_oid();
	LOCAL_FCINFO(fcinfo, 6);
	FmgrInfo	flinfo;
	ReturnSetInfo rsinfo;
	ExprContext *econtext = CreateStandaloneExprContext();
	TupleTableSlot *slot;

	fmgr_info(c->fn, &flinfo);
	memset(&rsinfo, 0, sizeof(rsinfo));
	rsinfo.type = T_ReturnSetInfo;
	rsinfo.econtext = econtext;
	rsinfo.allowedModes = SFRM_Materialize;
	rsinfo.returnMode = SFRM_ValuePerCall;
	InitFunctionCallInfoData(*fcinfo, &flinfo, 6, InvalidOid, NULL, (Node *) &rsinfo);
	fcinfo->args[0].value = ObjectIdGetDatum(RelationGetRelid(rel));
	fcinfo->args[0].isnull = false;
	fcinfo->args[1].value = BoolGetDatum(false);	/* on_error_stop */
	fcinfo->args[1].isnull = false;
	fcinfo->args[2].value = BoolGetDatum(true); /* check_toast */
	fcinfo->args[2].isnull = false;
	fcinfo->args[3].value = CStringGetTextDatum("none");	/* skip */
	fcinfo->args[3].isnull = false;
	fcinfo->args[4].isnull = true;	/* startblock */
	fcinfo->args[5].isnull = true;	/* endblock */
	PG_TRY();
	{
		if (present)
			rel->rd_rel->relam = HEAP_TABLE_AM_OID;
		(void) FunctionCallInvoke(fcinfo);
	}
	PG_FINALLY();
	{
		/* a rebuilt entry (a new rd_rel) says ots again of itself */
		c->rebuilt = present && rel->rd_rel->relam != HEAP_TABLE_AM_OID;
		rel->rd_rel->relam = am;
	}
	PG_END_TRY();

	if (rsinfo.setResult != NULL)
	{
		slot = MakeSingleTupleTableSlot(rsinfo.setDesc, &TTSOpsMinimalTuple);
		while (tuplestore_gettupleslot(rsinfo.setResult, true, false, slot))
		{
			bool		isnull[4];
			Datum		blkno = slot_getattr(slot, 1, &isnull[0]);
			Datum		offnum = slot_getattr(slot, 2, &isnull[1]);
			Datum		attnum = slot_getattr(slot, 3, &isnull[2]);
			Datum		msg = slot_getattr(slot, 4, &isnull[3]);
			char	   *location = isnull[2] ?
				psprintf("block " INT64_FORMAT ", offset %d", DatumGetInt64(blkno), DatumGetInt32(offnum)) :
				psprintf("block " INT64_FORMAT ", offset %d, attribute %d", DatumGetInt64(blkno),
						 DatumGetInt32(offnum), DatumGetInt32(attnum));

			verify_report(c->v, RelationGetRelid(rel), "heap", location,
						  isnull[3] ? "" : TextDatumGetCString(msg), NULL);
		}
		ExecDropSingleTupleTableSlot(slot);
		/* in this subtransaction's resources: gone with it */
		tuplestore_end(rsinfo.setResult);
	}
	FreeExprContext(econtext, true);
	return true;
}

/* verify_heap checks rel's pages (and its TOAST) with verify_heapam */
static void
verify_heap(Verify *v, Relation rel)
{
	static const Oid argtypes[6] = {REGCLASSOID, BOOLOID, BOOLOID, TEXTOID, INT8OID, INT8OID};
	VerifyHeapCall c = {verify_amcheck_function("verify_heapam", 6, argtypes), rel, v, false};

	for (int attempt = 0;; attempt++)
	{
		bool		kept;
		int			before = list_length(v->problems);
		ErrorData  *e = subxact_run(verify_heap_work, &c, verify_catch_all, &kept);

		if (e == NULL)
			return;
		v->problems = list_truncate(v->problems, before);
		if (!c.rebuilt || attempt == 2)
		{
			verify_report_error(v, RelationGetRelid(rel), "heap", NULL, e);
			return;
		}
	}
}

typedef struct VerifyBtreeCall
{
	Oid			fn;
	Oid			index;
} VerifyBtreeCall;

static bool
verify_btree_work(void *arg)
{
	VerifyBtreeCall *c = arg;

	(void) OidFunctionCall2(c->fn, ObjectIdGetDatum(c->index), BoolGetDatum(true));
	return true;
}

/* verify_btrees checks every btree index of rel with bt_index_check(heapallindexed) */
static void
verify_btrees(Verify *v, Relation rel)
{
	static const Oid argtypes[2] = {REGCLASSOID, BOOLOID};
	VerifyBtreeCall c = {InvalidOid, InvalidOid};
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;

	foreach(lc, indexes)
	{
		bool		kept;
		ErrorData  *e;

		HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(lfirst_oid(lc)));
		Oid			am = HeapTupleIsValid(tup) ? ((Form_pg_class) GETSTRUCT(tup))->relam : InvalidOid;

		if (HeapTupleIsValid(tup))
			ReleaseSysCache(tup);
		if (am != BTREE_AM_OID)
			continue;
		if (!OidIsValid(c.fn))
			c.fn = verify_amcheck_function("bt_index_check", 2, argtypes);
		c.index = lfirst_oid(lc);
		if ((e = subxact_run(verify_btree_work, &c, verify_catch_all, &kept)) != NULL)
			verify_report_error(v, c.index, "btree", NULL, e);
	}
	list_free(indexes);
}

/*
 * ots_verify_relation is ots.verify_relation(relation): the heap check of
 * a table (an ots leaf presented as heap), TOAST included, and the btree
 * check of each of its btree indexes, as its owner may ask
 */
Datum
ots_verify_relation(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Verify		v = {NIL, CurrentMemoryContext, NULL};
	Relation	rel;

	InitMaterializedSRF(fcinfo, 0);
	rel = relation_open(relid, AccessShareLock);
	if (!catalog_owns(relid))
		aclcheck_error(ACLCHECK_NOT_OWNER, get_relkind_objtype(rel->rd_rel->relkind),
					   RelationGetRelationName(rel));
	if (RELKIND_HAS_TABLE_AM(rel->rd_rel->relkind))
		verify_heap(&v, rel);
	verify_btrees(&v, rel);
	relation_close(rel, AccessShareLock);
	verify_return(fcinfo, &v);
	return (Datum) 0;
}

/* ---------------------------------------------------------------------
 * Rows and indexes
 * ---------------------------------------------------------------------
 */

/* verify_key_text: a primary key as the API writes it */
static char *
verify_key_text(const OtsTable *t, const PkInput *pk)
{
	Jsonb	   *j = codec_pk_to_jsonb(t, pk);

	return JsonbToCString(NULL, &j->root, VARSIZE(j));
}

static bool
verify_key_equal(const PkInput *a, const PkInput *b)
{
	for (int k = 0; k < a->n; k++)
		if (ots_value_compare(&a->v[k], &b->v[k]) != 0)
			return false;
	return true;
}

/* the rows of a leaf being checked, and what each is checked for */
typedef struct VerifyLeaf
{
	Verify	   *v;
	const OtsTable *t;			/* the table the leaf belongs to */
	Relation	rel;
	StorageLeaf leaf;
	TupleTableSlot *slot;		/* a row copied out of the scan */
	/* t's indexes whose entries its rows must have (a base table) */
	int			nindexes;
	const OtsTable *indexes[OTS_MAX_INDEXES];
	/* t is an index: base, whose row each entry must be the entry of */
	const OtsTable *base;
	/* the batch */
	HeapTuple	rows[VERIFY_BATCH];
	int			nrows;
	int			first;			/* the rows to check now: [first, last) */
	int			last;
	const char *stage;			/* what the row being checked is checked for */
	Oid			stage_relation; /* where a problem found then is */
	char	   *location;		/* and the row's key, once known */
} VerifyLeaf;

/* verify_entry_of_row: base's row pk (with cells) has its entry in idx as the write point keeps it */
static void
verify_entry_of_row(VerifyLeaf *vl, const OtsTable *idx, const IndexSourceRow *row)
{
	const OtsTable *t = vl->t;
	PkInput		key;
	struct varlena *cells;
	struct varlena *stored;
	RowKey		rk;

	vl->stage_relation = idx->data_oid;
	if (!index_entry_of(t, idx, row, &key, &cells))
		return;
	routing_key(idx, &key, &rk);
	stored = rowstore_fetch(&rk, false);
	if (stored == NULL)
	{
		/* an index made without the rows before it lacks theirs */
		if (!idx->index_partial)
			verify_report(vl->v, idx->data_oid, "index", verify_key_text(idx, &key),
						  psprintf("missing: the entry of row %s of table %s",
								   vl->location, quote_identifier(t->table_name)), NULL);
	}
	else if (VARSIZE(stored) != VARSIZE(cells) || memcmp(stored, cells, VARSIZE(cells)) != 0)
		verify_report(vl->v, idx->data_oid, "index", verify_key_text(idx, &key),
					  psprintf("stale: the entry differs from the one row %s of table %s has (covered columns or row marker)",
							   vl->location, quote_identifier(t->table_name)), NULL);
}

/* verify_row_of_entry: the index row pk (of vl->t, an index) is the entry of its row of vl->base */
static void
verify_row_of_entry(VerifyLeaf *vl, const PkInput *pk)
{
	const OtsTable *idx = vl->t;
	const OtsTable *base = vl->base;
	IndexSourceRow row;
	PkInput		base_pk;
	PkInput		key;
	struct varlena *cells;
	RowKey		rk;

	base_pk.n = base->npk;
	for (int j = 0; j < base->npk; j++)
	{
		int			k;

		for (k = 0; k < idx->npk && strcmp(idx->pk[k].name, base->pk[j].name) != 0; k++)
			;
		if (k == idx->npk)
			catalog_report_damaged(idx, "a key column of its table is not in its key");
		base_pk.v[j] = pk->v[k];
		base_pk.special[j] = PK_VALUE;
		row.pk[j] = pk->v[k];
	}
	routing_key(base, &base_pk, &rk);
	row.cells = rowstore_fetch(&rk, false);
	if (row.cells != NULL)
		row.cells = rowsplit_defined_view(base, row.cells, GetActiveSnapshot());
	if (row.cells == NULL)
	{
		verify_report(vl->v, idx->data_oid, "index", vl->location,
					  psprintf("wrong: row %s of table %s does not exist",
							   verify_key_text(base, &base_pk), quote_identifier(base->table_name)), NULL);
		return;
	}
	/* its cells are read as the write point reads them: checked first (the table's check reports them) */
	cells_validate((const uint8 *) VARDATA(row.cells), VARSIZE(row.cells) - VARHDRSZ);
	if (!index_entry_of(base, idx, &row, &key, &cells))
		verify_report(vl->v, idx->data_oid, "index", vl->location,
					  psprintf("wrong: row %s of table %s has no entry in this index",
							   verify_key_text(base, &base_pk), quote_identifier(base->table_name)), NULL);
	else if (!verify_key_equal(&key, pk))
		verify_report(vl->v, idx->data_oid, "index", vl->location,
					  psprintf("wrong: the entry of row %s of table %s is %s",
							   verify_key_text(base, &base_pk), quote_identifier(base->table_name),
							   verify_key_text(idx, &key)), NULL);
}

/*
 * verify_rows_work checks rows [first, last) of the batch: each as the
 * write point's guard checks a new row, then its index entries (a base
 * table's row) or its row (an index's entry)
 */
static bool
verify_rows_work(void *arg)
{
	VerifyLeaf *vl = arg;

	for (int i = vl->first; i < vl->last; i++)
	{
		PkInput		pk;
		bool		isnull;

		CHECK_FOR_INTERRUPTS();
		ExecStoreHeapTuple(vl->rows[i], vl->slot, false);
		vl->stage = "cells";
		vl->stage_relation = RelationGetRelid(vl->rel);
		vl->location = psprintf("ctid (%u,%u)", ItemPointerGetBlockNumber(&vl->rows[i]->t_self),
								ItemPointerGetOffsetNumber(&vl->rows[i]->t_self));
		memset(&pk, 0, sizeof(pk));
		pk.n = vl->t->npk;
		storage_leaf_key_whole(vl->t, vl->leaf.key_attnos, vl->slot, pk.v);
		vl->location = verify_key_text(vl->t, &pk);
		if (vl->leaf.chunk)
		{
			bool		null_column;
			bool		null_ts;
			Datum		column = slot_getattr(vl->slot, vl->leaf.column_attno, &null_column);
			Datum		ts = slot_getattr(vl->slot, vl->leaf.ts_attno, &null_ts);

			vl->location = psprintf("%s, chunk %s at %s", vl->location,
									null_column ? "NULL" : quote_literal_cstr(TextDatumGetCString(column)),
									null_ts ? "NULL" : psprintf(INT64_FORMAT, DatumGetInt64(ts)));
		}
		row_guard(vl->rel, &vl->leaf, vl->slot);
		vl->stage = "index";
		vl->stage_relation = vl->t->data_oid;
		if (vl->nindexes > 0)
		{
			IndexSourceRow row;

			memcpy(row.pk, pk.v, sizeof(OtsValue) * vl->t->npk);
			/* a split row's head: its defined columns from its chunks, as the write point reads them */
			row.cells = rowsplit_defined_view(vl->t,
											  PG_DETOAST_DATUM_PACKED(slot_getattr(vl->slot, vl->leaf.cells_attno, &isnull)),
											  GetActiveSnapshot());
			for (int x = 0; x < vl->nindexes; x++)
				verify_entry_of_row(vl, vl->indexes[x], &row);
		}
		if (vl->base != NULL)
			verify_row_of_entry(vl, &pk);
	}
	return false;				/* it read only */
}

/* verify_batch checks the batch, and row by row if it fails, reporting each row's error */
static void
verify_batch(VerifyLeaf *vl)
{
	int			before = list_length(vl->v->problems);
	bool		kept;
	ErrorData  *e;

	vl->first = 0;
	vl->last = vl->nrows;
	if (subxact_run(verify_rows_work, vl, verify_catch_all, &kept) == NULL)
		return;
	vl->v->problems = list_truncate(vl->v->problems, before);
	for (int i = 0; i < vl->nrows; i++)
	{
		vl->first = i;
		vl->last = i + 1;
		if ((e = subxact_run(verify_rows_work, vl, verify_catch_all, &kept)) != NULL)
			verify_report_error(vl->v, vl->stage_relation, vl->stage, vl->location, e);
	}
}

/*
 * verify_scan checks every row of vl->rel (verify_rows_work), in batches of
 * rows copied out of a scan under the check's snapshot
 */
static void
verify_scan(VerifyLeaf *vl, MemoryContext batchcxt)
{
	TableScanDesc scan;
	TupleTableSlot *scanslot;
	bool		more = true;

	vl->slot = MakeSingleTupleTableSlot(RelationGetDescr(vl->rel), &TTSOpsHeapTuple);
	scanslot = table_slot_create(vl->rel, NULL);
	scan = table_beginscan(vl->rel, vl->v->snapshot, 0, NULL);
	while (more)
	{
		MemoryContext old;

		MemoryContextReset(batchcxt);
		old = MemoryContextSwitchTo(batchcxt);
		for (vl->nrows = 0; vl->nrows < VERIFY_BATCH; vl->nrows++)
		{
			CHECK_FOR_INTERRUPTS();
			if (!(more = table_scan_getnextslot(scan, ForwardScanDirection, scanslot)))
				break;
			vl->rows[vl->nrows] = ExecCopySlotHeapTuple(scanslot);
		}
		MemoryContextSwitchTo(old);
		if (vl->nrows > 0)
			verify_batch(vl);
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(scanslot);
	ExecDropSingleTupleTableSlot(vl->slot);
}

/*
 * verify_leaves checks every row of t's leaves (verify_rows_work), with
 * the entries of indexes[] (t a base table) or against base (t an index)
 */
static void
verify_leaves(Verify *v, const OtsTable *t, int nindexes, const OtsTable **indexes,
			  const OtsTable *base)
{
	int			nleaves;
	Oid		   *leaves = routing_all_leaves(t, &nleaves);
	MemoryContext batchcxt = AllocSetContextCreate(CurrentMemoryContext, "ots verify batch",
												   ALLOCSET_DEFAULT_SIZES);

	for (int l = 0; l < nleaves; l++)
	{
		VerifyLeaf *vl = palloc0(sizeof(VerifyLeaf));

		vl->v = v;
		vl->t = t;
		vl->base = base;
		vl->nindexes = nindexes;
		memcpy(vl->indexes, indexes, sizeof(OtsTable *) * nindexes);
		vl->rel = table_open(leaves[l], AccessShareLock);
		if (!storage_write_leaf(vl->rel, NULL, &vl->leaf) || vl->leaf.table == NULL)
			verify_report(v, leaves[l], "cells", NULL,
						  "the partition is not shaped as a leaf of ots storage", NULL);
		else
			verify_scan(vl, batchcxt);
		table_close(vl->rel, AccessShareLock);
	}
	MemoryContextDelete(batchcxt);
}

/*
 * verify_chunks checks t's chunk relation: that t has one, and each chunk
 * in it as the write point's guard checks a new one (a missing chunk
 * relation is reported, as catalog_check_chunk lets a table load without
 * it)
 */
static void
verify_chunks(Verify *v, const OtsTable *t)
{
	char	   *name = psprintf("%s%s", t->table_name, STORAGE_CHUNK_SUFFIX);
	Oid			named = get_relname_relid(name, get_rel_namespace(t->data_oid));
	VerifyLeaf *vl;
	MemoryContext batchcxt;

	if (!OidIsValid(t->chunk_oid))
	{
		verify_report(v, OidIsValid(named) ? named : t->data_oid, "table", NULL,
					  psprintf("its chunk relation %s is %s", quote_identifier(name),
							   !OidIsValid(named) ? "missing" :
							   !storage_is_part(named, t->data_oid) ? "another role's" :
							   "without its primary key"),
					  !OidIsValid(named) ?
					  "ALTER EXTENSION ots UPDATE makes it for a table made before ots 0.3.0; a restore makes it for a table its dump has without one." :
					  !storage_is_part(named, t->data_oid) ?
					  "A relation named so is the table's only with the owner of its storage table: rename that one, then restore or update again." :
					  "A restore adds it after the rows (one that did not finish?).");
		return;
	}
	if (guard_access_differs(t->data_oid, t->chunk_oid))
		verify_report(v, t->chunk_oid, "table", NULL,
					  "its privileges or row security are not its storage table's",
					  psprintf("A split row's cells are readable where its head is: as the owner, SELECT ots.chunk_relation_follow(%s).",
							   quote_literal_cstr(storage_chunk_name(t))));
	vl = palloc0(sizeof(VerifyLeaf));
	vl->v = v;
	vl->t = t;
	vl->rel = table_open(t->chunk_oid, AccessShareLock);
	batchcxt = AllocSetContextCreate(CurrentMemoryContext, "ots verify batch", ALLOCSET_DEFAULT_SIZES);
	if (!storage_write_leaf(vl->rel, NULL, &vl->leaf) || !vl->leaf.chunk || vl->leaf.table == NULL)
		verify_report(v, t->chunk_oid, "cells", NULL, "the chunk relation is not shaped as ots makes it", NULL);
	else
		verify_scan(vl, batchcxt);
	table_close(vl->rel, AccessShareLock);
	MemoryContextDelete(batchcxt);
}

/* ---------------------------------------------------------------------
 * Streams
 * ---------------------------------------------------------------------
 */

/* a log entry's spilled records, for the records relation's check */
typedef struct VerifySpill
{
	int64		id;				/* hash key, with shard */
	int32		shard;
	int32		spilled;
	int32		seen;
} VerifySpill;

typedef struct VerifyRecord
{
	const OtsTable *t;
	Jsonb	   *record;
	int32		shard;
} VerifyRecord;

/* verify_record_work: a record is well-formed, of a key its shard holds */
static bool
verify_record_work(void *arg)
{
	VerifyRecord *r = arg;
	PkInput		pk;
	RowKey		rk;

	stream_record_check(r->t, r->record, &pk);
	routing_key(r->t, &pk, &rk);
	if (stream_shard_of_leaf(r->t, rk.leaf_oid) != r->shard)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a record of an ots stream is in shard %d, but its primary key is in shard %d",
						r->shard, stream_shard_of_leaf(r->t, rk.leaf_oid))));
	return false;
}

static void
verify_record(Verify *v, const OtsTable *t, Oid relation, Datum record, int32 shard,
			  char *location)
{
	VerifyRecord r = {t, DatumGetJsonbP(record), shard};
	bool		kept;
	ErrorData  *e = subxact_run(verify_record_work, &r, verify_catch_all, &kept);

	if (e != NULL)
		verify_report_error(v, relation, "stream", location, e);
}

/* verify_spill: the spilled records of a shard's entry id, entered or found */
static VerifySpill *
verify_spill(HTAB *spills, int32 shard, int64 id, HASHACTION action, bool *found)
{
	char		key[sizeof(int64) + sizeof(int32)];

	memcpy(key, &id, sizeof(int64));
	memcpy(key + sizeof(int64), &shard, sizeof(int32));
	return hash_search(spills, key, action, found);
}

/* verify_stream_row reads a row of a stream relation: false when a column is NULL */
static bool
verify_stream_row(TupleTableSlot *slot)
{
	slot_getallattrs(slot);
	for (int i = 0; i < slot->tts_tupleDescriptor->natts; i++)
		if (slot->tts_isnull[i])
			return false;
	return true;
}

/*
 * verify_stream_next reads the next row of a stream relation's index scan
 * into slot, its columns all set, with entrycxt reset and current (the
 * caller's context in *old); a row with a NULL column is reported (null_what)
 * and skipped.  False at the end of the scan.
 */
static bool
verify_stream_next(Verify *v, IndexScanDesc scan, TupleTableSlot *slot, MemoryContext entrycxt,
				   Oid relid, char *null_what, MemoryContext *old)
{
	while (index_getnext_slot(scan, ForwardScanDirection, slot))
	{
		CHECK_FOR_INTERRUPTS();
		MemoryContextReset(entrycxt);
		*old = MemoryContextSwitchTo(entrycxt);
		if (verify_stream_row(slot))
			return true;
		verify_report(v, relid, "stream", NULL, null_what, NULL);
		MemoryContextSwitchTo(*old);
	}
	return false;
}

/* verify_stream_open_work: the stream's relations are as ots made them */
static bool
verify_stream_open_work(void *arg)
{
	StreamRels	rels;

	stream_open((const OtsTable *) arg, AccessShareLock, &rels);
	stream_close(&rels);
	return true;
}

/* verify_stream checks t's stream: its log in key order, then its spilled records */
static void
verify_stream(Verify *v, const OtsTable *t)
{
	StreamRels	rels;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	HTAB	   *spills;
	HASHCTL		ctl;
	int32		shard = -1;
	int64		position = 0;
	bool		first_of_shard = true;
	bool		kept;
	ErrorData  *e;
	MemoryContext entrycxt;
	MemoryContext old;

	if ((e = subxact_run(verify_stream_open_work, (void *) t, verify_catch_all, &kept)) != NULL)
	{
		verify_report_error(v, t->stream_log_oid, "stream", NULL, e);
		return;
	}
	stream_open(t, AccessShareLock, &rels);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(int64) + sizeof(int32);
	ctl.entrysize = sizeof(VerifySpill);
	ctl.hcxt = CurrentMemoryContext;
	spills = hash_create("ots verify spills", 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	entrycxt = AllocSetContextCreate(CurrentMemoryContext, "ots verify entry", ALLOCSET_DEFAULT_SIZES);

	slot = table_slot_create(rels.log, NULL);
	scan = index_beginscan(rels.log, rels.log_key, v->snapshot, 0, 0);
	index_rescan(scan, NULL, 0, NULL, 0);
	while (verify_stream_next(v, scan, slot, entrycxt, t->stream_log_oid,
							  "a log entry has a NULL column", &old))
	{
		int32		s;
		int64		p;
		int64		id;
		int32		spilled;
		char	   *where;

		s = DatumGetInt32(slot->tts_values[STREAM_LOG_SHARD - 1]);
		p = DatumGetInt64(slot->tts_values[STREAM_LOG_POSITION - 1]);
		id = DatumGetInt64(slot->tts_values[STREAM_LOG_ID - 1]);
		spilled = DatumGetInt32(slot->tts_values[STREAM_LOG_SPILLED - 1]);
		where = psprintf("shard %d, position " INT64_FORMAT, s, p);
		if (s != shard)
		{
			if (s < shard)
				verify_report(v, t->stream_log_oid, "stream", where,
							  "the log is out of order: a shard after a later one", NULL);
			shard = s;
			first_of_shard = true;
		}
		else if (p <= position)
			verify_report(v, t->stream_log_oid, "stream", where,
						  "the log is out of order: a position not after the one before it", NULL);
		position = p;
		if (s < 0 || s >= t->partitions)
			verify_report(v, t->stream_log_oid, "stream", where,
						  psprintf("an entry of shard %d, which the table does not have (it has %d)",
								   s, t->partitions), NULL);
		if (id == STREAM_TRIM_MARKER)
		{
			ArrayType  *records = DatumGetArrayTypeP(slot->tts_values[STREAM_LOG_RECORDS - 1]);

			if (!first_of_shard)
				verify_report(v, t->stream_log_oid, "stream", where,
							  "a trim marker after the first entry of its shard", NULL);
			if (spilled != 0 || ArrayGetNItems(ARR_NDIM(records), ARR_DIMS(records)) != 0)
				verify_report(v, t->stream_log_oid, "stream", where, "a trim marker with records", NULL);
		}
		else
		{
			ArrayType  *records = DatumGetArrayTypeP(slot->tts_values[STREAM_LOG_RECORDS - 1]);
			Datum	   *elems;
			bool	   *nulls;
			int			n;

			if (spilled < 0)
				verify_report(v, t->stream_log_oid, "stream", where,
							  psprintf("an entry of %d spilled records", spilled), NULL);
			else if (spilled > 0)
			{
				bool		found;
				VerifySpill *sp = verify_spill(spills, s, id, HASH_ENTER, &found);

				if (found)
					verify_report(v, t->stream_log_oid, "stream", where,
								  "two entries of one shard with one id", NULL);
				sp->spilled = spilled;
				sp->seen = 0;
			}
			if (ARR_NDIM(records) > 1 || ARR_ELEMTYPE(records) != JSONBOID)
				verify_report(v, t->stream_log_oid, "stream", where, "an entry's records are not a list of jsonb", NULL);
			else
			{
				deconstruct_array(records, JSONBOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
				if (n == 0 && spilled == 0)
					verify_report(v, t->stream_log_oid, "stream", where, "an entry without records", NULL);
				for (int i = 0; i < n; i++)
				{
					char	   *at = psprintf("%s, record %d", where, spilled + i);

					if (nulls[i])
						verify_report(v, t->stream_log_oid, "stream", at, "a NULL record", NULL);
					else
						verify_record(v, t, t->stream_log_oid, elems[i], s, at);
				}
			}
		}
		first_of_shard = false;
		MemoryContextSwitchTo(old);
	}
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);

	/* the spilled records: each of an entry, numbered from 0 below its count */
	slot = table_slot_create(rels.rec, NULL);
	scan = index_beginscan(rels.rec, rels.rec_key, v->snapshot, 0, 0);
	index_rescan(scan, NULL, 0, NULL, 0);
	while (verify_stream_next(v, scan, slot, entrycxt, t->stream_rec_oid,
							  "a spilled record has a NULL column", &old))
	{
		VerifySpill *sp;
		int32		s;
		int64		id;
		int32		n;
		char	   *where;

		s = DatumGetInt32(slot->tts_values[STREAM_REC_SHARD - 1]);
		id = DatumGetInt64(slot->tts_values[STREAM_REC_ID - 1]);
		n = DatumGetInt32(slot->tts_values[STREAM_REC_N - 1]);
		where = psprintf("shard %d, record %d of a transaction's entry", s, n);
		sp = verify_spill(spills, s, id, HASH_FIND, NULL);
		if (sp == NULL || n >= sp->spilled)
			verify_report(v, t->stream_rec_oid, "stream", where,
						  "a spilled record of no log entry", NULL);
		else if (n != sp->seen)
			verify_report(v, t->stream_rec_oid, "stream", where,
						  psprintf("spilled records missing before it (the entry counts %d)", sp->spilled), NULL);
		if (sp != NULL)
			sp->seen = n + 1;
		verify_record(v, t, t->stream_rec_oid, slot->tts_values[STREAM_REC_RECORD - 1], s, where);
		MemoryContextSwitchTo(old);
	}
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	{
		HASH_SEQ_STATUS status;
		VerifySpill *sp;

		hash_seq_init(&status, spills);
		while ((sp = hash_seq_search(&status)) != NULL)
			if (sp->seen < sp->spilled)
				verify_report(v, t->stream_rec_oid, "stream",
							  psprintf("shard %d, record %d of a transaction's entry", sp->shard, sp->seen),
							  psprintf("spilled records missing (the entry counts %d)", sp->spilled), NULL);
	}
	hash_destroy(spills);
	MemoryContextDelete(entrycxt);
	stream_close(&rels);
}

/*
 * ots_verify_rows is ots.verify_rows(schema_name, table_name): the rows of
 * an ots table, of each of its indexes and its stream (a base table), or
 * those of an index and its table's rows as far as they give it entries,
 * checked as only ots can; the table's owner may ask
 */
Datum
ots_verify_rows(PG_FUNCTION_ARGS)
{
	Name		schema = PG_GETARG_NAME(0);
	Name		table = PG_GETARG_NAME(1);
	Verify		v = {NIL, CurrentMemoryContext, NULL};
	OtsTable   *t;
	const OtsTable *indexes[OTS_MAX_INDEXES];

	InitMaterializedSRF(fcinfo, 0);
	t = catalog_lookup(cstring_to_text(psprintf("%s.%s", quote_identifier(NameStr(*schema)),
												 NameStr(*table))));
	if (!catalog_owns(t->data_oid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of ots table %s to verify it",
						quote_qualified_identifier(t->schema_name, t->table_name))));
	v.snapshot = RegisterSnapshot(GetActiveSnapshot());
	if (t->is_index)
	{
		const OtsTable *base = catalog_index_base(t);

		/* an index still being built is not compared with its table */
		if (!t->index_building)
		{
			indexes[0] = t;
			verify_leaves(&v, base, 1, indexes, NULL);
		}
		verify_leaves(&v, t, 0, NULL, t->index_building ? NULL : base);
		verify_chunks(&v, t);
	}
	else
	{
		int			n = 0;

		verify_chunks(&v, t);
		for (int i = 0; i < t->nindexes; i++)
		{
			const OtsTable *idx = catalog_lookup_by_data_oid(t->index_data_oids[i]);

			if (idx == NULL || !idx->is_index)
				catalog_report_damaged(t, "one of its indexes is not registered as an index");
			if (!idx->index_building)
				indexes[n++] = idx;
			verify_chunks(&v, idx);
		}
		verify_leaves(&v, t, n, indexes, NULL);
		for (int i = 0; i < n; i++)
			verify_leaves(&v, indexes[i], 0, NULL, t);
		if (t->stream_enabled)
			verify_stream(&v, t);
	}
	UnregisterSnapshot(v.snapshot);
	verify_return(fcinfo, &v);
	return (Datum) 0;
}
