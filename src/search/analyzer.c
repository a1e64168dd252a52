/*-------------------------------------------------------------------------
 * src/search/analyzer.c
 *	  Tablestore's analyzers for TEXT fields of a search index, and
 *	  ots.search_analyze, which shows what one makes of a text.
 *
 * A text is read as characters (Unicode code points of its UTF-8) and cut
 * into tokens, each with its position (0, 1, ...), which phrase queries
 * compare.  The five analyzers, as Tablestore documents them:
 *	  single_word  Han and Hiragana characters one token each; runs of
 *	               letters and digits one token, cut at anything else
 *	               (spaces, punctuation, symbols); with delimit_word also
 *	               where letters meet digits ("iphone6": "iphone", "6")
 *	  split        the pieces between occurrences of a delimiter (a space
 *	               by default), empty ones dropped
 *	  fuzzy        every run of min_chars to max_chars characters (1 and 7 by
 *	               default) of the text's first 1,024 characters, spaces
 *	               included, by start and then length
 *	  max_word,    Tablestore's split Chinese text into words with a
 *	  min_word     dictionary; without one, ots makes every two adjacent
 *	               Han characters of a run a token (a lone character is one
 *	               itself) and treats the rest as single_word does, so a
 *	               word of two characters is found wherever it occurs and
 *	               min_word is max_word (docs/reference.md says what differs)
 * Letters are lowered unless case_sensitive: Latin (ASCII, Latin-1 and
 * fullwidth), Greek and Cyrillic capitals by a fixed table, so a token
 * never depends on the database's locale and the function is immutable;
 * other scripts are kept as written.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <errno.h>

#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "errors.h"
#include "ots_limits.h"
#include "search/analyzer.h"

PG_FUNCTION_INFO_V1(ots_search_analyze);

/* what a character is to the analyzers */
typedef enum CharClass
{
	CHAR_BREAK,					/* space, punctuation, a symbol: between tokens */
	CHAR_LETTER,
	CHAR_DIGIT,
	CHAR_HAN					/* a token of its own (single_word), or of two (max_word) */
} CharClass;

static const char *const analyzer_names[] = {
	[ANALYZER_SINGLE_WORD] = "single_word",
	[ANALYZER_SPLIT] = "split",
	[ANALYZER_FUZZY] = "fuzzy",
	[ANALYZER_MIN_WORD] = "min_word",
	[ANALYZER_MAX_WORD] = "max_word",
};

/* the parameters each analyzer takes, as analyzer_parameter's members */
static const char *const analyzer_parameters[][4] = {
	[ANALYZER_SINGLE_WORD] = {"case_sensitive", "delimit_word", NULL},
	[ANALYZER_SPLIT] = {"delimiter", "case_sensitive", NULL},
	[ANALYZER_FUZZY] = {"min_chars", "max_chars", "case_sensitive", NULL},
	[ANALYZER_MIN_WORD] = {NULL},
	[ANALYZER_MAX_WORD] = {NULL},
};

const char *
search_analyzer_name(SearchAnalyzerKind kind)
{
	return analyzer_names[kind];
}

/* ---------------------------------------------------------------- characters */

static CharClass
char_class(pg_wchar c)
{
	if (c < 0x80)
		return (c >= '0' && c <= '9') ? CHAR_DIGIT :
			((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) ? CHAR_LETTER : CHAR_BREAK;
	if ((c >= 0x3400 && c <= 0x4DBF) ||		/* CJK Unified Ideographs Extension A */
		(c >= 0x4E00 && c <= 0x9FFF) ||		/* CJK Unified Ideographs */
		(c >= 0xF900 && c <= 0xFAFF) ||		/* CJK Compatibility Ideographs */
		(c >= 0x3040 && c <= 0x309F) ||		/* Hiragana */
		(c >= 0x20000 && c <= 0x3134F))		/* the supplementary ideographic planes */
		return CHAR_HAN;
	if (c <= 0xBF || c == 0xD7 || c == 0xF7 ||	/* Latin-1 controls, signs and punctuation */
		(c >= 0x2000 && c <= 0x2BFF) ||		/* punctuation, symbols, arrows, shapes */
		(c >= 0x2E00 && c <= 0x2E7F) ||		/* supplemental punctuation */
		(c >= 0x3000 && c <= 0x303F) ||		/* CJK symbols and punctuation */
		(c >= 0xFE10 && c <= 0xFE1F) ||		/* vertical forms */
		(c >= 0xFE30 && c <= 0xFE4F) ||		/* CJK compatibility forms */
		(c >= 0xFE50 && c <= 0xFE6F) ||		/* small form variants */
		(c >= 0xFF00 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) ||
		(c >= 0xFF3B && c <= 0xFF40) || (c >= 0xFF5B && c <= 0xFF65) ||	/* fullwidth punctuation */
		(c >= 0xFFF0 && c <= 0xFFFF) ||		/* specials */
		(c >= 0x1F000 && c <= 0x1FAFF))		/* emoji and other pictographs */
		return CHAR_BREAK;
	if (c >= 0xFF10 && c <= 0xFF19)
		return CHAR_DIGIT;		/* fullwidth digits */
	return CHAR_LETTER;
}

static pg_wchar
char_lower(pg_wchar c)
{
	if ((c >= 'A' && c <= 'Z') ||
		(c >= 0xC0 && c <= 0xDE && c != 0xD7) ||	/* Latin-1 */
		(c >= 0x391 && c <= 0x3AB && c != 0x3A2) ||	/* Greek */
		(c >= 0x410 && c <= 0x42F))	/* Cyrillic */
		return c + 0x20;
	if (c >= 0x400 && c <= 0x40F)
		return c + 0x50;		/* Cyrillic Ѐ..Џ */
	if (c >= 0xFF21 && c <= 0xFF3A)
		return c + 0x20;		/* fullwidth Latin */
	return c;
}

/* ---------------------------------------------------------------- tokens */

/* tokens as they are made: their bytes in one buffer, pointed at when done */
typedef struct Tokens
{
	SearchToken *items;
	int		   *offsets;		/* of each token's bytes in buf */
	int			n;
	int			cap;
	bool		lower;
	StringInfoData buf;
} Tokens;

/* tokens_add: the characters chars[from, to) as the next token */
static void
tokens_add(Tokens *t, const pg_wchar *chars, int from, int to)
{
	if (t->n == t->cap)
	{
		t->cap = Max(16, t->cap * 2);
		t->items = repalloc_huge(t->items, sizeof(SearchToken) * t->cap);
		t->offsets = repalloc_huge(t->offsets, sizeof(int) * t->cap);
	}
	t->offsets[t->n] = t->buf.len;
	for (int i = from; i < to; i++)
	{
		unsigned char utf8[MAX_MULTIBYTE_CHAR_LEN];
		pg_wchar	c = t->lower ? char_lower(chars[i]) : chars[i];

		unicode_to_utf8(c, utf8);
		appendBinaryStringInfo(&t->buf, (const char *) utf8, pg_utf_mblen(utf8));
	}
	t->items[t->n].len = t->buf.len - t->offsets[t->n];
	t->items[t->n].position = t->n;
	t->n++;
}

/*
 * words: single_word's tokens of chars[0, n), with Han runs as max_word
 * makes them when bigrams
 */
static void
words(Tokens *t, const pg_wchar *chars, int n, bool delimit_word, bool bigrams)
{
	int			i = 0;

	while (i < n)
	{
		CharClass	class = char_class(chars[i]);
		int			j = i + 1;

		if (class == CHAR_BREAK)
		{
			i++;
			continue;
		}
		if (class == CHAR_HAN)
		{
			while (bigrams && j < n && char_class(chars[j]) == CHAR_HAN)
				j++;
			if (j - i == 1)
				tokens_add(t, chars, i, j);
			for (int k = i; k + 1 < j; k++)
				tokens_add(t, chars, k, k + 2);
			i = j;
			continue;
		}
		for (; j < n; j++)
		{
			CharClass	next = char_class(chars[j]);

			if (next != CHAR_LETTER && next != CHAR_DIGIT)
				break;
			if (delimit_word && next != char_class(chars[j - 1]))
				break;
		}
		tokens_add(t, chars, i, j);
		i = j;
	}
}

/* split_pieces: the pieces of chars[0, n) between occurrences of delim[0, ndelim) */
static void
split_pieces(Tokens *t, const pg_wchar *chars, int n, const pg_wchar *delim, int ndelim)
{
	int			start = 0;

	for (int i = 0; i <= n; i++)
	{
		bool		at_delim = i + ndelim <= n &&
			memcmp(&chars[i], delim, sizeof(pg_wchar) * ndelim) == 0;

		if (i < n && !at_delim)
			continue;
		if (i > start)
			tokens_add(t, chars, start, i);
		if (at_delim)
			i += ndelim - 1;
		start = i + 1;
	}
}

/* ngrams: fuzzy's tokens of chars[0, n), n at most OTS_FUZZY_TEXT_CHARS */
static void
ngrams(Tokens *t, const pg_wchar *chars, int n, int min_chars, int max_chars)
{
	for (int start = 0; start < n; start++)
		for (int len = min_chars; len <= max_chars && start + len <= n; len++)
			tokens_add(t, chars, start, start + len);
}

/* utf8_chars: the code points of UTF-8 text of len bytes; *n of them */
static pg_wchar *
utf8_chars(const char *text, int len, int *n)
{
	pg_wchar   *chars = palloc_extended(sizeof(pg_wchar) * ((Size) len + 1), MCXT_ALLOC_HUGE);

	*n = pg_encoding_mb2wchar_with_len(PG_UTF8, text, chars, len);
	return chars;
}

SearchToken *
search_analyze(const SearchAnalyzer *analyzer, const char *text, int len, int *ntokens)
{
	Tokens		t = {0};
	int			n;
	pg_wchar   *chars = utf8_chars(text, len, &n);

	t.items = palloc(sizeof(SearchToken) * 16);
	t.offsets = palloc(sizeof(int) * 16);
	t.cap = 16;
	t.lower = !analyzer->case_sensitive;
	initStringInfo(&t.buf);
	switch (analyzer->kind)
	{
		case ANALYZER_SINGLE_WORD:
			words(&t, chars, n, analyzer->delimit_word, false);
			break;
		case ANALYZER_MIN_WORD:
		case ANALYZER_MAX_WORD:
			words(&t, chars, n, false, true);
			break;
		case ANALYZER_SPLIT:
			{
				int			ndelim;
				pg_wchar   *delim = utf8_chars(analyzer->delimiter, strlen(analyzer->delimiter), &ndelim);

				split_pieces(&t, chars, n, delim, ndelim);
				break;
			}
		case ANALYZER_FUZZY:
			ngrams(&t, chars, Min(n, OTS_FUZZY_TEXT_CHARS), analyzer->min_chars, analyzer->max_chars);
			break;
	}
	for (int i = 0; i < t.n; i++)
		t.items[i].text = t.buf.data + t.offsets[i];
	*ntokens = t.n;
	return t.items;
}

/* ---------------------------------------------------------------- parameters */

/* parameter_member: the member key of the parameter object, or NULL when absent or null */
static JsonbValue *
parameter_member(Jsonb *parameter, const char *key, JsonbValue *out)
{
	if (parameter == NULL ||
		getKeyJsonValueFromContainer(&parameter->root, key, strlen(key), out) == NULL ||
		out->type == jbvNull)
		return NULL;
	return out;
}

static bool
parameter_bool(Jsonb *parameter, const char *key, bool absent)
{
	JsonbValue	v;

	if (parameter_member(parameter, key, &v) == NULL)
		return absent;
	if (v.type != jbvBool)
		ots_parameter_invalid(psprintf("Invalid analyzer_parameter: %s is not a JSON boolean.", key),
							  "case_sensitive and delimit_word are true or false.");
	return v.val.boolean;
}

static int
parameter_int(Jsonb *parameter, const char *key, int absent)
{
	JsonbValue	v;
	char	   *digits;
	char	   *end;
	long		n;

	if (parameter_member(parameter, key, &v) == NULL)
		return absent;
	if (v.type != jbvNumeric)
		ots_parameter_invalid(psprintf("Invalid analyzer_parameter: %s is not an integer.", key),
							  "min_chars and max_chars are integers.");
	digits = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v.val.numeric)));
	errno = 0;
	n = strtol(digits, &end, 10);
	if (*end != '\0')
		ots_parameter_invalid(psprintf("Invalid analyzer_parameter: %s is not an integer.", key),
							  "min_chars and max_chars are integers.");
	if (errno != 0 || n < 1 || n > OTS_MAX_FUZZY_CHARS)
		ots_parameter_invalid(psprintf("Invalid analyzer_parameter: %s must be between 1 and %d.",
									   key, OTS_MAX_FUZZY_CHARS),
							  "A fuzzy token has at least 1 and at most 32 characters.");
	return (int) n;
}

/* parameter_known: every member of the parameter object is one the analyzer takes */
static void
parameter_known(Jsonb *parameter, SearchAnalyzerKind kind)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (parameter == NULL)
		return;
	if (!JB_ROOT_IS_OBJECT(parameter))
		ots_parameter_invalid("Invalid analyzer_parameter: it is not a JSON object.",
							  "analyzer_parameter is a JSON object of the analyzer's parameters, or null.");
	it = JsonbIteratorInit(&parameter->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		bool		known = false;
		char	   *key;

		if (tok != WJB_KEY)
			continue;
		key = pnstrdup(v.val.string.val, v.val.string.len);
		for (int i = 0; analyzer_parameters[kind][i] != NULL; i++)
			known = known || strcmp(analyzer_parameters[kind][i], key) == 0;
		if (!known)
			ots_parameter_invalid(psprintf("Invalid analyzer_parameter: analyzer %s takes no parameter '%s'.",
										   analyzer_names[kind], key),
								  "single_word takes case_sensitive and delimit_word; split, delimiter and case_sensitive; fuzzy, min_chars, max_chars and case_sensitive; min_word and max_word, none.");
	}
}

void
search_analyzer_read(const char *name, Jsonb *parameter, SearchAnalyzer *out)
{
	int			kind = -1;

	for (int i = 0; i < lengthof(analyzer_names); i++)
		if (strcmp(name, analyzer_names[i]) == 0)
			kind = i;
	if (kind < 0)
		ots_parameter_invalid(psprintf("Invalid analyzer: '%s'.", name),
							  "The analyzer is single_word, split, fuzzy, min_word or max_word.");
	memset(out, 0, sizeof(*out));
	out->kind = kind;
	parameter_known(parameter, kind);
	if (kind == ANALYZER_SINGLE_WORD || kind == ANALYZER_SPLIT || kind == ANALYZER_FUZZY)
		out->case_sensitive = parameter_bool(parameter, "case_sensitive", false);
	if (kind == ANALYZER_SINGLE_WORD)
		out->delimit_word = parameter_bool(parameter, "delimit_word", false);
	if (kind == ANALYZER_SPLIT)
	{
		JsonbValue	v;

		out->delimiter = " ";
		if (parameter_member(parameter, "delimiter", &v) != NULL)
		{
			if (v.type != jbvString || v.val.string.len == 0)
				ots_parameter_invalid("Invalid analyzer_parameter: delimiter is not a non-empty JSON string.",
									  "The delimiter is a string of one or more characters; a space when absent.");
			out->delimiter = pnstrdup(v.val.string.val, v.val.string.len);
		}
	}
	if (kind == ANALYZER_FUZZY)
	{
		out->min_chars = parameter_int(parameter, "min_chars", 1);
		out->max_chars = parameter_int(parameter, "max_chars", 7);
		if (out->max_chars < out->min_chars)
			ots_parameter_invalid("Invalid analyzer_parameter: max_chars is less than min_chars.",
								  "A fuzzy token has min_chars to max_chars characters.");
	}
}

/* ---------------------------------------------------------------- SQL */

/*
 * ots_search_analyze is ots.search_analyze(text, analyzer, analyzer_parameter):
 * the tokens a TEXT field of a search index makes of text, with their
 * positions; no rows for NULL.
 */
Datum
ots_search_analyze(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SearchAnalyzer analyzer;
	SearchToken *tokens;
	int			ntokens;
	char	   *in;
	char	   *utf8;

	search_analyzer_read(PG_ARGISNULL(1) ? "single_word" : text_to_cstring(PG_GETARG_TEXT_PP(1)),
						 PG_ARGISNULL(2) ? NULL : PG_GETARG_JSONB_P(2), &analyzer);
	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(0))
		return (Datum) 0;
	in = text_to_cstring(PG_GETARG_TEXT_PP(0));
	utf8 = pg_server_to_any(in, strlen(in), PG_UTF8);
	tokens = search_analyze(&analyzer, utf8, strlen(utf8), &ntokens);
	for (int i = 0; i < ntokens; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};
		char	   *server = pg_any_to_server(tokens[i].text, tokens[i].len, PG_UTF8);

		values[0] = PointerGetDatum(server == tokens[i].text ?
									cstring_to_text_with_len(tokens[i].text, tokens[i].len) :
									cstring_to_text(server));
		values[1] = Int32GetDatum(tokens[i].position);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
