/*-------------------------------------------------------------------------
 * src/search/highlight.c
 *	  ots.search_highlight: the fragments of a TEXT field's value in which
 *	  a search's terms stand, each term wrapped in the pre and post tags, as
 *	  Tablestore's highlight (Elasticsearch's plain highlighter) gives them.
 *
 * The value is cut into tokens by the field's analyzer, which says which
 * characters each token came from.  The text is split into fragments of
 * about fragment_size characters at token boundaries; the fragments that
 * hold a term are kept, the number_of_fragments with the most terms (the
 * earlier first among equals), in the text's order (TEXT_SEQUENCE) or the
 * best first (SCORE).  With number_of_fragments 0 the whole text is one
 * fragment.  HTML_MODE escapes the text (not the tags) as Elasticsearch's
 * html encoder does.  Terms that overlap (fuzzy's n-grams, max_word's
 * pairs) are wrapped as one; a phrase's words are wrapped wherever they
 * stand, as terms.  A value's fragments stop once they pass 1 MB.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "search/analyzer.h"
#include "search/json_build.h"

PG_FUNCTION_INFO_V1(ots_search_highlight);

/* a value's fragments stop past this many bytes (tags may be long, terms many) */
#define HIGHLIGHT_MAX_BYTES		(1024 * 1024)

/* a fragment: characters [start, end) of the text, and the terms in it */
typedef struct Fragment
{
	int			start;
	int			end;
	int			terms;
} Fragment;

/* spec_string: member key of the spec, or dflt */
static const char *
spec_string(Jsonb *spec, const char *key, const char *dflt)
{
	JsonbValue	v;

	if (getKeyJsonValueFromContainer(&spec->root, key, strlen(key), &v) == NULL || v.type != jbvString)
		return dflt;
	return pnstrdup(v.val.string.val, v.val.string.len);
}

static int
spec_int(Jsonb *spec, const char *key, int dflt)
{
	JsonbValue	v;

	if (getKeyJsonValueFromContainer(&spec->root, key, strlen(key), &v) == NULL || v.type != jbvNumeric)
		return dflt;
	return DatumGetInt32(DirectFunctionCall1(numeric_int4, NumericGetDatum(v.val.numeric)));
}

/* the terms, sorted bytewise and distinct, for a binary search */
typedef struct Terms
{
	char	  **items;
	int		   *lens;
	int			n;
} Terms;

static int
term_cmp(const char *a, int alen, const char *b, int blen)
{
	int			c = memcmp(a, b, Min(alen, blen));

	return c != 0 ? c : (alen > blen) - (alen < blen);
}

static int
term_qsort_cmp(const void *a, const void *b, void *arg)
{
	const Terms *t = arg;
	int			i = *(const int *) a;
	int			j = *(const int *) b;

	return term_cmp(t->items[i], t->lens[i], t->items[j], t->lens[j]);
}

/* terms_read: the spec's terms (a jsonb array of strings), sorted and distinct */
static void
terms_read(JsonbContainer *array, Terms *out)
{
	int			n = JsonContainerSize(array);
	int		   *order = palloc(sizeof(int) * Max(n, 1));
	Terms		all = {palloc(sizeof(char *) * Max(n, 1)), palloc(sizeof(int) * Max(n, 1)), 0};

	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(array, i);

		if (e->type != jbvString)
			continue;
		all.items[all.n] = e->val.string.val;
		all.lens[all.n] = e->val.string.len;
		order[all.n] = all.n;
		all.n++;
	}
	qsort_arg(order, all.n, sizeof(int), term_qsort_cmp, &all);
	out->items = palloc(sizeof(char *) * Max(all.n, 1));
	out->lens = palloc(sizeof(int) * Max(all.n, 1));
	out->n = 0;
	for (int i = 0; i < all.n; i++)
	{
		int			k = order[i];

		if (out->n > 0 && term_cmp(out->items[out->n - 1], out->lens[out->n - 1], all.items[k], all.lens[k]) == 0)
			continue;
		out->items[out->n] = all.items[k];
		out->lens[out->n] = all.lens[k];
		out->n++;
	}
}

/* is_term: whether token t is one of terms */
static bool
is_term(const SearchToken *t, const Terms *terms)
{
	int			lo = 0;
	int			hi = terms->n - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		int			c = term_cmp(t->text, t->len, terms->items[mid], terms->lens[mid]);

		if (c == 0)
			return true;
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return false;
}

/* append_chars: characters [from, to) of chars, in the database's encoding, HTML-escaped when html */
static void
append_chars(StringInfo out, const pg_wchar *chars, int from, int to, bool html)
{
	for (int i = from; i < to; i++)
	{
		unsigned char utf8[MAX_MULTIBYTE_CHAR_LEN + 1];
		int			len;
		char	   *server;

		if (html)
		{
			const char *escaped = NULL;

			switch (chars[i])
			{
				case '&':
					escaped = "&amp;";
					break;
				case '<':
					escaped = "&lt;";
					break;
				case '>':
					escaped = "&gt;";
					break;
				case '"':
					escaped = "&quot;";
					break;
				case '\'':
					escaped = "&#x27;";
					break;
				case '/':
					escaped = "&#x2F;";
					break;
			}
			if (escaped != NULL)
			{
				appendStringInfoString(out, escaped);
				continue;
			}
		}
		unicode_to_utf8(chars[i], utf8);
		len = pg_utf_mblen(utf8);
		utf8[len] = '\0';
		server = pg_any_to_server((const char *) utf8, len, PG_UTF8);
		appendStringInfoString(out, server);
	}
}

static int
fragment_by_terms(const void *a, const void *b)
{
	const Fragment *x = a;
	const Fragment *y = b;

	if (x->terms != y->terms)
		return x->terms > y->terms ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int
fragment_by_start(const void *a, const void *b)
{
	const Fragment *x = a;
	const Fragment *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * ots_search_highlight is ots.search_highlight(value text, spec jsonb):
 * spec is {"analyzer", "analyzer_parameter", "terms": [tokens], "pre_tag",
 * "post_tag", "fragment_size", "number_of_fragments", "fragments_order",
 * "html"} (search_query.c makes it); the fragments, a jsonb array (empty
 * when no term stands in the value)
 */
Datum
ots_search_highlight(PG_FUNCTION_ARGS)
{
	text	   *value = PG_GETARG_TEXT_PP(0);
	Jsonb	   *spec = PG_GETARG_JSONB_P(1);
	const char *analyzer_name = spec_string(spec, "analyzer", "single_word");
	const char *pre = spec_string(spec, "pre_tag", "<em>");
	const char *post = spec_string(spec, "post_tag", "</em>");
	int			size = Max(spec_int(spec, "fragment_size", 100), 1);
	int			wanted = spec_int(spec, "number_of_fragments", 5);
	bool		by_score = strcmp(spec_string(spec, "fragments_order", "TEXT_SEQUENCE"), "SCORE") == 0;
	JsonbValue	v;
	Terms		terms;
	bool	   *matched;
	Jsonb	   *parameter = NULL;
	SearchAnalyzer analyzer;
	SearchToken *tokens;
	int			ntokens;
	char	   *utf8;
	int			utf8_len;
	pg_wchar   *chars;
	int			nchars;
	bool		html;
	Fragment   *fragments;
	int			nfragments = 0;
	int			kept = 0;
	int			total = 0;
	JsonbParseState *st = NULL;

	if (getKeyJsonValueFromContainer(&spec->root, "terms", 5, &v) == NULL || v.type != jbvBinary ||
		!JsonContainerIsArray(v.val.binary.data))
		elog(ERROR, "a highlight's spec has no terms");
	terms_read(v.val.binary.data, &terms);
	html = getKeyJsonValueFromContainer(&spec->root, "html", 4, &v) != NULL && v.type == jbvBool && v.val.boolean;
	if (getKeyJsonValueFromContainer(&spec->root, "analyzer_parameter", 18, &v) != NULL && v.type == jbvBinary)
		parameter = JsonbValueToJsonb(&v);
	search_analyzer_read(analyzer_name, parameter, &analyzer);
	tokens = search_analyze(&analyzer, VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value), &ntokens);
	/* the characters the tokens' offsets count, as the analyzer decoded them */
	utf8 = pg_server_to_any(VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value), PG_UTF8);
	utf8_len = utf8 != VARDATA_ANY(value) ? strlen(utf8) : VARSIZE_ANY_EXHDR(value);
	chars = palloc(sizeof(pg_wchar) * ((Size) utf8_len + 1));
	nchars = pg_encoding_mb2wchar_with_len(PG_UTF8, utf8, chars, utf8_len);

	/*
	 * fragments at token boundaries, each about size characters (0 wanted:
	 * the whole text), never cutting a token (overlapping ones, fuzzy's or
	 * max_word's, end past the next one's start)
	 */
	matched = palloc(sizeof(bool) * Max(ntokens, 1));
	fragments = palloc0(sizeof(Fragment) * (ntokens + 1));
	fragments[0].start = 0;
	for (int i = 0, reach = 0; i < ntokens; i++)
	{
		Fragment   *f = &fragments[nfragments];

		if ((i & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		matched[i] = is_term(&tokens[i], &terms);
		if (wanted > 0 && tokens[i].end - f->start > size && tokens[i].start > f->start && tokens[i].start >= reach)
		{
			f->end = tokens[i].start;
			f = &fragments[++nfragments];
			f->start = tokens[i].start;
		}
		if (matched[i])
			f->terms++;
		reach = Max(reach, tokens[i].end);
	}
	fragments[nfragments++].end = nchars;
	/* the fragments with terms, the most first, so many of them, in the order asked */
	qsort(fragments, nfragments, sizeof(Fragment), fragment_by_terms);
	while (kept < nfragments && fragments[kept].terms > 0 && (wanted == 0 || kept < wanted))
		kept++;
	if (!by_score)
		qsort(fragments, kept, sizeof(Fragment), fragment_by_start);

	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	for (int k = 0; k < kept && total < HIGHLIGHT_MAX_BYTES; k++)
	{
		StringInfoData out;
		int			at = fragments[k].start;

		initStringInfo(&out);
		for (int i = 0; i < ntokens; i++)
		{
			int			start;
			int			end;

			if ((i & 0xFFF) == 0)
				CHECK_FOR_INTERRUPTS();
			if (tokens[i].start < fragments[k].start || tokens[i].end > fragments[k].end ||
				tokens[i].start < at || !matched[i])
				continue;
			/* terms that overlap are one span, as Lucene marks them */
			start = tokens[i].start;
			end = tokens[i].end;
			while (i + 1 < ntokens && matched[i + 1] && tokens[i + 1].start < end && tokens[i + 1].end <= fragments[k].end)
			{
				i++;
				end = Max(end, tokens[i].end);
			}
			append_chars(&out, chars, at, start, html);
			appendStringInfoString(&out, pre);
			append_chars(&out, chars, start, end, html);
			appendStringInfoString(&out, post);
			at = end;
		}
		append_chars(&out, chars, at, fragments[k].end, html);
		total += out.len;
		json_push_string(&st, NULL, out.data);
	}
	PG_RETURN_JSONB_P(JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL)));
}
