/*-------------------------------------------------------------------------
 * src/search/match.c
 *	  How a TEXT field's tokens match a query's: ots.search_phrase, which a
 *	  match_phrase_query's SQL calls on the rows its GIN index found holding
 *	  every token of the phrase (do the tokens stand at the phrase's
 *	  relative positions?), and ots.search_bm25, which a score_sort's SQL
 *	  calls on each matching row (how well do they match?).
 *
 * A TEXT field keeps its tokens in position order (search_entry.c), so for
 * each place the phrase's first token stands, the others are looked up by
 * position with a binary search.
 *
 * The score is BM25 as Lucene computes it by default (k1 1.2, b 0.75): for
 * each distinct query token the row's field holds tf times, among n rows
 * with the field whose lengths average avgdl, df of which hold the token,
 *	  ln(1 + (n - df + 0.5) / (df + 0.5)) * tf * (k1 + 1)
 *		/ (tf + k1 * (1 - b + b * dl / avgdl))
 * summed, dl the field's number of tokens; the statistics are the
 * search's, read once (search_query.c).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "search/analyzer.h"

#define BM25_K1		1.2
#define BM25_B		0.75

PG_FUNCTION_INFO_V1(ots_search_phrase);
PG_FUNCTION_INFO_V1(ots_search_bm25);
PG_FUNCTION_INFO_V1(ots_search_match);
PG_FUNCTION_INFO_V1(ots_search_match_tokens);

/* match_text_eq: are two text datums the same bytes? */
static bool
match_text_eq(Datum a, Datum b)
{
	text	   *ta = DatumGetTextPP(a);
	text	   *tb = DatumGetTextPP(b);

	return VARSIZE_ANY_EXHDR(ta) == VARSIZE_ANY_EXHDR(tb) &&
		memcmp(VARDATA_ANY(ta), VARDATA_ANY(tb), VARSIZE_ANY_EXHDR(ta)) == 0;
}

/* match_at: does the word stand at position pos (positions ascending, n of them)? */
static bool
match_at(Datum *tokens, const int32 *positions, int n, int32 pos, Datum word)
{
	int			lo = 0;
	int			hi = n;

	/* the first token at pos or after it */
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (positions[mid] < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && positions[lo] == pos; lo++)
		if (match_text_eq(tokens[lo], word))
			return true;
	return false;
}

/* match_deconstruct: a one-dimensional array without nulls, its elements */
static int
match_deconstruct(ArrayType *a, Oid type, Datum **elems)
{
	bool	   *nulls;
	int			n;
	int16		typlen;
	bool		typbyval;
	char		typalign;

	if (ARR_ELEMTYPE(a) != type)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("an array of %s was expected", format_type_be(type))));
	get_typlenbyvalalign(type, &typlen, &typbyval, &typalign);
	deconstruct_array(a, type, typlen, typbyval, typalign, elems, &nulls, &n);
	for (int i = 0; i < n; i++)
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("ots.search_phrase and ots.search_bm25 take arrays without nulls")));
	return n;
}

/*
 * ots_search_phrase is ots.search_phrase(tokens text[], positions int4[],
 * words text[], offsets int4[]): do words stand at some position p plus
 * their offsets (the first's 0) among tokens at positions?  Null positions
 * are 0, 1, 2, ..., as the storage keeps those (schema.h); any other null
 * gives null, as a strict function would.
 */
Datum
ots_search_phrase(PG_FUNCTION_ARGS)
{
	Datum	   *tokens;
	Datum	   *pos_datums = NULL;
	Datum	   *words;
	Datum	   *off_datums;
	int			ntokens;
	int			npos;
	int			nwords;
	int			noff;
	int32	   *positions;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		PG_RETURN_NULL();
	ntokens = match_deconstruct(PG_GETARG_ARRAYTYPE_P(0), TEXTOID, &tokens);
	npos = PG_ARGISNULL(1) ? ntokens : match_deconstruct(PG_GETARG_ARRAYTYPE_P(1), INT4OID, &pos_datums);
	nwords = match_deconstruct(PG_GETARG_ARRAYTYPE_P(2), TEXTOID, &words);
	noff = match_deconstruct(PG_GETARG_ARRAYTYPE_P(3), INT4OID, &off_datums);
	if (ntokens != npos || nwords != noff)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("ots.search_phrase takes as many positions as tokens, and offsets as words")));
	if (nwords == 0)
		PG_RETURN_BOOL(false);
	positions = palloc(sizeof(int32) * Max(ntokens, 1));
	for (int i = 0; i < ntokens; i++)
	{
		positions[i] = pos_datums == NULL ? i : DatumGetInt32(pos_datums[i]);
		if (i > 0 && positions[i] < positions[i - 1])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("ots.search_phrase takes positions in ascending order")));
	}
	for (int start = 0; start < ntokens; start++)
	{
		bool		all = true;

		CHECK_FOR_INTERRUPTS();
		if (!match_text_eq(tokens[start], words[0]))
			continue;
		for (int w = 1; w < nwords && all; w++)
		{
			int64		pos = (int64) positions[start] + DatumGetInt32(off_datums[w]);

			all = pos >= PG_INT32_MIN && pos <= PG_INT32_MAX &&
				match_at(tokens, positions, ntokens, (int32) pos, words[w]);
		}
		if (all)
			PG_RETURN_BOOL(true);
	}
	PG_RETURN_BOOL(false);
}

/*
 * ots_search_bm25 is ots.search_bm25(tokens text[], query text[], df
 * float8[], n bigint, avgdl float8): the score of a field holding tokens
 * for the query's distinct tokens (df: how many rows hold each), 0 when it
 * holds none of them
 */
Datum
ots_search_bm25(PG_FUNCTION_ARGS)
{
	Datum	   *tokens;
	Datum	   *query;
	Datum	   *df;
	int			ntokens = match_deconstruct(PG_GETARG_ARRAYTYPE_P(0), TEXTOID, &tokens);
	int			nquery = match_deconstruct(PG_GETARG_ARRAYTYPE_P(1), TEXTOID, &query);
	int			ndf = match_deconstruct(PG_GETARG_ARRAYTYPE_P(2), FLOAT8OID, &df);
	double		n = (double) PG_GETARG_INT64(3);
	double		avgdl = PG_GETARG_FLOAT8(4);
	double		norm;
	double		score = 0;

	if (ndf != nquery)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("ots.search_bm25 takes one df per query token")));
	if (ntokens == 0 || !(avgdl > 0))
		PG_RETURN_FLOAT8(0);
	norm = BM25_K1 * (1 - BM25_B + BM25_B * ntokens / avgdl);
	for (int q = 0; q < nquery; q++)
	{
		int			tf = 0;
		double		d = DatumGetFloat8(df[q]);

		CHECK_FOR_INTERRUPTS();
		for (int i = 0; i < ntokens; i++)
			tf += match_text_eq(tokens[i], query[q]);
		if (tf > 0)
			score += log(1 + (n - d + 0.5) / (d + 0.5)) * tf * (BM25_K1 + 1) / (tf + norm);
	}
	PG_RETURN_FLOAT8(score);
}

/* match_analyzer: the analyzer of arguments argno (name) and argno + 1 (parameters), NULLs the default */
static void
match_analyzer(FunctionCallInfo fcinfo, int argno, SearchAnalyzer *analyzer)
{
	search_analyzer_read(PG_ARGISNULL(argno) ? "single_word" : text_to_cstring(PG_GETARG_TEXT_PP(argno)),
						 PG_ARGISNULL(argno + 1) ? NULL : PG_GETARG_JSONB_P(argno + 1), analyzer);
}

/* match_distinct: the distinct tokens of text as text datums, sorted (*n) */
static Datum *
match_distinct(const SearchAnalyzer *analyzer, text *t, int *n)
{
	int			ntokens;
	SearchToken *tokens = search_analyze(analyzer, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), &ntokens);

	return search_tokens_distinct(tokens, ntokens, n);
}

/*
 * ots_search_match_tokens is ots.search_match_tokens(query text, analyzer
 * text, analyzer_parameter jsonb): the distinct tokens the analyzer makes of
 * query, which a search index's TEXT field of that analyzer holds in every
 * row ots.search_match(value, query, ...) is true of
 */
Datum
ots_search_match_tokens(PG_FUNCTION_ARGS)
{
	SearchAnalyzer analyzer;
	Datum	   *tokens;
	int			n;

	match_analyzer(fcinfo, 1, &analyzer);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	tokens = match_distinct(&analyzer, PG_GETARG_TEXT_PP(0), &n);
	PG_RETURN_ARRAYTYPE_P(construct_array(tokens, n, TEXTOID, -1, false, TYPALIGN_INT));
}

/*
 * ots_search_match is ots.search_match(value text, query text, analyzer
 * text, analyzer_parameter jsonb): does value hold every token of query, as
 * the analyzer cuts both (a match_query with operator AND on a TEXT field
 * of that analyzer)?  A query without tokens matches nothing.
 */
Datum
ots_search_match(PG_FUNCTION_ARGS)
{
	SearchAnalyzer analyzer;
	Datum	   *have;
	Datum	   *want;
	int			nhave;
	int			nwant;

	match_analyzer(fcinfo, 2, &analyzer);
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	want = match_distinct(&analyzer, PG_GETARG_TEXT_PP(1), &nwant);
	if (nwant == 0)
		PG_RETURN_BOOL(false);
	have = match_distinct(&analyzer, PG_GETARG_TEXT_PP(0), &nhave);
	/* both sorted: one walk */
	for (int w = 0, h = 0; w < nwant; w++)
	{
		while (h < nhave && search_token_cmp(have[h], want[w]) < 0)
			h++;
		if (h == nhave || search_token_cmp(have[h], want[w]) != 0)
			PG_RETURN_BOOL(false);
	}
	PG_RETURN_BOOL(true);
}
