/*
 * range_fetch.h: the shards' get_range pages, read through SPI
 * (ots_cluster.range_read of proxy/sql/40_range.sql), each page held in
 * a memory context of its own.  range_fetch.c owns it.
 */
#ifndef OTS_PROXY_RANGE_FETCH_H
#define OTS_PROXY_RANGE_FETCH_H

#include "range_key.h"

/* one shard of a range: its current page and where its next one starts */
typedef struct RangeShard
{
	int32		hash;			/* a routing hash of the shard */
	MemoryContext ctx;			/* holds page, rows and next; reset per page */
	Jsonb	   *page;			/* the rows it sent (NULL before the first) */
	RangeRow   *rows;
	int			nrows;
	int			pos;			/* its next row not merged yet */
	Jsonb	   *next;			/* where its next page starts */
	bool		done;			/* it sent its last page (no next) */
	Jsonb	   *consumed;		/* its page's capacity units */
} RangeShard;

/* a range over some shards, its arguments as get_range takes them */
typedef struct RangeRequest
{
	RangeKeyDef def;
	Datum		table;			/* ots_cluster.table_entry (NULL fields: unknown) */
	Datum		target;			/* the name the shards get */
	int			nshards;
	RangeShard *shards;
	Datum		args[12];		/* get_range's arguments, as given */
	bool		nulls[12];
	int64		max_rows;		/* the shards' page caps (min over them) */
	int64		max_bytes;
} RangeRequest;

extern void range_request_start(RangeRequest *req, FunctionCallInfo fcinfo);
extern RangeShard *range_first_shard(RangeRequest *req);
extern void range_advance(RangeRequest *req, RangeShard *first);
extern void range_fetch(RangeRequest *req, const bool *want, int64 limit, bool limited);

#endif
