/*-------------------------------------------------------------------------
 * src/store/chunkstore.c
 *	  The chunks of split rows in a table's chunk relation: index descents
 *	  on its primary key to find a chunk by position, scans in key order,
 *	  and the writes of ots's row code, through the table access method
 *	  (announced, so the write point knows them as parts of a row write).
 *
 * A chunk's key is the row's stored key, "$column", "$ts" (the chunk's
 * first cell in chunk order), so the chunk holding a position is one
 * backward descent away: the greatest key at most the position.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

#include "errors.h"
#include "guc.h"
#include "store/announce.h"
#include "store/btree_seek.h"
#include "store/chunkstore.h"
#include "store/leaf.h"

/* chunkstore_missing reports a column of the chunk relation the DDL guard keeps as created */
static void
chunkstore_missing(const OtsTable *t, const char *name)
{
	catalog_report_damaged(t, psprintf("its chunk relation lacks the column \"%s\"", name));
}

void
chunkstore_open(ChunkRel *cr, const RowKey *key, bool writing)
{
	const OtsTable *t = key->t;
	LOCKMODE	mode = writing ? RowExclusiveLock : AccessShareLock;
	Oid			pkey;
	LeafCache  *lc;

	if (!OidIsValid(t->chunk_oid))
		catalog_report_damaged(t, "its chunk relation is missing (ots.verify() says more)");
	memset(cr, 0, sizeof(*cr));
	cr->key = key;
	cr->writing = writing;
	cr->rel = table_open(t->chunk_oid, mode);
	pkey = RelationGetPrimaryKeyIndex(cr->rel);
	if (!OidIsValid(pkey))
		catalog_report_damaged(t, "its chunk relation has no primary key");
	cr->pkey = index_open(pkey, mode);
	/* a seek (btree_seek) builds a key of these columns, no more, no fewer */
	if (cr->pkey->rd_rel->relam != BTREE_AM_OID ||
		IndexRelationGetNumberOfAttributes(cr->pkey) != key->nkeys + 2 ||
		IndexRelationGetNumberOfKeyAttributes(cr->pkey) != key->nkeys + 2)
		catalog_report_damaged(t, "its chunk relation's primary key is not as ots made it");
	for (int k = 0; k < key->nkeys; k++)
		cr->key_attnos[k] = cr->pkey->rd_index->indkey.values[k];
	lc = leaf_place(t->chunk_oid);
	if ((cr->column_attno = lc->chunk_column_attno) == InvalidAttrNumber)
		chunkstore_missing(t, STORAGE_CHUNK_COLUMN_COLUMN);
	if ((cr->ts_attno = lc->chunk_ts_attno) == InvalidAttrNumber)
		chunkstore_missing(t, STORAGE_CHUNK_TS_COLUMN);
	if ((cr->cells_attno = lc->cells_attno) == InvalidAttrNumber)
		chunkstore_missing(t, STORAGE_CELLS_COLUMN);
	if ((cr->oldest_attno = lc->oldest_attno) == InvalidAttrNumber)
		chunkstore_missing(t, STORAGE_OLDEST_TS_COLUMN);
}

void
chunkstore_close(ChunkRel *cr)
{
	if (cr->slot != NULL)
		ExecDropSingleTupleTableSlot(cr->slot);
	index_close(cr->pkey, NoLock);
	table_close(cr->rel, NoLock);
}

/* chunkstore_key_eq: the scan keys of the row's stored key, equal */
static int
chunkstore_key_eq(ChunkRel *cr, ScanKeyData *skeys)
{
	const RowKey *key = cr->key;

	for (int k = 0; k < key->nkeys; k++)
	{
		RegProcedure eq = key->types[k] == INT8OID ? F_INT8EQ :
			key->types[k] == TEXTOID ? F_TEXTEQ : F_BYTEAEQ;

		ScanKeyInit(&skeys[k], k + 1, BTEqualStrategyNumber, eq, key->values[k]);
		skeys[k].sk_collation = cr->pkey->rd_indcollation[k];
	}
	return key->nkeys;
}

/* chunkstore_column_key adds a scan key on "$column" (strategy: <, <=, =, >=, >) */
static void
chunkstore_column_key(ChunkRel *cr, ScanKeyData *skey, StrategyNumber strategy, Datum column)
{
	int			col = cr->key->nkeys;
	RegProcedure proc = strategy == BTLessStrategyNumber ? F_TEXT_LT :
		strategy == BTLessEqualStrategyNumber ? F_TEXT_LE :
		strategy == BTEqualStrategyNumber ? F_TEXTEQ :
		strategy == BTGreaterEqualStrategyNumber ? F_TEXT_GE : F_TEXT_GT;

	ScanKeyInit(skey, col + 1, strategy, proc, column);
	skey->sk_collation = cr->pkey->rd_indcollation[col];
}

/* chunkstore_ts_key adds a scan key on "$ts" */
static void
chunkstore_ts_key(ChunkRel *cr, ScanKeyData *skey, StrategyNumber strategy, int64 ts)
{
	RegProcedure proc = strategy == BTLessStrategyNumber ? F_INT8LT :
		strategy == BTLessEqualStrategyNumber ? F_INT8LE :
		strategy == BTEqualStrategyNumber ? F_INT8EQ :
		strategy == BTGreaterEqualStrategyNumber ? F_INT8GE : F_INT8GT;

	ScanKeyInit(skey, cr->key->nkeys + 2, strategy, proc, Int64GetDatum(ts));
}

/* chunkstore_read copies the chunk in slot */
static void
chunkstore_read(ChunkRel *cr, TupleTableSlot *slot, StoredChunk *out)
{
	bool		isnull;
	text	   *column = DatumGetTextPP(slot_getattr(slot, cr->column_attno, &isnull));

	out->tid = slot->tts_tid;
	out->columnlen = VARSIZE_ANY_EXHDR(column);
	out->column = pnstrdup(VARDATA_ANY(column), out->columnlen);
	out->ts = DatumGetInt64(slot_getattr(slot, cr->ts_attno, &isnull));
	out->cells = PG_DETOAST_DATUM_COPY(slot_getattr(slot, cr->cells_attno, &isnull));
}

/* chunkstore_continues: does chunk next begin with the column chunk prev ends with? */
static bool
chunkstore_continues(const StoredChunk *prev, const StoredChunk *next)
{
	CellsColumn col;

	return cells_last_column(prev->cells, &col) &&
		cells_name_cmp(col.name, col.namelen, next->column, next->columnlen) == 0;
}

/*
 * chunkstore_first reads the first chunk the scan keys select in the
 * direction given; false if none
 */
static bool
chunkstore_first(ChunkRel *cr, Snapshot snapshot, ScanKeyData *skeys, int nkeys,
				 ScanDirection dir, StoredChunk *out)
{
	TupleTableSlot *slot = table_slot_create(cr->rel, NULL);
	IndexScanDesc scan = index_beginscan(cr->rel, cr->pkey, snapshot, nkeys, 0);
	bool		found;

	index_rescan(scan, skeys, nkeys, NULL, 0);
	found = index_getnext_slot(scan, dir, slot);
	if (found)
		chunkstore_read(cr, slot, out);
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	return found;
}

/*
 * chunkstore_seek reads the chunk of the row nearest the position (column,
 * ts) in direction dir, at or past it (inclusive) or past it, by one
 * descent (btree_seek); BTREE_SEEK_UNSURE when it cannot tell, for the
 * caller's index scan
 */
static BtreeSeek
chunkstore_seek(ChunkRel *cr, Snapshot snapshot, const char *column, uint32 columnlen, int64 ts,
				ScanDirection dir, bool inclusive, StoredChunk *out)
{
	const RowKey *key = cr->key;
	Datum		values[OTS_MAX_KEY_COLUMNS + 3];
	BtreeSeek	result;

	if (!ots_chunk_seek || !IsMVCCSnapshot(snapshot))
		return BTREE_SEEK_UNSURE;
	memcpy(values, key->values, sizeof(Datum) * key->nkeys);
	values[key->nkeys] = PointerGetDatum(cstring_to_text_with_len(column, columnlen));
	values[key->nkeys + 1] = Int64GetDatum(ts);
	if (cr->slot == NULL)
		cr->slot = table_slot_create(cr->rel, NULL);
	result = btree_seek(cr->rel, cr->pkey, snapshot, values, key->nkeys, dir, inclusive, cr->slot);
	if (result == BTREE_SEEK_FOUND)
	{
		chunkstore_read(cr, cr->slot, out);
		ExecClearTuple(cr->slot);
	}
	pfree(DatumGetPointer(values[key->nkeys]));
	return result;
}

bool
chunkstore_find(ChunkRel *cr, Snapshot snapshot, const char *column, uint32 columnlen,
				int64 ts, StoredChunk *out)
{
	ScanKeyData skeys[OTS_MAX_KEY_COLUMNS + 3];
	int			n;
	Datum		name;
	BtreeSeek	found = chunkstore_seek(cr, snapshot, column, columnlen, ts,
										BackwardScanDirection, true, out);

	/* the position comes before every chunk: the row's first one, if any */
	if (found == BTREE_SEEK_NONE)
		found = chunkstore_seek(cr, snapshot, "", 0, PG_INT64_MIN, ForwardScanDirection, true, out);
	if (found != BTREE_SEEK_UNSURE)
		return found == BTREE_SEEK_FOUND;

	n = chunkstore_key_eq(cr, skeys);
	name = PointerGetDatum(cstring_to_text_with_len(column, columnlen));

	/*
	 * The last chunk that starts at or before the column's end: the one,
	 * unless it starts with the column after ts (a position among the
	 * column's older cells, or a new cell behind newer ones)
	 */
	chunkstore_column_key(cr, &skeys[n], BTLessEqualStrategyNumber, name);
	if (chunkstore_first(cr, snapshot, skeys, n + 1, BackwardScanDirection, out))
	{
		if (out->ts <= ts || cells_name_cmp(out->column, out->columnlen, column, columnlen) != 0)
			return true;
		/* a chunk of the column itself that starts at or before ts */
		chunkstore_column_key(cr, &skeys[n], BTEqualStrategyNumber, name);
		chunkstore_ts_key(cr, &skeys[n + 1], BTLessEqualStrategyNumber, ts);
		if (chunkstore_first(cr, snapshot, skeys, n + 2, BackwardScanDirection, out))
			return true;
		/* else the last chunk that starts before the column */
		chunkstore_column_key(cr, &skeys[n], BTLessStrategyNumber, name);
		if (chunkstore_first(cr, snapshot, skeys, n + 1, BackwardScanDirection, out))
			return true;
	}
	/* the position comes before every chunk: the row's first one holds it */
	return chunkstore_first(cr, snapshot, skeys, n, ForwardScanDirection, out);
}

bool
chunkstore_neighbour(ChunkRel *cr, Snapshot snapshot, const char *column, uint32 columnlen,
					 int64 ts, bool forward, StoredChunk *out)
{
	ScanKeyData skeys[OTS_MAX_KEY_COLUMNS + 3];
	int			n;
	Datum		name;
	BtreeSeek	found = chunkstore_seek(cr, snapshot, column, columnlen, ts,
										forward ? ForwardScanDirection : BackwardScanDirection,
										false, out);

	if (found != BTREE_SEEK_UNSURE)
		return found == BTREE_SEEK_FOUND;

	n = chunkstore_key_eq(cr, skeys);
	name = PointerGetDatum(cstring_to_text_with_len(column, columnlen));
	/* the same column, a later (earlier) first timestamp */
	chunkstore_column_key(cr, &skeys[n], BTEqualStrategyNumber, name);
	chunkstore_ts_key(cr, &skeys[n + 1], forward ? BTGreaterStrategyNumber : BTLessStrategyNumber, ts);
	if (chunkstore_first(cr, snapshot, skeys, n + 2,
						 forward ? ForwardScanDirection : BackwardScanDirection, out))
		return true;
	/* else a later (earlier) column */
	chunkstore_column_key(cr, &skeys[n], forward ? BTGreaterStrategyNumber : BTLessStrategyNumber,
						  name);
	return chunkstore_first(cr, snapshot, skeys, n + 1,
							forward ? ForwardScanDirection : BackwardScanDirection, out);
}

StoredChunk *
chunkstore_scan(ChunkRel *cr, Snapshot snapshot, const char *from, uint32 fromlen, int64 from_ts,
				const char *to, uint32 tolen, ChunkBudget *budget, int *nchunks)
{
	uint64		read = 0;
	ScanKeyData skeys[OTS_MAX_KEY_COLUMNS + 3];
	int			n = chunkstore_key_eq(cr, skeys);
	StoredChunk first;
	bool		have_first = false;
	int			max = 8;
	int			count = 0;
	StoredChunk *chunks = palloc(sizeof(StoredChunk) * max);
	TupleTableSlot *slot;
	IndexScanDesc scan;
	int			nscan = n;

	if (budget != NULL)
		budget->next = NULL;
	if (from != NULL && chunkstore_find(cr, snapshot, from, fromlen, from_ts, &first))
	{
		CellsColumn last;

		/*
		 * from the chunk holding the position on, unless it holds only
		 * columns before it (the position begins the next chunk)
		 */
		have_first = true;
		if (!cells_last_column(first.cells, &last) ||
			cells_name_cmp(last.name, last.namelen, from, fromlen) >= 0)
		{
			chunks[count++] = first;
			read += VARSIZE(first.cells);
		}
		chunkstore_column_key(cr, &skeys[n], BTGreaterEqualStrategyNumber,
							  PointerGetDatum(cstring_to_text_with_len(first.column, first.columnlen)));
		nscan = n + 1;
	}
	else if (from != NULL)
	{
		*nchunks = 0;
		return chunks;
	}
	if (to != NULL)
		chunkstore_column_key(cr, &skeys[nscan++], BTLessEqualStrategyNumber,
							  PointerGetDatum(cstring_to_text_with_len(to, tolen)));

	slot = table_slot_create(cr->rel, NULL);
	scan = index_beginscan(cr->rel, cr->pkey, snapshot, nscan, 0);
	index_rescan(scan, skeys, nscan, NULL, 0);
	while (index_getnext_slot(scan, ForwardScanDirection, slot))
	{
		StoredChunk c;

		chunkstore_read(cr, slot, &c);
		/* the first chunk's column may have chunks before it: they come first here */
		if (have_first && cells_position_cmp(c.column, c.columnlen, c.ts,
											 first.column, first.columnlen, first.ts) <= 0)
			continue;
		if (budget != NULL && count > 0 && read >= budget->budget &&
			(budget->anywhere || !chunkstore_continues(&chunks[count - 1], &c)))
		{
			/* the budget is spent and c begins a column: the next page begins there */
			budget->next = c.column;
			budget->nextlen = c.columnlen;
			budget->next_ts = c.ts;
			break;
		}
		read += VARSIZE(c.cells);
		if (count == max)
		{
			max *= 2;
			chunks = repalloc(chunks, sizeof(StoredChunk) * max);
		}
		chunks[count++] = c;
	}
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	*nchunks = count;
	return chunks;
}

/* chunkstore_slot makes the tuple of a chunk of the row */
static TupleTableSlot *
chunkstore_slot(ChunkRel *cr, const CellsChunk *chunk)
{
	TupleTableSlot *slot = MakeSingleTupleTableSlot(RelationGetDescr(cr->rel), &TTSOpsVirtual);
	int			natts = RelationGetDescr(cr->rel)->natts;

	ExecClearTuple(slot);
	memset(slot->tts_isnull, true, sizeof(bool) * natts);
	for (int k = 0; k < cr->key->nkeys; k++)
	{
		slot->tts_values[cr->key_attnos[k] - 1] = cr->key->values[k];
		slot->tts_isnull[cr->key_attnos[k] - 1] = false;
	}
	slot->tts_values[cr->column_attno - 1] =
		PointerGetDatum(cstring_to_text_with_len(chunk->column, chunk->columnlen));
	slot->tts_values[cr->ts_attno - 1] = Int64GetDatum(chunk->ts);
	slot->tts_values[cr->cells_attno - 1] = PointerGetDatum(chunk->cells);
	slot->tts_values[cr->oldest_attno - 1] = Int64GetDatum(chunk->oldest_ts);
	slot->tts_isnull[cr->column_attno - 1] = false;
	slot->tts_isnull[cr->ts_attno - 1] = false;
	slot->tts_isnull[cr->cells_attno - 1] = false;
	slot->tts_isnull[cr->oldest_attno - 1] = false;
	return ExecStoreVirtualTuple(slot);
}

/* chunkstore_index: the relation's index entries for the new version in slot */
static void
chunkstore_index(ChunkRel *cr, TupleTableSlot *slot, bool update)
{
	EState	   *estate = CreateExecutorState();
	ResultRelInfo *rri = makeNode(ResultRelInfo);

	InitResultRelInfo(rri, cr->rel, 0, NULL, 0);
	ExecOpenIndices(rri, false);
	(void) ExecInsertIndexTuples(rri, slot, estate, update, false, NULL, NIL);
	ExecCloseIndices(rri);
	ExecResetTupleTable(estate->es_tupleTable, false);
	FreeExecutorState(estate);
}

/* chunkstore_failed: a chunk changed under the head's writer, which only plain SQL does */
static void
chunkstore_failed(TM_Result result)
{
	if (result != TM_Ok)
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("could not serialize access due to a concurrent change of an ots row's chunk"),
				 errdetail("A chunk of a split row changed while its row's writer held the row.")));
}

void
chunkstore_insert(ChunkRel *cr, const CellsChunk *chunk)
{
	TupleTableSlot *slot = chunkstore_slot(cr, chunk);

	announce_row(cr->key->t, RelationGetRelid(cr->rel), slot, cr->cells_attno, NULL, NULL);
	table_tuple_insert(cr->rel, slot, GetCurrentCommandId(true), 0, NULL);
	announce_end();
	chunkstore_index(cr, slot, false);
	ExecDropSingleTupleTableSlot(slot);
}

void
chunkstore_update(ChunkRel *cr, ItemPointer tid, const CellsChunk *chunk)
{
	TupleTableSlot *slot = chunkstore_slot(cr, chunk);
	TM_FailureData tmfd;
	LockTupleMode lockmode;
	bool		update_indexes;
	TM_Result	result;

	announce_row(cr->key->t, RelationGetRelid(cr->rel), slot, cr->cells_attno, NULL, NULL);
	result = table_tuple_update(cr->rel, tid, slot, GetCurrentCommandId(true),
								GetActiveSnapshot(), InvalidSnapshot, true, &tmfd, &lockmode,
								&update_indexes);
	announce_end();
	chunkstore_failed(result);
	if (update_indexes)
		chunkstore_index(cr, slot, true);
	ExecDropSingleTupleTableSlot(slot);
}

void
chunkstore_delete(ChunkRel *cr, ItemPointer tid)
{
	TM_FailureData tmfd;
	TM_Result	result;

	announce_row(cr->key->t, RelationGetRelid(cr->rel), NULL, 0, NULL, NULL);
	result = table_tuple_delete(cr->rel, tid, GetCurrentCommandId(true), GetActiveSnapshot(),
								InvalidSnapshot, true, &tmfd, false);
	announce_end();
	chunkstore_failed(result);
}
