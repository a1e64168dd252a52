/*-------------------------------------------------------------------------
 * src/search/search_composite.h
 *	  Tablestore's group_by_composite: a page of the groups of several
 *	  sources' keys at once (search_composite.c); search_agg.c shows them
 *	  with each group's sub-aggregations.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_SEARCH_COMPOSITE_H
#define OTS_SEARCH_COMPOSITE_H

#include "postgres.h"
#include "utils/jsonb.h"

#include "search/agg_request.h"

/* a page of a composite's groups */
typedef struct CompositePage
{
	int			nsources;
	const char **names;			/* the sources' */
	int			ngroups;
	char	 ***keys;			/* per group, per source: the key as text, NULL: none */
	int64	   *counts;			/* per group: its rows */
	char	  **conditions;		/* per group: SQL of a row's being in it */
	char	   *next_token;		/* after the page's last group, NULL: it was the last */
} CompositePage;

/*
 * composite_page reads composite group-by g (a group-by of the search,
 * depth 1) and reads its page of groups among the rows within bucket
 */
extern void composite_page(AggRun *r, JsonbContainer *g, const char *bucket, int depth, CompositePage *page);

#endif							/* OTS_SEARCH_COMPOSITE_H */
