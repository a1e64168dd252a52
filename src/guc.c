/*-------------------------------------------------------------------------
 * src/guc.c
 *	  Defines every ots.* configuration parameter, alphabetically, and
 *	  reserves the "ots." prefix.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"
#include <limits.h>

#include "miscadmin.h"
#include "utils/guc.h"

#include "guc.h"

/* every five minutes: pg_cron 1.4 schedules have minute granularity */
#define GUC_DEFAULT_PURGE_SCHEDULE "*/5 * * * *"

bool		ots_key_scan = true;
bool		ots_attribute_pushdown = true;
bool		ots_chunk_seek = true;
bool		ots_count_writes = false;
bool		ots_index_build_worker = true;
bool		ots_index_scan = true;
bool		ots_search_scan = true;
bool		ots_search_filter_first = true;
int			ots_search_backfill_blocks = 1024;
char	   *ots_purge_schedule = NULL;
int			ots_stats_max_tables = 1000;

/*
 * guc_init defines the parameters; called from _PG_init, so the
 * postmaster-level ones take their values from the configuration when ots
 * is preloaded.
 */
void
guc_init(void)
{
	DefineCustomBoolVariable("ots.chunk_seek",
							 "Finds a split row's chunk by one descent of its chunk relation's primary key.",
							 "Off finds it with PostgreSQL's index scan, which reads every entry of the row "
							 "on the index page it reaches; the result is the same.",
							 &ots_chunk_seek,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("ots.count_writes",
							 "Counts the row changes the write point of ots storage sees (ots.write_point_counts).",
							 "A diagnostic: the tests use it to show that every way of changing a stored row "
							 "reaches the write point.  Needs ots in shared_preload_libraries.",
							 &ots_count_writes,
							 false,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomStringVariable("ots.purge_schedule",
							   "Cron schedule of the purge jobs ots creates in pg_cron.",
							   "Applies to jobs scheduled from now on (by create_table and update_table); "
							   "change an existing job with cron.alter_job.",
							   &ots_purge_schedule,
							   GUC_DEFAULT_PURGE_SCHEDULE,
							   PGC_USERSET,
							   0,
							   NULL, NULL, NULL);

	DefineCustomBoolVariable("ots.key_scan",
							 "Reads the rows of one partition key of ots storage with the ots key scan.",
							 "A SELECT over a table's view or storage whose WHERE fixes the partition key "
							 "reads that key's leaf only, routed at execution; off leaves such statements "
							 "to PostgreSQL's partition pruning.",
							 &ots_key_scan,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("ots.attribute_pushdown",
							 "Reads attributes ->> 'name' of a table's view as that one column of the cells.",
							 "Off renders every column of each row as jsonb and looks the name up in it; "
							 "the result is the same.",
							 &ots_attribute_pushdown,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("ots.index_scan",
							 "Plans a query on a table's view whose WHERE fixes indexed columns through the secondary index.",
							 "Off reads every row of the table and tests the condition; the result is the same.",
							 &ots_index_scan,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("ots.search_scan",
							 "Plans a query on a table's view whose WHERE a search index serves through the index.",
							 "Off reads every row of the table and tests the condition; the result is the same.",
							 &ots_search_scan,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("ots.search_filter_first",
							 "Lets a sorted search whose condition matches few rows read them before ordering them.",
							 "Off leaves the planner's plan (often a walk of the sort's index); the rows are the same.",
							 &ots_search_filter_first,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("ots.search_backfill_blocks",
							"The largest table (blocks of its storage) create_search_index fills the new index of in its own transaction.",
							"Past it, the index starts in sync phase FULL and the build worker (or CALL ots.build_search_index) fills it in batches, writers going on.",
							&ots_search_backfill_blocks,
							1024,
							0,
							INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("ots.index_build_worker",
							 "Builds an index create_index makes on a table with rows, and a search index on a large table, in a background worker.",
							 "Off leaves the index building (its reads refused) until CALL ots.build_index or ots.build_search_index.",
							 &ots_index_build_worker,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	/*
	 * A postmaster-level parameter may only be defined while ots is being
	 * preloaded (later, PostgreSQL refuses with FATAL); without preloading
	 * there are no shared counters to size anyway.
	 */
	if (process_shared_preload_libraries_in_progress)
		DefineCustomIntVariable("ots.stats_max_tables",
								"Number of ots tables whose activity the shared counters of ots.stats can track.",
								"Counters need ots in shared_preload_libraries; a table beyond this limit is not counted.",
								&ots_stats_max_tables,
								1000,
								16,
								1000000,
								PGC_POSTMASTER,
								0,
								NULL, NULL, NULL);

	MarkGUCPrefixReserved("ots");
}
