/*-------------------------------------------------------------------------
 * src/search/search_order.h
 *	  A row's place in a search's order as bytes that compare (bytewise)
 *	  as the order does: what a cluster's proxy merges the shards' pages by.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_SEARCH_ORDER_H
#define OTS_SEARCH_ORDER_H

#include "postgres.h"
#include "utils/jsonb.h"

#include "search/search_query.h"

/*
 * search_order_key: the place of a row with these sort values (the order's
 * keys, a jsonb array as the compiled search selects them) and primary key
 * (a jsonb array of the storage's key values), as lowercase hex
 */
extern char *search_order_key(const SearchOrder *keys, const OtsTable *t, Jsonb *sort_values, Jsonb *key);

#endif							/* OTS_SEARCH_ORDER_H */
