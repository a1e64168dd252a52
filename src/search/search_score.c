/*-------------------------------------------------------------------------
 * src/search/search_score.c
 *	  How a function score query's functions make a row's score, as SQL:
 *	  Elasticsearch's function_score, which Tablestore's functions_score
 *	  query names (score_mode, combine_mode for boost_mode, max_score for
 *	  max_boost, min_score).
 *
 * A function applies to a row that its filter matches and that has its
 * value; its score is its weight times its value (its weight alone when it
 * has none).  score_mode combines the functions that apply (avg: weighted
 * by their weights; first: the first that applies); where none applies the
 * functions' score is 1.  It is capped at max_score, then combined with the
 * query's score by combine_mode.  A modifier undefined at a value (the
 * logarithm of 0, the reciprocal of 0) leaves the function not applying
 * there, where Elasticsearch would fail the search.
 *
 * PostgreSQL's float8 arithmetic raises an error where a double overflows
 * or underflows (Java's gives Infinity or 0): every value is bounded
 * (ots.search_score_bound: 0 below 1e-150, at most 1e150 either way)
 * before it is multiplied, divided or squared, so no operation leaves the
 * double's range, and a distance too far for a decay scores 0.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "lib/stringinfo.h"

#include "search/search_score.h"

PG_FUNCTION_INFO_V1(ots_search_score_bound);

#define SCORE_BOUND		1e150
#define SCORE_EPSILON	1e-150

/* ots.search_score_bound(x): x within [-1e150, 1e150], 0 when nearer 0 than 1e-150 (or not a number) */
Datum
ots_search_score_bound(PG_FUNCTION_ARGS)
{
	float8		x = PG_GETARG_FLOAT8(0);

	if (isnan(x) || fabs(x) < SCORE_EPSILON)
		PG_RETURN_FLOAT8(0);
	PG_RETURN_FLOAT8(x > SCORE_BOUND ? SCORE_BOUND : x < -SCORE_BOUND ? -SCORE_BOUND : x);
}

/* bound: SQL of x bounded */
static char *
bound(const char *x)
{
	return psprintf("ots.search_score_bound(%s)", x);
}

const char *const score_modes[] = {"FSM_AVG", "FSM_MAX", "FSM_SUM", "FSM_MIN", "FSM_MULTIPLY", "FSM_FIRST", NULL};
const char *const score_combine_modes[] = {"FCM_MULTIPLY", "FCM_AVG", "FCM_MAX", "FCM_SUM", "FCM_MIN", "FCM_REPLACE", NULL};
const char *const score_modifiers[] = {"FM_NONE", "FM_LOG", "FM_LOG1P", "FM_LOG2P", "FM_LN", "FM_LN1P", "FM_LN2P",
"FM_SQUARE", "FM_SQRT", "FM_RECIPROCAL", NULL};
const char *const score_decays[] = {"GAUSS", "EXP", "LINEAR", NULL};
const char *const score_multi_value_modes[] = {"MVM_MAX", "MVM_MIN", "MVM_SUM", "MVM_AVG", NULL};

int
score_name_find(const char *const *names, const char *name)
{
	for (int i = 0; names[i] != NULL; i++)
	{
		const char *bare = strchr(names[i], '_');

		/* GAUSS has no prefix; FSM_SUM is also SUM */
		if (strcmp(names[i], name) == 0 || (bare != NULL && names != score_decays && strcmp(bare + 1, name) == 0))
			return i;
	}
	return -1;
}

/* fn_score: function f's score where it applies, else null */
static char *
fn_score(const ScoreFunction *f)
{
	const char *value = f->value != NULL ? bound(psprintf("%s OPERATOR(pg_catalog.*) %s", bound(f->value), f->weight)) :
		f->weight;

	return f->applies != NULL ? psprintf("CASE WHEN coalesce(%s, false) THEN %s END", f->applies, value) :
		psprintf("(%s)", value);
}

char *
score_functions_sql(const ScoreFunction *fns, int n, int mode)
{
	StringInfoData sql;

	initStringInfo(&sql);
	switch (mode)
	{
		case 1:					/* max */
		case 3:					/* min */
			appendStringInfo(&sql, "coalesce(%s(", mode == 1 ? "GREATEST" : "LEAST");
			for (int i = 0; i < n; i++)
				appendStringInfo(&sql, "%s%s", i > 0 ? ", " : "", fn_score(&fns[i]));
			appendStringInfoString(&sql, "), 1::pg_catalog.float8)");
			return sql.data;
		case 4:					/* multiply: one that does not apply counts 1 */
			/* each product bounded before the next */
			appendStringInfoString(&sql, "1::pg_catalog.float8");
			for (int i = 0; i < n; i++)
			{
				char	   *product = bound(psprintf("%s OPERATOR(pg_catalog.*) coalesce(%s, 1::pg_catalog.float8)",
													 sql.data, fn_score(&fns[i])));

				resetStringInfo(&sql);
				appendStringInfoString(&sql, product);
			}
			return sql.data;
		case 5:					/* first */
			appendStringInfoString(&sql, "coalesce(");
			for (int i = 0; i < n; i++)
				appendStringInfo(&sql, "%s, ", fn_score(&fns[i]));
			appendStringInfoString(&sql, "1::pg_catalog.float8)");
			return sql.data;
		default:				/* sum, avg: the scores that apply added (and their weights) */
			appendStringInfoString(&sql, "(SELECT ots.search_score_bound(CASE WHEN pg_catalog.count(f.s) OPERATOR(pg_catalog.=) 0 THEN 1::pg_catalog.float8");
			appendStringInfo(&sql, mode == 2 ? " ELSE pg_catalog.sum(f.s) END)" :
							 " ELSE pg_catalog.sum(f.s) OPERATOR(pg_catalog./) pg_catalog.sum(f.w) FILTER (WHERE f.s IS NOT NULL) END)");
			appendStringInfoString(&sql, " FROM (VALUES ");
			for (int i = 0; i < n; i++)
				appendStringInfo(&sql, "%s(%s, %s)", i > 0 ? ", " : "", fn_score(&fns[i]), fns[i].weight);
			appendStringInfoString(&sql, ") f(s, w))");
			return sql.data;
	}
}

char *
score_combine_sql(const char *query_score, const char *functions_score, const char *max_score, int mode)
{
	const char *q = bound(query_score);
	const char *f = max_score != NULL ? psprintf("LEAST(%s, %s)", functions_score, max_score) :
		psprintf("(%s)", functions_score);

	switch (mode)
	{
		case 1:
			return bound(psprintf("(%s OPERATOR(pg_catalog.+) %s) OPERATOR(pg_catalog./) 2", q, f));
		case 2:
			return psprintf("GREATEST(%s, %s)", q, f);
		case 3:
			return bound(psprintf("%s OPERATOR(pg_catalog.+) %s", q, f));
		case 4:
			return psprintf("LEAST(%s, %s)", q, f);
		case 5:
			return pstrdup(f);
		default:
			return bound(psprintf("%s OPERATOR(pg_catalog.*) %s", q, f));
	}
}

char *
score_factor_sql(const char *x, const char *factor, int modifier)
{
	const char *v = bound(psprintf("%s OPERATOR(pg_catalog.*) %s", bound(x), factor));

	/* undefined (a logarithm of 0 or less, a root of less than 0, 1 / 0): null, the function not applying */
	switch (modifier)
	{
		case 1:
			return psprintf("CASE WHEN %s OPERATOR(pg_catalog.>) 0 THEN pg_catalog.log(%s) END", v, v);
		case 2:
			return psprintf("CASE WHEN %s OPERATOR(pg_catalog.>) -1 THEN pg_catalog.log(%s OPERATOR(pg_catalog.+) 1) END", v, v);
		case 3:
			return psprintf("CASE WHEN %s OPERATOR(pg_catalog.>) -2 THEN pg_catalog.log(%s OPERATOR(pg_catalog.+) 2) END", v, v);
		case 4:
			return psprintf("CASE WHEN %s OPERATOR(pg_catalog.>) 0 THEN pg_catalog.ln(%s) END", v, v);
		case 5:
			return psprintf("CASE WHEN %s OPERATOR(pg_catalog.>) -1 THEN pg_catalog.ln(%s OPERATOR(pg_catalog.+) 1) END", v, v);
		case 6:
			return psprintf("CASE WHEN %s OPERATOR(pg_catalog.>) -2 THEN pg_catalog.ln(%s OPERATOR(pg_catalog.+) 2) END", v, v);
		case 7:
			return psprintf("(%s OPERATOR(pg_catalog.*) %s)", v, v);
		case 8:
			return psprintf("CASE WHEN %s OPERATOR(pg_catalog.>=) 0 THEN pg_catalog.sqrt(%s) END", v, v);
		case 9:
			return psprintf("CASE WHEN %s OPERATOR(pg_catalog.<>) 0 THEN 1 OPERATOR(pg_catalog./) %s END", v, v);
		default:
			return (char *) v;
	}
}

char *
score_decay_sql(const char *distance, int decay_function, const char *scale, const char *offset, const char *decay)
{
	/* the distance past the offset; none where the row has no value (GREATEST would take 0) */
	const char *d = bound(psprintf("GREATEST(y.x OPERATOR(pg_catalog.-) %s, 0::pg_catalog.float8)", offset));
	const char *value;

	/* OPERATOR(...) binds all alike, left to right: parentheses group */
	switch (decay_function)
	{
		case 1:					/* exp: decay ^ (d / scale) */
			value = psprintf("pg_catalog.exp(GREATEST(pg_catalog.ln(%s) OPERATOR(pg_catalog.*) %s OPERATOR(pg_catalog./) %s, -700))",
							 decay, d, scale);
			break;
		case 2:					/* linear: 0 at scale / (1 - decay) */
			value = psprintf("GREATEST(1 OPERATOR(pg_catalog.-) (%s OPERATOR(pg_catalog.*) (1 OPERATOR(pg_catalog.-) %s)"
							 " OPERATOR(pg_catalog./) %s), 0::pg_catalog.float8)", d, decay, scale);
			break;
		default:				/* gauss: decay ^ (d² / scale²) */
			value = psprintf("pg_catalog.exp(GREATEST(pg_catalog.ln(%s) OPERATOR(pg_catalog.*) pg_catalog.power(%s, 2), -700))",
							 decay, bound(psprintf("%s OPERATOR(pg_catalog./) %s", d, scale)));
			break;
	}
	/* a row without the value: 1, as Elasticsearch's (exp(-700) and below bound to 0) */
	return psprintf("(SELECT CASE WHEN y.x IS NOT NULL THEN %s ELSE 1::pg_catalog.float8 END FROM (SELECT %s AS x) y)",
					bound(value), distance);
}

char *
score_distance_sql(const char *values, const char *distance_of_e, int mode)
{
	static const char *const aggs[] = {"max", "min", "sum", "avg"};

	return psprintf("(SELECT pg_catalog.%s(%s)::pg_catalog.float8 FROM pg_catalog.unnest(%s) e)",
					aggs[mode], distance_of_e, values);
}
