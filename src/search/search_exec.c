/*-------------------------------------------------------------------------
 * src/search/search_exec.c
 *	  ots.search_keys: a search of a search index, compiled
 *	  (search_query.c) and run over its storage: the keys of a page of
 *	  matching rows in order, the total count when asked, the token of the
 *	  next page.  ots.search (src/sql/70_search.sql) reads the rows.
 *
 * A cluster's proxy merges the shards' parts of a search (for_merge,
 * proxy/sql/60_search.sql): each part is the first offset + limit rows of
 * the shard, each with its place in the order (search_order.c), the token
 * continuing after it and its collapse value, and the aggregations in
 * forms that merge (search_agg.c).
 *
 * Who may search: whoever may read the table with the row functions
 * (SELECT on its storage, no row-level security applying:
 * rowstore_check_privileges), since a search tells of every row it counts.
 * The storage is its owner's alone, so the compiled SQL runs as the owner,
 * security-restricted with search_path pinned (asrole), with every value a
 * parameter.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/namespace.h"
#include "common/pg_prng.h"
#include "common/shortest_dec.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "guc.h"
#include "asrole.h"
#include "errors.h"
#include "meta/storage.h"
#include "search/json_build.h"
#include "search/search_order.h"
#include "search/search_query.h"
#include "store/rowstore.h"

PG_FUNCTION_INFO_V1(ots_search_keys);

/*
 * exec_index: the search index of t named name, or by its weights
 * (query_flow_weights, as Tablestore's) its brother, which does not pass
 * the search on again; OTSObjectNotExist when there is none, and a refusal
 * while a background build fills it, or when the search's snapshot does
 * not see its filling (it would answer without the rows not reached yet,
 * or not seen)
 */
static const SearchIndex *
exec_index(const OtsTable *t, const char *name)
{
	const SearchIndex *si = search_index_named(t, name, AccessShareLock);
	const SearchIndex *brother;

	if (si == NULL)
		ots_error(OBJECT_NOT_EXIST, "search index [%s] does not exist", name);
	/* not to a brother being built, nor one this search's snapshot does not see filled */
	if (si->weight >= 0 && si->brother != NULL &&
		pg_prng_double(&pg_global_prng_state) * (si->weight + si->brother_weight) >= si->weight &&
		(brother = search_index_named(t, si->brother, AccessShareLock)) != NULL &&
		!brother->building && search_index_visible(brother, GetActiveSnapshot()))
		si = brother;
	if (si->building)
		ots_parameter_invalid(psprintf("search index [%s] is being built (sync_phase FULL)", si->index_name),
							  "Its build runs in the background; ots.describe_search_index shows sync_phase INCR once it has ended.");
	/* its entries, filled by a transaction this one's snapshot does not see, would miss rows */
	if (!search_index_visible(si, GetActiveSnapshot()))
		ots_parameter_invalid(psprintf("search index [%s] was built after this transaction's snapshot", si->index_name),
							  "Search it in a transaction (or, in REPEATABLE READ, a snapshot) that begins after its build.");
	return si;
}

/*
 * exec_filter_first: whether a sorted search reads every matching row
 * before ordering them (a subquery its ORDER BY and LIMIT do not reach
 * into) rather than let the planner walk an index in the sort's order,
 * filtering as it goes: when the planner expects at most
 * SEARCH_FILTER_FIRST_ROWS matches (or ten times the rows wanted).  The
 * planner takes the conditions as independent, so the walk can pass most of
 * the index before it finds its rows when they correlate with the order (a
 * city whose prices all stand at one end of a price range); reading a few
 * thousand matches through the conditions' own indexes and sorting them
 * costs their number, whatever the correlation.  One more planning of the
 * condition, with its values.
 */
#define SEARCH_FILTER_FIRST_ROWS 10000

static bool
exec_filter_first(const SearchSql *q, const char *matching, int wanted)
{
	int			ret;
	char	   *plan;
	Jsonb	   *j;
	JsonbValue *top;
	JsonbValue	v;
	double		rows;

	/* the order of the key alone, or a condition true of every row: the planner's walk is the way */
	if (!ots_search_filter_first || q->nsort == 0 || strcmp(q->where.data, "true") == 0)
		return false;
	/* not read-only: SPI refuses a utility statement there; EXPLAIN without ANALYZE runs nothing */
	ret = SPI_execute_with_args(psprintf("EXPLAIN (FORMAT JSON) SELECT 1 FROM %s s WHERE %s", q->storage, matching),
								q->nparams, q->types, q->values, NULL, false, 0);
	if (ret < 0 || SPI_tuptable == NULL || SPI_processed != 1 ||
		(plan = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1)) == NULL)
		return false;
	j = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(plan)));
	if (!JB_ROOT_IS_ARRAY(j) || (top = getIthJsonbValueFromContainer(&j->root, 0)) == NULL ||
		top->type != jbvBinary ||
		getKeyJsonValueFromContainer(top->val.binary.data, "Plan", 4, &v) == NULL || v.type != jbvBinary ||
		getKeyJsonValueFromContainer(v.val.binary.data, "Plan Rows", 9, &v) == NULL || v.type != jbvNumeric)
		return false;
	rows = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v.val.numeric)));
	return rows <= Max(SEARCH_FILTER_FIRST_ROWS, 10.0 * wanted);
}

/*
 * exec_enter runs as the storage's owner (asrole) with the output of the
 * values a token carries fixed: floats exact, bytea in hex, whatever the
 * caller's session says (a token must read back to the same values)
 */
static void
exec_enter(const OtsTable *t, AsRole *saved)
{
	asrole_enter(asrole_owner(t->data_oid), saved);
	(void) set_config_option("extra_float_digits", "3", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	(void) set_config_option("bytea_output", "hex", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
}

/* exec_inner_highlight_list: each inner_hits' highlight specs, by path, as members */
static void
exec_inner_highlight_list(JsonbParseState **st, const SearchInnerHits *hits)
{
	for (; hits != NULL; hits = hits->next)
	{
		if (hits->highlight != NULL)
			json_push_jsonb(st, hits->path, hits->highlight);
		exec_inner_highlight_list(st, hits->children);
	}
}

/*
 * exec_inner_highlights: "$inner_highlight", {path: specs} of the inner_hits
 * that highlight, which ots.search_read_rows applies to the documents
 */
static void
exec_inner_highlights(JsonbParseState **st, const SearchInnerHits *hits)
{
	json_push_key(st, "$inner_highlight");
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	exec_inner_highlight_list(st, hits);
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
}

/*
 * ots_search_keys is ots.search_keys(schema_name, table_name, index_name,
 * search_query, for_merge): {"rows": [{"primary_key": ..., "score": when
 * the search scores}, ...], "total_count": n or -1, "next_token": a string
 * or null}; for_merge, each
 * row also has "$order", "$token" and (collapsed) "$collapse", and the
 * result "offset" and "limit", the page the proxy cuts from the parts
 */
Datum
ots_search_keys(PG_FUNCTION_ARGS)
{
	const char *schema;
	const char *table;
	Oid			data_oid;
	const OtsTable *t;
	const SearchIndex *si;
	SearchSql	q;
	StringInfoData sql;
	const char *storage;
	const char *score;
	AsRole		saved;
	int			ret;
	int64		total = -1;
	int			nrows;
	int			first;
	int			count;
	bool		for_merge;
	char	   *token = NULL;
	JsonbParseState *st = NULL;
	JsonbValue	k;
	JsonbValue	v;
	MemoryContext caller;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ots_error(PARAMETER_INVALID, "Parameter table_name is missing.");
	if (PG_ARGISNULL(2))
		ots_error(PARAMETER_INVALID, "Parameter index_name is missing.");
	if (PG_ARGISNULL(3))
		ots_error(PARAMETER_INVALID, "Parameter search_query is missing.");
	schema = NameStr(*PG_GETARG_NAME(0));
	table = NameStr(*PG_GETARG_NAME(1));
	data_oid = storage_oid(get_namespace_oid(schema, true), table);
	t = OidIsValid(data_oid) ? catalog_lookup_by_data_oid(data_oid) : NULL;
	if (t == NULL)
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	rowstore_check_privileges(t, ACL_SELECT);
	si = exec_index(t, text_to_cstring(PG_GETARG_TEXT_PP(2)));
	for_merge = PG_NARGS() > 4 && !PG_ARGISNULL(4) && PG_GETARG_BOOL(4);
	search_query_compile(&q, t, si, PG_GETARG_JSONB_P(3));
	q.for_merge = for_merge;
	storage = q.storage;
	/* a part for a merge: every row up to the page's end, which any shard's may be */
	first = for_merge ? 0 : q.offset;
	count = for_merge ? q.offset + q.limit : q.limit;

	caller = CurrentMemoryContext;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	exec_enter(t, &saved);

	initStringInfo(&sql);
	/* a search that scores gives each row its score (column 5), one with inner_hits its nested queries' (column 6) */
	score = q.score != NULL ? psprintf("(%s)::pg_catalog.float8", q.score) : "NULL::pg_catalog.float8";
	if (q.inner_hits != NULL)
	{
		StringInfoData inner;

		initStringInfo(&inner);
		for (SearchInnerHits *h = q.inner_hits; h != NULL; h = h->next)
			appendStringInfo(&inner, "%s%s", inner.len > 0 ? ", " : "", h->sql);
		score = psprintf("%s, pg_catalog.jsonb_build_array(%s)", score, inner.data);
	}
	if (q.collapse == NULL)
	{
		const char *matching = q.after.len > 0 ? psprintf("(%s) AND %s", q.where.data, q.after.data) : q.where.data;

		/* the page's rows first, then their keys and sort values as jsonb: built for those rows only */
		appendStringInfo(&sql, "SELECT %s, %s, pg_catalog.jsonb_build_array(%s), NULL::pg_catalog.jsonb, %s FROM (SELECT s.* FROM ",
						 search_sql_key_json(t, false), search_sql_key_json(t, true), q.sort_values.data, score);
		if (exec_filter_first(&q, matching, first + count + 1))
			appendStringInfo(&sql, "(SELECT s.* FROM %s s WHERE %s OFFSET 0) s", storage, matching);
		else
			appendStringInfo(&sql, "%s s WHERE %s", storage, matching);
		appendStringInfo(&sql, " ORDER BY %s OFFSET %d LIMIT %d) s ORDER BY %s", q.order.data, first, count + 1,
						 q.order.data);
	}
	else
	{
		/* collapsed: the first matching row of each value of the field, in the order; the page among those */
		appendStringInfo(&sql, "SELECT %s, %s, pg_catalog.jsonb_build_array(%s), pg_catalog.to_jsonb(s.\"$collapse\"), %s FROM"
						 " (SELECT s.*, %s AS \"$collapse\", pg_catalog.row_number() OVER (PARTITION BY %s ORDER BY %s) AS \"$rank\""
						 " FROM %s s WHERE (%s)) s WHERE s.\"$rank\" OPERATOR(pg_catalog.=) 1",
						 search_sql_key_json(t, false), search_sql_key_json(t, true), q.sort_values.data, score,
						 q.collapse, q.collapse, q.order.data, storage, q.where.data);
		if (q.after.len > 0)
			appendStringInfo(&sql, " AND %s", q.after.data);
		appendStringInfo(&sql, " ORDER BY %s OFFSET %d LIMIT %d", q.order.data, first, count + 1);
	}
	if (q.get_total_count)
	{
		char	   *count_sql = psprintf("SELECT pg_catalog.count(*) FROM %s s WHERE (%s)", storage, q.where.data);
		bool		isnull;

		ret = SPI_execute_with_args(count_sql, q.nparams, q.types, q.values, NULL, true, 1);
		if (ret != SPI_OK_SELECT)
			elog(ERROR, "a search's count failed: %s", SPI_result_code_string(ret));
		total = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	ret = SPI_execute_with_args(sql.data, q.nparams, q.types, q.values, NULL, true, 0);
	asrole_leave(&saved);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "a search failed: %s", SPI_result_code_string(ret));

	/* the result in the caller's memory; SPI's tuples stay until SPI_finish */
	MemoryContextSwitchTo(caller);
	nrows = Min((int) SPI_processed, count);
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	k.type = jbvString;
	k.val.string.val = "rows", k.val.string.len = 4;
	pushJsonbValue(&st, WJB_KEY, &k);
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	for (int r = 0; r < nrows; r++)
	{
		bool		isnull;
		Jsonb	   *key = DatumGetJsonbP(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull));

		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		k.val.string.val = "primary_key", k.val.string.len = 11;
		pushJsonbValue(&st, WJB_KEY, &k);
		v.type = jbvBinary, v.val.binary.data = &key->root, v.val.binary.len = VARSIZE(key) - VARHDRSZ;
		pushJsonbValue(&st, WJB_VALUE, &v);
		if (q.score != NULL)
		{
			Datum		score_value = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 5, &isnull);

			/* JSON has no infinity: such a score is shown as null */
			json_push_key(&st, "score");
			v.type = jbvNull;
			if (!isnull && isfinite(DatumGetFloat8(score_value)))
			{
				char		digits[DOUBLE_SHORTEST_DECIMAL_LEN];

				/* every digit the double has, as its shortest exact decimal: equal scores look equal */
				double_to_shortest_decimal_buf(DatumGetFloat8(score_value), digits);
				v.type = jbvNumeric;
				v.val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(digits),
																	ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
			}
			pushJsonbValue(&st, WJB_VALUE, &v);
		}
		if (q.inner_hits != NULL)
			json_push_jsonb(&st, "inner_hits", DatumGetJsonbP(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 6, &isnull)));
		if (for_merge)
		{
			HeapTuple	row = SPI_tuptable->vals[r];
			Jsonb	   *key_values = DatumGetJsonbP(SPI_getbinval(row, SPI_tuptable->tupdesc, 2, &isnull));
			Jsonb	   *sort_values = DatumGetJsonbP(SPI_getbinval(row, SPI_tuptable->tupdesc, 3, &isnull));
			Datum		collapsed = SPI_getbinval(row, SPI_tuptable->tupdesc, 4, &isnull);

			json_push_string(&st, "$order", search_order_key(&q.keys, t, sort_values, key_values));
			json_push_string(&st, "$token", search_token_make(&q, sort_values, key_values));
			if (q.collapse != NULL)
			{
				/* rows without the value are a group of their own: JSON null */
				json_push_jsonb(&st, "$collapse", isnull ? NULL : DatumGetJsonbP(collapsed));
			}
		}
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	if (for_merge)
	{
		json_push_int(&st, "offset", q.offset);
		json_push_int(&st, "limit", q.limit);
	}
	/* a token only when more rows match: the last row's place */
	if ((int) SPI_processed > count && nrows > 0)
	{
		bool		isnull;
		HeapTuple	last = SPI_tuptable->vals[nrows - 1];

		token = search_token_make(&q,
								  DatumGetJsonbP(SPI_getbinval(last, SPI_tuptable->tupdesc, 3, &isnull)),
								  DatumGetJsonbP(SPI_getbinval(last, SPI_tuptable->tupdesc, 2, &isnull)));
	}
	/* the aggregations, still in SPI and as the owner */
	if (q.aggs != NULL || q.group_bys != NULL)
	{
		exec_enter(t, &saved);
		search_aggs_run(&q, storage, &st);
		asrole_leave(&saved);
		/* SPI leaves its own context current after each statement: the result is the caller's */
		MemoryContextSwitchTo(caller);
	}
	/* the fields to highlight: ots.search_read_rows highlights the rows' values (highlight.c) */
	if (q.highlight != NULL)
		json_push_jsonb(&st, "$highlight", q.highlight);
	if (q.inner_hits != NULL)
		exec_inner_highlights(&st, q.inner_hits);
	k.type = jbvString;
	k.val.string.val = "total_count", k.val.string.len = 11;
	pushJsonbValue(&st, WJB_KEY, &k);
	v.type = jbvNumeric;
	v.val.numeric = int64_to_numeric(total);
	pushJsonbValue(&st, WJB_VALUE, &v);
	k.val.string.val = "next_token", k.val.string.len = 10;
	pushJsonbValue(&st, WJB_KEY, &k);
	if (token != NULL)
	{
		v.type = jbvString;
		v.val.string.val = token, v.val.string.len = strlen(token);
	}
	else
		v.type = jbvNull;
	pushJsonbValue(&st, WJB_VALUE, &v);
	{
		Jsonb	   *result = JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));

		SPI_finish();
		PG_RETURN_JSONB_P(result);
	}
}
