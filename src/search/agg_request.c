/*-------------------------------------------------------------------------
 * src/search/agg_request.c
 *	  A search's aggregation request as the aggregation files read it
 *	  (search_agg.c, search_composite.c, agg_buckets.c): its members checked
 *	  (refused with OTSParameterInvalid), a group-by's sorters, and its
 *	  statements run, counted against AGG_MAX_STATEMENTS.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "errors.h"
#include "search/agg_request.h"

void
agg_refuse(const char *message)
{
	ots_parameter_invalid(message, "See docs/reference.md, \"Search\", aggregations.");
}

JsonbValue *
agg_member(JsonbContainer *obj, const char *key, JsonbValue *out)
{
	JsonbValue *v = getKeyJsonValueFromContainer(obj, key, strlen(key), out);

	return v == NULL || v->type == jbvNull ? NULL : v;
}

const char *
agg_string(JsonbContainer *obj, const char *key, const char *what)
{
	JsonbValue	v;

	if (agg_member(obj, key, &v) == NULL || v.type != jbvString)
		agg_refuse(psprintf("Missing %s of %s, or it is not a string.", key, what));
	return pnstrdup(v.val.string.val, v.val.string.len);
}

double
agg_number(JsonbContainer *obj, const char *key, double dflt, const char *what)
{
	JsonbValue	v;
	double		d;

	if (agg_member(obj, key, &v) == NULL)
		return dflt;
	if (v.type != jbvNumeric)
		agg_refuse(psprintf("Invalid %s of %s: it is not a number.", key, what));
	d = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, NumericGetDatum(v.val.numeric)));
	if (isnan(d) || isinf(d))
		agg_refuse(psprintf("Invalid %s of %s: it is not a finite number.", key, what));
	return d;
}

/* agg_count: a count such as min_doc_count, 1 by default, at least 1 */
int64
agg_count(JsonbContainer *obj, const char *key, const char *what)
{
	double		d = agg_number(obj, key, 1, what);

	if (d != floor(d) || d > (double) PG_INT64_MAX / 2)
		agg_refuse(psprintf("Invalid %s of %s: a whole number.", key, what));
	return d < 1 ? 1 : (int64) d;
}

JsonbContainer *
agg_object(JsonbValue *v, const char *what)
{
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		agg_refuse(psprintf("Invalid %s: it is not an object.", what));
	return v->val.binary.data;
}

JsonbContainer *
agg_array(JsonbContainer *obj, const char *key, const char *what)
{
	JsonbValue	v;

	if (agg_member(obj, key, &v) == NULL)
		return NULL;
	if (v.type != jbvBinary || !JsonContainerIsArray(v.val.binary.data))
		agg_refuse(psprintf("Invalid %s of %s: it is not an array.", key, what));
	return v.val.binary.data;
}

/*
 * agg_run: the rows of sql (with the search's parameters) after a check of
 * how many statements the aggregations ran; the result in SPI_tuptable
 */
uint64
agg_run(AggRun *r, const char *sql)
{
	MemoryContext cxt = CurrentMemoryContext;
	int			ret;

	CHECK_FOR_INTERRUPTS();
	check_stack_depth();
	if (++r->statements > AGG_MAX_STATEMENTS)
		agg_refuse(psprintf("The aggregations need more than %d statements: fewer buckets or less nesting.",
							AGG_MAX_STATEMENTS));
	ret = SPI_execute_with_args(sql, r->q->nparams, r->q->types, r->q->values, NULL, true, 0);
	/* SPI leaves its procedure context current: what is built goes on in the caller's */
	MemoryContextSwitchTo(cxt);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "a search's aggregation failed: %s", SPI_result_code_string(ret));
	return SPI_processed;
}

Jsonb *
agg_jsonb(int row, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col, &isnull);

	return isnull ? NULL : DatumGetJsonbP(d);
}

int64
agg_int(int row, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col, &isnull);

	return isnull ? 0 : DatumGetInt64(d);
}

void
agg_names_distinct(JsonbContainer *list, const char *what)
{
	int			n = JsonContainerSize(list);

	if (n > AGG_MAX_PER_LEVEL)
		agg_refuse(psprintf("Too many %s at one level: more than %d.", what, AGG_MAX_PER_LEVEL));
	for (int i = 0; i < n; i++)
	{
		JsonbContainer *a = agg_object(getIthJsonbValueFromContainer(list, i), what);
		const char *name = agg_string(a, "name", what);

		if (*name == '\0')
			agg_refuse(psprintf("The name of one of the %s is empty.", what));
		for (int j = 0; j < i; j++)
			if (strcmp(agg_string(agg_object(getIthJsonbValueFromContainer(list, j), what), "name", what),
					   name) == 0)
				agg_refuse(psprintf("Duplicated name of %s: '%s'.", what, name));
	}
}

/* sorter_descending: whether a sorter's order (ASC by default) is DESC */
static bool
sorter_descending(JsonbContainer *sorter, const char *what)
{
	JsonbValue	v;
	char	   *o;

	if (agg_member(sorter, "order", &v) == NULL)
		return false;
	o = v.type == jbvString ? pnstrdup(v.val.string.val, v.val.string.len) : "";
	if (strcmp(o, "DESC") == 0 || strcmp(o, "SORT_ORDER_DESC") == 0)
		return true;
	if (strcmp(o, "ASC") != 0 && strcmp(o, "SORT_ORDER_ASC") != 0)
		agg_refuse(psprintf("Invalid order of a sorter of %s: '%s'.", what, o));
	return false;
}

/* group_sub_agg_find: g's sub-aggregation name, which has one value (a sub_agg_sort's) */
static JsonbContainer *
group_sub_agg_find(JsonbContainer *g, const char *name)
{
	JsonbValue	v;
	JsonbContainer *subs = agg_member(g, "sub_aggs", &v) != NULL ? agg_array(g, "sub_aggs", "group_by_field") : NULL;

	for (int i = 0; subs != NULL && i < (int) JsonContainerSize(subs); i++)
	{
		JsonbContainer *agg = agg_object(getIthJsonbValueFromContainer(subs, i), "a sub-aggregation");
		const char *type = agg_string(agg, "type", "a sub-aggregation");

		if (strcmp(agg_string(agg, "name", "a sub-aggregation"), name) != 0)
			continue;
		if (strcmp(type, "percentiles") == 0 || strcmp(type, "top_rows") == 0)
			agg_refuse(psprintf("Invalid sub_agg_sort of group_by_field: sub-aggregation '%s' is a %s, not one value.",
								name, type));
		return agg;
	}
	agg_refuse(psprintf("Invalid sub_agg_sort of group_by_field: it has no sub-aggregation named '%s'.", name));
	return NULL;
}

/*
 * group_sorter_list: the sorters of group-by g's sort (*n of them; a
 * sub_agg_sort only of a group_by_field, its sub-aggregation found), with
 * room for two more after them
 */
GroupSorter *
group_sorter_list(JsonbContainer *g, const char *what, int *n)
{
	JsonbValue	sort;
	JsonbContainer *sorters = NULL;
	GroupSorter *list;

	if (agg_member(g, "sort", &sort) != NULL)
		sorters = agg_array(agg_object(&sort, psprintf("sort of %s", what)), "sorters", psprintf("sort of %s", what));
	*n = sorters != NULL ? (int) JsonContainerSize(sorters) : 0;
	list = palloc0(sizeof(GroupSorter) * (*n + 2));
	for (int j = 0; j < *n; j++)
	{
		JsonbContainer *s = agg_object(getIthJsonbValueFromContainer(sorters, j), psprintf("sorter of %s", what));
		JsonbValue	v;
		bool		field = strcmp(what, "group_by_field") == 0;

		if (agg_member(s, "row_count_sort", &v) != NULL)
			list[j].kind = 'c';
		else if (agg_member(s, "group_key_sort", &v) != NULL)
			list[j].kind = 'k';
		else if (field && agg_member(s, "sub_agg_sort", &v) != NULL)
		{
			list[j].kind = 'a';
			list[j].sub_agg = group_sub_agg_find(g, agg_string(agg_object(&v, "sub_agg_sort"), "sub_agg_name",
															   "sub_agg_sort"));
		}
		else
			agg_refuse(psprintf("A sorter of %s is a row_count_sort or a group_key_sort%s.", what,
								field ? " or a sub_agg_sort" : ""));
		list[j].desc = sorter_descending(agg_object(&v, "sorter"), what);
	}
	return list;
}
