/*-------------------------------------------------------------------------
 * src/stats.h
 *	  Per-table activity counters behind the ots.stats view: reads, writes
 *	  and capacity units of the row API.
 *
 * Counters live in shared memory when ots is in shared_preload_libraries;
 * otherwise stats_count does nothing and the view shows NULL for them.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_STATS_H
#define OTS_STATS_H

#include "postgres.h"

#include "meta/catalog.h"

/* stats_init reserves shared memory; called from _PG_init */
extern void stats_init(void);

/*
 * stats_count adds one call's rows read and written and capacity units to
 * the table's counters.  Cheap: a hash lookup and atomic adds.
 */
extern void stats_count(const OtsTable *t, int64 rows_read, int64 rows_written,
						int64 read_cu, int64 write_cu);

/* stats_count_stored counts a change the write point saw (storage_write.h's origin and callback) */
extern void stats_count_stored(Oid data_oid, int origin, int callback, int64 rows,
							   int64 with_old, int64 with_new);

#endif							/* OTS_STATS_H */
