/*-------------------------------------------------------------------------
 * src/search/agg_request.h
 *	  A search's aggregation request as the aggregation files read it
 *	  (agg_request.c): one search's aggregations under way, its members
 *	  checked, a group-by's sorters, its statements run.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_SEARCH_AGG_REQUEST_H
#define OTS_SEARCH_AGG_REQUEST_H

#include "postgres.h"
#include "utils/jsonb.h"

#include "search/search_query.h"

/*
 * aggs, and group_bys, in one list: ots's own bound (the Node SDK's search
 * test sends Tablestore 8 aggs in one list; AGG_MAX_STATEMENTS bounds the work)
 */
#define AGG_MAX_PER_LEVEL		25
#define AGG_MAX_STATEMENTS		10000	/* statements one search's aggregations run */
#define AGG_MAX_GROUPS			2000	/* buckets of a group-by (a page of a composite's) */
#define AGG_DEFAULT_GROUPS		10

/* one search's aggregations under way */
typedef struct AggRun
{
	SearchSql  *q;
	const char *storage;
	int			statements;
} AggRun;

/* a sorter of a group-by's sort */
typedef struct GroupSorter
{
	char		kind;			/* 'k' key, 'c' row count, 'a' sub-aggregation */
	bool		desc;
	JsonbContainer *sub_agg;	/* of 'a' */
} GroupSorter;

/* OTSParameterInvalid with message, pointing at the reference's aggregations */
extern void agg_refuse(const char *message) pg_attribute_noreturn();

/* a request's members: present and not null, else NULL (or refused where required or malformed) */
extern JsonbValue *agg_member(JsonbContainer *obj, const char *key, JsonbValue *out);
extern const char *agg_string(JsonbContainer *obj, const char *key, const char *what);
extern double agg_number(JsonbContainer *obj, const char *key, double dflt, const char *what);
extern int64 agg_count(JsonbContainer *obj, const char *key, const char *what);
extern JsonbContainer *agg_object(JsonbValue *v, const char *what);
extern JsonbContainer *agg_array(JsonbContainer *obj, const char *key, const char *what);

/* a list's names: each present, not empty, distinct; at most AGG_MAX_PER_LEVEL of them */
extern void agg_names_distinct(JsonbContainer *list, const char *what);

/*
 * group_sorter_list: the sorters of group-by g's sort (*n of them; a
 * sub_agg_sort only of a group_by_field, its sub-aggregation found), with
 * room for two more after them
 */
extern GroupSorter *group_sorter_list(JsonbContainer *g, const char *what, int *n);

/* agg_run: the rows of sql, in SPI_tuptable, after a check of the statements run; a column of one read */
extern uint64 agg_run(AggRun *r, const char *sql);
extern Jsonb *agg_jsonb(int row, int col);
extern int64 agg_int(int row, int col);

#endif							/* OTS_SEARCH_AGG_REQUEST_H */
