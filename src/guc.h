/*-------------------------------------------------------------------------
 * src/guc.h
 *	  ots.* configuration parameters.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_GUC_H
#define OTS_GUC_H

/* ots.purge_schedule: cron schedule of the purge jobs ots creates */
extern bool ots_chunk_seek;
extern bool ots_count_writes;
extern bool ots_index_build_worker;
extern bool ots_index_scan;
extern bool ots_search_scan;
extern bool ots_search_filter_first;
extern bool ots_key_scan;
extern bool ots_attribute_pushdown;
extern char *ots_purge_schedule;

/* ots.search_backfill_blocks: past this size a search index is built in the background */
extern int	ots_search_backfill_blocks;

/* ots.stats_max_tables: tables the shared activity counters can hold */
extern int	ots_stats_max_tables;

extern void guc_init(void);

#endif							/* OTS_GUC_H */
