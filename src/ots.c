/*-------------------------------------------------------------------------
 * src/ots.c
 *	  Module entry: PG_MODULE_MAGIC and _PG_init, which only calls the
 *	  modules' init functions.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"
#include "fmgr.h"

#include "cache.h"
#include "meta/catalog.h"
#include "ddl/dropped.h"
#include "guc.h"
#include "planner/planner.h"
#include "preload.h"
#include "ddl/restore_utility.h"
#include "stats.h"
#include "store/announce.h"
#include "stream/stream.h"
#include "view/view_write.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	preload_init();
	guc_init();
	cache_init();
	catalog_init();
	stats_init();
	planner_init();
	announce_init();
	stream_init();
	view_statement_init();
	view_copy_init();
	restore_utility_init();
	dropped_init();
}
