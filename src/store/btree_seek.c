/*-------------------------------------------------------------------------
 * src/store/btree_seek.c
 *	  The index entry nearest a key: one btree descent, a binary search of
 *	  the leaf page, the heap tuples of the entries from there on read
 *	  under the snapshot until one is visible.
 *
 * The leaf page is read under its share lock only long enough to copy the
 * heap TIDs of the entries from the position on, in key order; as for
 * PostgreSQL's own index scans under an MVCC snapshot, the tuples are read
 * after the lock is released (a TID VACUUM frees meanwhile can only be
 * reused by a tuple the snapshot does not see).  When the entries the page
 * holds do not settle the answer (the prefix may go on in a sibling page,
 * or more entries than a seek copies are invisible), the seek says so and
 * the caller asks an index scan, which walks pages.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "catalog/pg_am_d.h"
#include "pgstat.h"
#include "storage/predicate.h"

#include "store/btree_seek.h"

/* heap TIDs a seek copies from the leaf page before it gives up to an index scan */
#define BTREE_SEEK_MAX_TIDS 32

/*
 * btree_seek_first: the first offset of the leaf page whose entry is after
 * the key (nextkey) or at least the key; maxoff + 1 if none
 */
static OffsetNumber
btree_seek_first(Relation index, BTScanInsert key, Page page, OffsetNumber low, OffsetNumber high)
{
	int32		go_right = key->nextkey ? 0 : 1;

	while (low < high)
	{
		OffsetNumber mid = low + (high - low) / 2;

		if (_bt_compare(index, key, page, mid) >= go_right)
			low = mid + 1;
		else
			high = mid;
	}
	return low;
}

/*
 * btree_seek_tids copies the heap TIDs of the entries of the leaf page
 * from offset off on, in direction dir, while their first key->keysz
 * columns equal the key's, at most max; *ended says whether no entry of
 * the prefix lies beyond those copied, *full whether max stopped it
 */
static int
btree_seek_tids(Relation index, BTScanInsert key, Page page, OffsetNumber off, bool backward,
				ItemPointerData *tids, int max, bool *ended, bool *full)
{
	BTPageOpaque opaque = BTPageGetOpaque(page);
	OffsetNumber minoff = P_FIRSTDATAKEY(opaque);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	bool		skip_killed = !TransactionStartedDuringRecovery();
	int			ntids = 0;

	*ended = *full = false;
	for (; backward ? off >= minoff : off <= maxoff; off = backward ? off - 1 : off + 1)
	{
		ItemId		iid = PageGetItemId(page, off);
		IndexTuple	itup = (IndexTuple) PageGetItem(page, iid);
		int			n = BTreeTupleIsPosting(itup) ? BTreeTupleGetNPosting(itup) : 1;

		if (_bt_compare(index, key, page, off) != 0)
		{
			*ended = true;
			return ntids;
		}
		/* an entry a scan marked dead points to a tuple no snapshot sees */
		if (skip_killed && ItemIdIsDead(iid))
			continue;
		if (ntids > 0 && ntids + n > max)
		{
			*full = true;
			return ntids;
		}
		if (BTreeTupleIsPosting(itup))
			for (int i = 0; i < n; i++)
				tids[ntids++] = *BTreeTupleGetPostingN(itup, i);
		else
			tids[ntids++] = itup->t_tid;
	}
	/* the page ends: the prefix may go on in the sibling, unless there is none */
	*ended = backward ? P_LEFTMOST(opaque) : P_RIGHTMOST(opaque);
	return ntids;
}

/*
 * btree_seek_once: the seek, looking at most at max heap TIDs (and at the
 * first entry's, however many)
 */
static BtreeSeek
btree_seek_once(Relation heap, Relation index, Snapshot snapshot, BTScanInsert key,
				BTScanInsert suffix, int prefix, bool backward, bool inclusive, int max,
				TupleTableSlot *slot, bool *full)
{
	OffsetNumber minoff;
	OffsetNumber maxoff;
	ItemPointerData tids[BTREE_SEEK_MAX_TIDS + MaxTIDsPerBTreePage];
	int			ntids;
	bool		ended;
	Buffer		buf;
	Page		page;
	OffsetNumber off;
	IndexFetchTableData *fetch;
	BtreeSeek	result;

	key->keysz = IndexRelationGetNumberOfKeyAttributes(index);
	/* the descent lands where the entries after (at least) the key begin */
	key->nextkey = backward == inclusive;
	if (suffix != NULL)
		suffix->nextkey = key->nextkey;
	_bt_freestack(_bt_search(index, key, &buf, BT_READ, snapshot));
	pgstat_count_index_scan(index);
	if (!BufferIsValid(buf))
	{
		/* an empty index */
		PredicateLockRelation(index, snapshot);
		*full = false;
		return BTREE_SEEK_NONE;
	}
	PredicateLockPage(index, BufferGetBlockNumber(buf), snapshot);
	page = BufferGetPage(buf);
	minoff = P_FIRSTDATAKEY(BTPageGetOpaque(page));
	maxoff = PageGetMaxOffsetNumber(page);
	/*
	 * Entries in order between two that have the key's prefix have it too:
	 * when the page's first and last do, the search compares the columns
	 * after the prefix only
	 */
	key->keysz = prefix;
	if (suffix != NULL && minoff < maxoff &&
		_bt_compare(index, key, page, minoff) == 0 && _bt_compare(index, key, page, maxoff) == 0)
		off = btree_seek_first(index, suffix, page, minoff, maxoff + 1);
	else
	{
		key->keysz = IndexRelationGetNumberOfKeyAttributes(index);
		off = btree_seek_first(index, key, page, minoff, maxoff + 1);
		key->keysz = prefix;
	}
	if (backward)
		off = OffsetNumberPrev(off);
	ntids = btree_seek_tids(index, key, page, off, backward, tids, max, &ended, full);
	_bt_relbuf(index, buf);

	result = ended ? BTREE_SEEK_NONE : BTREE_SEEK_UNSURE;
	fetch = table_index_fetch_begin(heap);
	for (int i = 0; i < ntids; i++)
	{
		bool		call_again = false;
		bool		all_dead = false;

		if (table_index_fetch_tuple(fetch, &tids[i], snapshot, slot, &call_again, &all_dead))
		{
			result = BTREE_SEEK_FOUND;
			break;
		}
	}
	table_index_fetch_end(fetch);
	return result;
}

BtreeSeek
btree_seek(Relation heap, Relation index, Snapshot snapshot, Datum *values, int prefix,
		   ScanDirection dir, bool inclusive, TupleTableSlot *slot)
{
	/* the insertion key of values, as _bt_mkscankey makes it of a tuple, without forming one */
	BTScanInsert key = _bt_mkscankey(index, NULL);
	BTScanInsert suffix = NULL;
	int			natts = IndexRelationGetNumberOfKeyAttributes(index);
	bool		full;
	BtreeSeek	result;

	Assert(IsMVCCSnapshot(snapshot));
	Assert(index->rd_rel->relam == BTREE_AM_OID);
	Assert(IndexRelationGetNumberOfAttributes(index) == IndexRelationGetNumberOfKeyAttributes(index));

	_bt_metaversion(index, &key->heapkeyspace, &key->allequalimage);
	for (int i = 0; i < natts; i++)
	{
		key->scankeys[i].sk_argument = values[i];
		key->scankeys[i].sk_flags &= ~SK_ISNULL;
	}
	key->anynullkeys = false;
	/* every entry equal to the key in its columns counts, whatever its heap TID */
	key->scantid = NULL;
	/*
	 * the key's columns after the prefix, for a leaf page whose entries all
	 * have it (_bt_compare takes each column by its sk_attno)
	 */
	if (prefix > 0 && prefix < natts)
	{
		suffix = palloc(offsetof(BTScanInsertData, scankeys) + sizeof(ScanKeyData) * (natts - prefix));
		memcpy(suffix, key, offsetof(BTScanInsertData, scankeys));
		memcpy(suffix->scankeys, key->scankeys + prefix, sizeof(ScanKeyData) * (natts - prefix));
		suffix->keysz = natts - prefix;
	}

	/*
	 * The nearest entry's tuple is visible unless it was updated or deleted
	 * since VACUUM last ran: look at it alone first, then at more (unless
	 * the first look reached the page's edge: a second would too)
	 */
	result = btree_seek_once(heap, index, snapshot, key, suffix, prefix,
							 ScanDirectionIsBackward(dir), inclusive, 1, slot, &full);
	if (result == BTREE_SEEK_UNSURE && full)
		result = btree_seek_once(heap, index, snapshot, key, suffix, prefix,
								 ScanDirectionIsBackward(dir), inclusive, BTREE_SEEK_MAX_TIDS,
								 slot, &full);
	if (suffix != NULL)
		pfree(suffix);
	pfree(key);
	return result;
}
