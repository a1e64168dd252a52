/*-------------------------------------------------------------------------
 * gateway/search_result.h
 *	  ots.search's aggregations, group-bys and scores as the protocol's
 *	  results (search_result.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTSD_SEARCH_RESULT_H
#define OTSD_SEARCH_RESULT_H

#include "action.h"

/*
 * search_result_pack sets resp's aggs and group_bys from ots.search's
 * result (its "aggs" and "group_bys", in the order of query's), in memory
 * of k; field_types maps the index's fields to their types, pk_order lists
 * the table's key columns (for top_rows' rows)
 */
extern void search_result_pack(Kept *k, json_t *result, json_t *query, json_t *field_types, json_t *pk_order,
							   Otsp__SearchResponse *resp);

/* search_hits_pack: a scoring search's hits, each row's score in the rows' order, in memory of k */
extern void search_hits_pack(Kept *k, json_t *result, Otsp__SearchResponse *resp);

#endif							/* OTSD_SEARCH_RESULT_H */
