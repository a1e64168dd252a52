/*-------------------------------------------------------------------------
 * src/search/agg_buckets.c
 *	  How a histogram's and a date histogram's values fall into numbered
 *	  buckets, as SQL over the search's storage: the number of a value's
 *	  bucket groups the rows and selects a bucket's rows alike, so both see
 *	  the same rows whatever floats round to.  Shared by the histograms of
 *	  search_agg.c and the sources of search_composite.c.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>
#include <math.h>

#include "catalog/pg_type.h"
#include "utils/jsonb.h"

#include "search/agg_buckets.h"
#include "search/agg_request.h"
#include "search/date.h"

#define DATE_MAX_OFFSET_MS		(INT64CONST(100) * 366 * 86400000)

/* group_values: SQL of a row's values of field f as an array, missing (given in g) when it has none */
const char *
group_values(AggRun *r, JsonbContainer *g, const SearchField *f)
{
	const char *col = search_sql_column(r->q, f);
	JsonbValue	v;
	int			pm;

	if (agg_member(g, "missing", &v) == NULL)
		return f->is_array ? col : psprintf("ARRAY[%s]", col);
	pm = search_sql_param(r->q, search_sql_element_type(f), search_sql_value(f, &v, "missing"));
	return f->is_array ?
		psprintf("CASE WHEN pg_catalog.cardinality(%s) OPERATOR(pg_catalog.>) 0 THEN %s ELSE ARRAY[$%d] END", col, col, pm) :
		psprintf("ARRAY[coalesce(%s, $%d)]", col, pm);
}

/*
 * histogram_buckets: a histogram's buckets of g's field (LONG or DOUBLE), one
 * per interval [offset + k * interval, + interval) by number k, of the
 * values within field_range
 */
void
histogram_buckets(AggRun *r, JsonbContainer *g, NumberedBuckets *b)
{
	const SearchField *f = search_sql_field(r->q, g, "group_by_histogram");
	double		interval = agg_number(g, "interval", 0, "group_by_histogram");
	double		offset = agg_number(g, "offset", 0, "group_by_histogram");
	JsonbValue	v;
	int			pi;
	int			po;

	if (f->type != SEARCH_LONG && f->type != SEARCH_DOUBLE)
		agg_refuse(psprintf("[group_by_histogram] field_name:%s type:%s is invalid, allow [long, double]", f->name,
							search_field_type_name(f->type)));
	if (!(interval > 0))
		agg_refuse("Invalid interval of group_by_histogram: a number above 0.");
	if (f->type == SEARCH_LONG && (interval != floor(interval) || offset != floor(offset)))
		agg_refuse("Invalid interval or offset of group_by_histogram on a LONG field: integers.");
	b->in_range = "true";
	if (agg_member(g, "field_range", &v) != NULL)
	{
		JsonbContainer *fr = agg_object(&v, "field_range of group_by_histogram");

		b->in_range = psprintf("e.e::pg_catalog.float8 OPERATOR(pg_catalog.>=) $%d AND e.e::pg_catalog.float8 OPERATOR(pg_catalog.<=) $%d",
							   search_sql_param(r->q, FLOAT8OID, Float8GetDatum(agg_number(fr, "min", -INFINITY, "field_range"))),
							   search_sql_param(r->q, FLOAT8OID, Float8GetDatum(agg_number(fr, "max", INFINITY, "field_range"))));
	}
	pi = search_sql_param(r->q, FLOAT8OID, Float8GetDatum(interval));
	po = search_sql_param(r->q, FLOAT8OID, Float8GetDatum(offset));
	b->values = group_values(r, g, f);
	/* a LONG's buckets in exact numbers: a double holds integers exactly only up to 2^53 */
	if (f->type == SEARCH_LONG)
	{
		b->number = psprintf("pg_catalog.floor((e.e::pg_catalog.numeric OPERATOR(pg_catalog.-) $%d::pg_catalog.numeric)"
							 " OPERATOR(pg_catalog./) $%d::pg_catalog.numeric)::pg_catalog.int8", po, pi);
		b->key = psprintf("(y.k::pg_catalog.numeric OPERATOR(pg_catalog.*) $%d::pg_catalog.numeric"
						  " OPERATOR(pg_catalog.+) $%d::pg_catalog.numeric)::pg_catalog.int8", pi, po);
	}
	else
	{
		b->number = psprintf("pg_catalog.floor((e.e::pg_catalog.float8 OPERATOR(pg_catalog.-) $%d) OPERATOR(pg_catalog./) $%d)::pg_catalog.int8",
							 po, pi);
		b->key = psprintf("y.k OPERATOR(pg_catalog.*) $%d OPERATOR(pg_catalog.+) $%d", pi, po);
	}
	b->key_name = "key";
}

/*
 * date_value: a DateTimeValue {"value", "unit"} of member key (an int32, as
 * the protocol's; from 1 for an interval, any for an offset); its unit,
 * and its value in *value
 */
static const SearchTimeUnit *
date_value(JsonbContainer *g, const char *key, int64 *value)
{
	JsonbValue	v;
	JsonbContainer *dv;
	const char *unit;
	double		n;

	if (agg_member(g, key, &v) == NULL)
		return NULL;
	dv = agg_object(&v, psprintf("%s of group_by_date_histogram", key));
	n = agg_number(dv, "value", NAN, key);
	unit = agg_string(dv, "unit", psprintf("%s of group_by_date_histogram", key));
	if (!(n >= (strcmp(key, "interval") == 0 ? 1 : -PG_INT32_MAX) && n <= PG_INT32_MAX && n == floor(n)))
		agg_refuse(psprintf("Invalid value of %s of group_by_date_histogram: a whole number %s.", key,
							strcmp(key, "interval") == 0 ? "from 1 to 2147483647" : "of at most 2147483647 either way"));
	*value = (int64) n;
	if (search_time_unit(unit) == NULL)
		agg_refuse(psprintf("Invalid unit of %s of group_by_date_histogram: '%s'.", key, unit));
	return search_time_unit(unit);
}

/* date_time_zone: a time_zone "+hh:mm" or "-hh:mm" (or absent: UTC) as milliseconds east of UTC */
static int64
date_time_zone(JsonbContainer *g)
{
	JsonbValue	v;
	const char *tz;
	int			h;
	int			m;

	if (agg_member(g, "time_zone", &v) == NULL)
		return 0;
	tz = agg_string(g, "time_zone", "group_by_date_histogram");
	if (strlen(tz) != 6 || (tz[0] != '+' && tz[0] != '-') || tz[3] != ':' ||
		!isdigit((unsigned char) tz[1]) || !isdigit((unsigned char) tz[2]) ||
		!isdigit((unsigned char) tz[4]) || !isdigit((unsigned char) tz[5]) ||
		(h = (tz[1] - '0') * 10 + tz[2] - '0') > 18 || (m = (tz[4] - '0') * 10 + tz[5] - '0') > 59)
		agg_refuse(psprintf("Invalid time_zone of group_by_date_histogram: '%s'.", tz));
	return (tz[0] == '-' ? -1 : 1) * (h * 3600000L + m * 60000L);
}

/*
 * date_histogram_buckets: a date histogram's buckets, one per interval of a
 * DATE field's times,
 * in the time zone: a fixed length (WEEK, DAY, ..., MILLISECOND; weeks
 * start on Monday) counted from 1970-01-01 00:00 there, or a number of
 * months (MONTH, QUARTER_YEAR, YEAR) counted from January 1970, moved by
 * offset; each bucket shown by its first millisecond (UTC)
 */
void
date_histogram_buckets(AggRun *r, JsonbContainer *g, NumberedBuckets *b)
{
	const SearchField *f = search_sql_field(r->q, g, "group_by_date_histogram");
	int64		n;
	int64		offset_n = 0;
	const SearchTimeUnit *unit = date_value(g, "interval", &n);
	const SearchTimeUnit *offset_unit = date_value(g, "offset", &offset_n);
	int64		shift;			/* ms added to a time to count from 1970-01-01 00:00 local */
	JsonbValue	v;
	const char *ms = "(e.e::pg_catalog.numeric OPERATOR(pg_catalog./) 1000000)";
	int			ps;

	if (f->type != SEARCH_DATE)
		agg_refuse(psprintf("[group_by_date_histogram] field_name:%s type:%s is invalid, allow [date]", f->name,
							search_field_type_name(f->type)));
	if (unit == NULL)
		agg_refuse("Missing interval of group_by_date_histogram.");
	if (offset_unit != NULL && offset_unit->months > 0)
		agg_refuse("Invalid offset of group_by_date_histogram: a fixed length (WEEK to MILLISECOND).");
	/* an offset moves buckets within their times' range (a day's number stays an int4) */
	if (offset_unit != NULL && (offset_n > DATE_MAX_OFFSET_MS / offset_unit->ms || offset_n < -DATE_MAX_OFFSET_MS / offset_unit->ms))
		agg_refuse("Invalid offset of group_by_date_histogram: at most 100 years either way.");
	shift = date_time_zone(g) - (offset_unit != NULL ? offset_n * offset_unit->ms : 0);
	/* 1970-01-01 was a Thursday: weeks count from the Monday before */
	if (unit->ms == 7 * 86400000L)
		shift += 3 * 86400000L;
	b->in_range = "true";
	if (agg_member(g, "field_range", &v) != NULL)
	{
		JsonbContainer *fr = agg_object(&v, "field_range of group_by_date_histogram");
		JsonbValue	bound;

		b->in_range = psprintf("e.e OPERATOR(pg_catalog.>=) $%d AND e.e OPERATOR(pg_catalog.<=) $%d",
							   search_sql_param(r->q, INT8OID, agg_member(fr, "min", &bound) != NULL ?
												search_sql_value(f, &bound, "min of field_range") : Int64GetDatum(PG_INT64_MIN)),
							   search_sql_param(r->q, INT8OID, agg_member(fr, "max", &bound) != NULL ?
												search_sql_value(f, &bound, "max of field_range") : Int64GetDatum(PG_INT64_MAX)));
	}
	ps = search_sql_param(r->q, INT8OID, Int64GetDatum(shift));
	b->values = group_values(r, g, f);
	b->key_name = "timestamp";
	if (unit->months == 0)
	{
		int			pw = search_sql_param(r->q, INT8OID, Int64GetDatum(n * unit->ms));

		b->number = psprintf("pg_catalog.floor((%s OPERATOR(pg_catalog.+) $%d) OPERATOR(pg_catalog./) $%d)::pg_catalog.int8",
							 ms, ps, pw);
		b->key = psprintf("y.k OPERATOR(pg_catalog.*) $%d OPERATOR(pg_catalog.-) $%d", pw, ps);
	}
	else
	{
		int			pm = search_sql_param(r->q, INT8OID, Int64GetDatum(n * unit->months));
		/* the local day of e, as a date, and the months since January 1970 of the bucket y.k */
		const char *day = psprintf("('1970-01-01'::pg_catalog.date OPERATOR(pg_catalog.+) pg_catalog.floor((%s OPERATOR(pg_catalog.+) $%d) OPERATOR(pg_catalog./) 86400000)::pg_catalog.int4)",
								   ms, ps);
		const char *months = psprintf("(y.k OPERATOR(pg_catalog.*) $%d)", pm);
		/* whole years since 1970 of those months, rounded down (before 1970 too) */
		const char *years = psprintf("pg_catalog.floor(%s::pg_catalog.numeric OPERATOR(pg_catalog./) 12)", months);

		b->number = psprintf("pg_catalog.floor(((pg_catalog.date_part('year', %s) OPERATOR(pg_catalog.-) 1970) OPERATOR(pg_catalog.*) 12"
							 " OPERATOR(pg_catalog.+) pg_catalog.date_part('month', %s) OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) $%d)::pg_catalog.int8",
							 day, day, pm);
		b->key = psprintf("(pg_catalog.make_date((1970 OPERATOR(pg_catalog.+) %s)::pg_catalog.int4,"
						  " (%s OPERATOR(pg_catalog.-) (12 OPERATOR(pg_catalog.*) %s) OPERATOR(pg_catalog.+) 1)::pg_catalog.int4, 1)"
						  " OPERATOR(pg_catalog.-) '1970-01-01'::pg_catalog.date)::pg_catalog.int8 OPERATOR(pg_catalog.*) 86400000"
						  " OPERATOR(pg_catalog.-) $%d",
						  years, months, years, ps);
	}
}
