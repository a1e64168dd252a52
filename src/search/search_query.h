/*-------------------------------------------------------------------------
 * src/search/search_query.h
 *	  A SearchQuery compiled into SQL over a search index's storage
 *	  (search_query.c): the condition of its query, its order with the
 *	  primary key last, and the position a paging token continues from.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_SEARCH_QUERY_H
#define OTS_SEARCH_QUERY_H

#include "postgres.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "search/search_index.h"

/*
 * the keys of a search's order, as search_order.c needs them to place a
 * row: the sort keys' storage types (int8, float8, bool, text) and
 * directions, then the primary key's direction (missing values last)
 */
typedef struct SearchOrder
{
	int			nkeys;			/* sort keys before the primary key's */
	int			cap;
	Oid		   *types;
	bool	   *desc;
	bool		key_desc;
} SearchOrder;

/*
 * A nested_query's inner_hits: for each row of the page (or document of an
 * outer nested_query's), the documents of its path its query matches
 */
typedef struct SearchInnerHits
{
	const char *path;
	const char *sql;			/* {"path", "hits": [{"offset", "inner_hits": [...]}]} of a row, as SQL */
	Jsonb	   *highlight;		/* highlight specs of its documents' fields (highlight.c), or NULL */
	int32		offset;			/* its page of a row's documents */
	int32		limit;
	bool		desc;			/* by the documents' order descending */
	struct SearchInnerHits *children;	/* of the nested queries in its query */
	struct SearchInnerHits *next;
} SearchInnerHits;

/* the query's SQL and its parameters ($1, $2, ...) */
typedef struct SearchSql
{
	const OtsTable *t;
	const SearchIndex *si;
	StringInfoData where;		/* the query's condition on the storage aliased s */
	StringInfoData after;		/* the token's position: rows after it, or empty */
	StringInfoData order;		/* ORDER BY's list, the primary key last */
	Jsonb	   *sort;			/* the sort the token carries on */
	int			nsort;			/* sort keys before the primary key's */
	StringInfoData sort_values; /* the sort keys' expressions, comma-separated */
	SearchOrder keys;			/* the sort keys' types and directions */
	bool		for_merge;		/* a shard's part of a cluster's search (search_exec.c) */
	int			compiled;		/* queries compiled (search_query.c bounds them) */
	int			nparams;
	int			maxparams;
	Oid		   *types;
	Datum	   *values;
	int32		offset;
	int32		limit;
	bool		get_total_count;
	int			field_cutoff;	/* with a table TTL: the parameter of the oldest live cell's time, else 0 */
	const SearchField *leaf_field;	/* the field of the query q_query compiles */
	const struct SearchScope *scope;	/* the nested_query compiled in, NULL: none */
	JsonbContainer *query;		/* the search query's query */
	const char *storage;		/* the index's storage, quoted and qualified */
	const char *collapse;		/* the column whose each value keeps one row, or NULL */
	const char *score;			/* a row's score, when the search scores (a score_sort, a function score query) */
	Jsonb	   *highlight;		/* the fields to highlight, each with its terms (highlight.c), or NULL */
	SearchInnerHits *inner_hits;	/* of the query's nested queries, or NULL */
	SearchInnerHits **inner_hits_tail;	/* where the nested query compiled now adds its own */
	JsonbContainer *aggs;		/* the search query's aggs and group_bys, or NULL */
	JsonbContainer *group_bys;
} SearchSql;

/*
 * search_query_compile reads search_query (Tablestore's SearchQuery as
 * jsonb: query, sort, offset, limit, token, get_total_count) for index si
 * of t; OTSParameterInvalid for what Tablestore refuses and for what ots
 * does not search yet
 */
extern void search_query_compile(SearchSql *q, const OtsTable *t, const SearchIndex *si,
								 Jsonb *search_query);

/* search_token_make: the token that continues after a row with these sort values and key (jsonb arrays) */
extern char *search_token_make(const SearchSql *q, Jsonb *after, Jsonb *key);

/* a token's text: base64 of a jsonb's text; NULL when token is no base64 of JSON */
extern char *search_token_encode(Jsonb *j);
extern Jsonb *search_token_decode(const char *token, int len);

/*
 * What the aggregations (search_agg.c) share of the compiler: a field named
 * by an object's field_name, a parameter, a value coerced to a field's
 * type, a field's element type and column, and a query's condition
 * compiled on its own (parameters added to q's)
 */
extern const SearchField *search_sql_field(SearchSql *q, JsonbContainer *obj, const char *what);
extern int	search_sql_param(SearchSql *q, Oid type, Datum value);
extern Datum search_sql_value(const SearchField *f, JsonbValue *v, const char *what);
extern Oid	search_sql_element_type(const SearchField *f);
extern const char *search_sql_column(const SearchSql *q, const SearchField *f);

/*
 * search_sql_nested_field: the sub-field that name (path.field, the path
 * one or more NESTED fields down from the top) names, NULL when it names
 * none; *documents the FROM items over the documents of each level of the
 * path in a matching row s, *value SQL of the sub-field's value in each
 * document (as search_sql_column's, an array for an array field)
 */
extern const SearchField *search_sql_nested_field(SearchSql *q, const char *name, char **documents,
												  const char **value);
extern char *search_sql_condition(SearchSql *q, JsonbContainer *query);

/*
 * search_sql_order: a sort's sorters (a jsonb array) as ORDER BY's list on
 * the storage, the primary key last; its keys' expressions (comma-separated)
 * and types in *sort_values and *keys when they are not NULL
 */
extern char *search_sql_order(SearchSql *q, JsonbContainer *sorters, char **sort_values, SearchOrder *keys);

/* search_sql_key_json: SQL of the primary key of storage row s as the API's jsonb (an object, or an array of the values) */
extern char *search_sql_key_json(const OtsTable *t, bool as_array);

/*
 * search_aggs_run computes the search's aggs and group_bys over the rows
 * matching q in storage (quoted and qualified; search_agg.c), within the
 * caller's SPI connection and role,
 * and pushes their results onto st as the members "aggs" and "group_bys"
 */
extern void search_aggs_run(SearchSql *q, const char *storage, JsonbParseState **st);

#endif							/* OTS_SEARCH_QUERY_H */
