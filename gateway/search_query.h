/*-------------------------------------------------------------------------
 * gateway/search_query.h
 *	  A Search's SearchQuery as ots.search's JSON (search_query.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTSD_SEARCH_QUERY_H
#define OTSD_SEARCH_QUERY_H

#include "otsd.h"

/*
 * search_query_json: a serialized SearchQuery as ots's JSON search query
 * (query, sort, offset, limit, token, total count, collapse, aggs and
 * group_bys), or NULL with *err set to why it cannot be said
 */
extern json_t *search_query_json(const ProtobufCBinaryData *bytes, const char **err);

/* search_query_query_json: one Query as ots's JSON query, or NULL with *err */
extern json_t *search_query_query_json(const Otsp__Query *q, const char **err);

/* search_sort_order_name: a SortOrder as ots's ASC or DESC */
extern const char *search_sort_order_name(Otsp__SortOrder order);

#endif							/* OTSD_SEARCH_QUERY_H */
