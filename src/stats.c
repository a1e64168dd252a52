/*-------------------------------------------------------------------------
 * src/stats.c
 *	  Per-table activity counters (placeholder until the shared-memory
 *	  implementation lands: counting is a no-op).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "stats.h"

void
stats_init(void)
{
}

void
stats_count(const OtsTable *t, int64 rows_read, int64 rows_written,
			int64 read_cu, int64 write_cu)
{
}
