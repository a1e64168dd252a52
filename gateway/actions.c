/*-------------------------------------------------------------------------
 * gateway/actions.c
 *	  The Tablestore actions otsd serves, by the name in the request path.
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "action.h"

static const Action otsd_actions[] = {
	{"CreateTable", action_create_table},
	{"ListTable", action_list_table},
	{"DescribeTable", action_describe_table},
	{"UpdateTable", action_update_table},
	{"DeleteTable", action_delete_table},
	{"CreateIndex", action_create_index},
	{"DropIndex", action_drop_index},
	{"AddDefinedColumn", action_add_defined_column},
	{"DeleteDefinedColumn", action_delete_defined_column},
	{"ComputeSplitPointsBySize", action_compute_split_points_by_size},
	{"ListSearchIndex", action_list_search_index},
	{"CreateSearchIndex", action_create_search_index},
	{"DescribeSearchIndex", action_describe_search_index},
	{"UpdateSearchIndex", action_update_search_index},
	{"DeleteSearchIndex", action_delete_search_index},
	{"Search", action_search},
	{"ComputeSplits", action_compute_splits},
	{"ParallelScan", action_parallel_scan},
	{"PutRow", action_put_row},
	{"UpdateRow", action_update_row},
	{"DeleteRow", action_delete_row},
	{"GetRow", action_get_row},
	{"GetRange", action_get_range},
	{"BatchGetRow", action_batch_get_row},
	{"BatchWriteRow", action_batch_write_row},
	{"BulkImport", action_bulk_import},
	{"BulkExport", action_bulk_export},
	{"StartLocalTransaction", action_start_local_transaction},
	{"CommitTransaction", action_commit_transaction},
	{"AbortTransaction", action_abort_transaction},
	{"ListStream", action_list_stream},
	{"DescribeStream", action_describe_stream},
	{"GetShardIterator", action_get_shard_iterator},
	{"GetStreamRecord", action_get_stream_record},
	{NULL, NULL}
};

/* actions_find: the action of that name, NULL when otsd serves none */
const Action *
actions_find(const char *name)
{
	for (const Action *a = otsd_actions; a->name != NULL; a++)
		if (strcmp(a->name, name) == 0)
			return a;
	return NULL;
}
