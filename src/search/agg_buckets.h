/*-------------------------------------------------------------------------
 * src/search/agg_buckets.h
 *	  How a histogram's and a date histogram's values fall into numbered
 *	  buckets, as SQL (agg_buckets.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_SEARCH_AGG_BUCKETS_H
#define OTS_SEARCH_AGG_BUCKETS_H

#include "postgres.h"
#include "utils/jsonb.h"

#include "search/agg_request.h"

/*
 * A histogram's buckets, as SQL: each row's values (an array, missing
 * standing in), whether a value e counts, the number of e's bucket (an
 * int8), and bucket y.k's key as shown, in member key_name
 */
typedef struct NumberedBuckets
{
	const char *values;
	const char *in_range;
	const char *number;
	const char *key;
	const char *key_name;
} NumberedBuckets;

/* group_values: SQL of a row's values of field f as an array, missing (given in g) when it has none */
extern const char *group_values(AggRun *r, JsonbContainer *g, const SearchField *f);

/* the buckets of a histogram and of a date histogram g, its parameters checked */
extern void histogram_buckets(AggRun *r, JsonbContainer *g, NumberedBuckets *b);
extern void date_histogram_buckets(AggRun *r, JsonbContainer *g, NumberedBuckets *b);

#endif							/* OTS_SEARCH_AGG_BUCKETS_H */
