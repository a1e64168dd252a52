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
 * html encoder does.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "search/analyzer.h"
#include "search/json_build.h"

PG_FUNCTION_INFO_V1(ots_search_highlight);

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

/* is_term: whether token t is one of terms (a jsonb array of strings) */
static bool
is_term(const SearchToken *t, JsonbContainer *terms)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) t->text;
	v.val.string.len = t->len;
	return findJsonbValueFromContainer(terms, JB_FARRAY, &v) != NULL;
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
	JsonbContainer *terms;
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
	JsonbParseState *st = NULL;

	if (getKeyJsonValueFromContainer(&spec->root, "terms", 5, &v) == NULL || v.type != jbvBinary ||
		!JsonContainerIsArray(v.val.binary.data))
		elog(ERROR, "a highlight's spec has no terms");
	terms = v.val.binary.data;
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

	/* fragments at token boundaries, each about size characters; 0 wanted: the whole text */
	fragments = palloc0(sizeof(Fragment) * (ntokens + 1));
	fragments[0].start = 0;
	for (int i = 0; i < ntokens; i++)
	{
		Fragment   *f = &fragments[nfragments];

		if (wanted > 0 && tokens[i].end - f->start > size && tokens[i].start > f->start)
		{
			f->end = tokens[i].start;
			f = &fragments[++nfragments];
			f->start = tokens[i].start;
		}
		if (is_term(&tokens[i], terms))
			f->terms++;
	}
	fragments[nfragments++].end = nchars;
	/* the fragments with terms, the most first, so many of them, in the order asked */
	qsort(fragments, nfragments, sizeof(Fragment), fragment_by_terms);
	while (kept < nfragments && fragments[kept].terms > 0 && (wanted == 0 || kept < wanted))
		kept++;
	if (!by_score)
		qsort(fragments, kept, sizeof(Fragment), fragment_by_start);

	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	for (int k = 0; k < kept; k++)
	{
		StringInfoData out;
		int			at = fragments[k].start;

		initStringInfo(&out);
		for (int i = 0; i < ntokens; i++)
		{
			if (tokens[i].start < fragments[k].start || tokens[i].end > fragments[k].end ||
				tokens[i].start < at || !is_term(&tokens[i], terms))
				continue;
			append_chars(&out, chars, at, tokens[i].start, html);
			appendStringInfoString(&out, pre);
			append_chars(&out, chars, tokens[i].start, tokens[i].end, html);
			appendStringInfoString(&out, post);
			at = tokens[i].end;
		}
		append_chars(&out, chars, at, fragments[k].end, html);
		json_push_string(&st, NULL, out.data);
	}
	PG_RETURN_JSONB_P(JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL)));
}
