/*-------------------------------------------------------------------------
 * src/api/auto_increment.c
 *	  Generated values of an AUTO_INCREMENT key column.
 *
 * A table's AUTO_INCREMENT column takes its values from the sequence
 * s."t$seq".  A generated key is a new row's and never replaces one
 * (Tablestore promises values unique and increasing per partition key), but
 * the sequence can be behind the stored rows: PostgreSQL 15's logical
 * replication does not carry sequences, so a subscriber's are where they
 * were when it took over; a restore of a table's rows without its sequence,
 * setval, or a writer storing explicit values does the same.  The row code
 * inserts a generated key only as a new row (the insert's arbiter is the
 * primary key, so the check is atomic with the insert, under concurrency
 * too) and, when the key is taken, asks here for a value past the rows of
 * that partition key: the largest value stored under the key's leading
 * columns (one backward index descent), plus one.  The sequence is one for
 * every partition key, so it is never moved to one partition key's rows: a
 * writer's values under its own partition key (up to the largest Integer)
 * would move it for all the others, or use it up.  A partition key whose
 * largest value is the largest Integer has none left, and its generated
 * keys are refused.  This costs nothing while the sequence is ahead of the
 * rows; ots.sync_auto_increment moves the sequences past the rows whole,
 * on the owner's request, after a failover or a restore.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "commands/sequence.h"
#include "utils/snapmgr.h"

#include "api/auto_increment.h"
#include "errors.h"
#include "meta/storage.h"

int64
auto_increment_next(const OtsTable *t)
{
	if (!OidIsValid(t->seq_oid))
		elog(ERROR, "AUTO_INCREMENT sequence of ots table \"%s\" is missing", t->table_name);
	/* the caller's right to write the table is its right to take a value */
	return nextval_internal(t->seq_oid, false);
}

/*
 * auto_increment_stored_max reads the largest value of the AUTO_INCREMENT
 * column stored under the key columns before it in pk (the partition key
 * and any between), with a snapshot taken now; false when there is none.
 */
static bool
auto_increment_stored_max(const OtsTable *t, const PkInput *pk, int64 *max)
{
	int			col = t->auto_increment_col;
	PkInput		high = *pk;
	PkInput		low = *pk;
	PkInput		row;
	struct varlena *cells;
	StorageRange *r;
	bool		found;

	for (int k = col; k < t->npk; k++)
	{
		high.special[k] = PK_INF_MAX;
		low.special[k] = PK_INF_MIN;
	}
	/* rows this transaction wrote, earlier in this command too */
	CommandCounterIncrement();
	PushActiveSnapshot(GetLatestSnapshot());
	r = storage_range_open(t, &high, &low, true);
	found = storage_range_next(r, &row, &cells);
	if (found)
		*max = row.v[col].u.i;
	storage_range_close(r);
	PopActiveSnapshot();
	return found;
}

int64
auto_increment_past(const OtsTable *t, const PkInput *pk)
{
	int			col = t->auto_increment_col;
	int64		max;

	/* the row that held the value is gone again: a new value, as at first */
	if (!auto_increment_stored_max(t, pk, &max) || max < pk->v[col].u.i)
		return auto_increment_next(t);
	if (max == PG_INT64_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_OTS_DATA_OUT_OF_RANGE),
				 errmsg_internal("No AUTO_INCREMENT value is left for this partition key."),
				 errdetail("Column '%s' of its rows already holds %lld, the largest Integer.",
						   t->pk[col].name, (long long) PG_INT64_MAX)));
	return max + 1;
}
