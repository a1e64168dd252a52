/*-------------------------------------------------------------------------
 * src/writepoint/chunk_first.c
 *	  A split row copied by plain SQL: its chunks first, then its head, in
 *	  one transaction.
 *
 * Secondary indexes, defined columns' types and the stream follow a split
 * row's cells, and ots tells them a row's change at its head
 * (storage_write_expand_heads reads a plain-SQL head's defined columns from
 * its chunks, stream_write_change its every cell).  So plain SQL may not change the chunks of an existing row
 * of such a table alone.  A copy of rows from elsewhere (the cluster's
 * partition mover, COPY between databases) may bring a split row's chunks
 * before its head: a chunk is let in when no row of its key is stored (as
 * this transaction sees it), and the transaction may commit only if it
 * stored the head of every such key itself, by plain SQL (ots's row code
 * may not write a row over them: chunk_first_waiting).  The storage's primary key
 * then serializes it with any writer of the same key (the later head
 * fails), so the chunks join no row but the one they came with, and the
 * head's index entries are computed from them.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "executor/tuptable.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "format/cells.h"
#include "format/codec.h"
#include "meta/catalog.h"
#include "meta/storage.h"
#include "store/rowstore.h"
#include "store/routing.h"
#include "writepoint/chunk_first.h"
#include "writepoint/xact_pending.h"

/* a key whose chunks came before its head, in (sub)transaction subid */
typedef struct ChunkFirst
{
	XactPendingItem pending;	/* first: chunks_first's item */
	Oid			storage_oid;
	PkInput		pk;				/* its values copied into TopTransactionContext */
} ChunkFirst;

static void chunk_first_check(XactPendingItem *item);

static XactPending chunks_first = {.finish = chunk_first_check};

/* chunk_first_fetch: the stored row of key pk (latest committed, or this transaction's), or NULL */
static struct varlena *
chunk_first_fetch(const OtsTable *t, const PkInput *pk, RowKey *key)
{
	routing_key(t, pk, key);
	return rowstore_fetch_self(key);
}

/* chunk_first_check: before the commit, the key's head is stored, by this transaction */
static void
chunk_first_check(XactPendingItem *item)
{
	ChunkFirst *cf = (ChunkFirst *) item;
	const OtsTable *t = catalog_lookup_by_data_oid(cf->storage_oid);
	RowKey		key;
	struct varlena *cells;

	if (t == NULL)
		return;					/* its table was dropped: its chunks with it */
	cells = chunk_first_fetch(t, &cf->pk, &key);
	if (cells == NULL || !cells_is_head(cells) || !rowstore_fetched_own(&key))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("chunks of a row of ots table %s were written without its head",
						quote_qualified_identifier(t->schema_name, t->table_name)),
				 errdetail("Plain SQL may bring a split row's chunks to a table with secondary indexes, defined columns or a stream only with the row's head, later in the same transaction."),
				 errhint("Copy the chunk relation's rows and then the storage's in one transaction, or write the row with the ots row functions.")));
}

bool
chunk_first_allowed(const OtsTable *t, const PkInput *pk)
{
	RowKey		key;
	MemoryContext old;
	ChunkFirst *cf;
	ChunkFirst *last = chunks_first.items != NIL ? llast(chunks_first.items) : NULL;

	/*
	 * Asked for every chunk: once the transaction stored the head, a chunk
	 * of its key is one of a stored row's, refused (the head's entries are
	 * made)
	 */
	if (chunk_first_fetch(t, pk, &key) != NULL)
		return false;
	/* a row's chunks come one after another: its key is noted once */
	if (last != NULL && last->storage_oid == t->data_oid &&
		last->pending.subid == GetCurrentSubTransactionId() && codec_pk_equal(&last->pk, pk))
		return true;
	old = MemoryContextSwitchTo(TopTransactionContext);
	cf = palloc0(sizeof(ChunkFirst));
	cf->storage_oid = t->data_oid;
	codec_pk_copy(&cf->pk, pk);
	MemoryContextSwitchTo(old);
	xact_pending_add(&chunks_first, &cf->pending);
	return true;
}

bool
chunk_first_waiting(const OtsTable *t, const PkInput *pk)
{
	ListCell   *lc;

	foreach(lc, chunks_first.items)
	{
		ChunkFirst *cf = (ChunkFirst *) lfirst(lc);

		if (cf->storage_oid == t->data_oid && codec_pk_equal(&cf->pk, pk))
			return true;
	}
	return false;
}

bool
chunk_first_any(void)
{
	return chunks_first.items != NIL;
}
