/*-------------------------------------------------------------------------
 * src/search/analyzer.c
 *	  Tablestore's analyzers for TEXT fields of a search index, and
 *	  ots.search_analyze, which shows what one makes of a text.
 *
 * A text is read as characters (Unicode code points) and cut into tokens,
 * each with its position, which phrase queries compare.  The five
 * analyzers, as Tablestore documents them:
 *	  single_word  Han and Hiragana characters one token each; runs of
 *	               letters and digits one token, cut at anything else
 *	               (spaces, punctuation, symbols, invisible marks); with
 *	               delimit_word also where letters meet digits ("iphone6":
 *	               "iphone", "6")
 *	  split        the pieces between occurrences of a delimiter (any white
 *	               space by default), empty ones dropped
 *	  fuzzy        every run of min_chars to max_chars characters (1 and 7 by
 *	               default) of the text's first 1,024 characters, spaces
 *	               included; the runs starting at one character share its
 *	               position, so a phrase of a query's runs is a substring
 *	  max_word,    Tablestore cuts Chinese text into words with a dictionary;
 *	  min_word     without one, ots makes every two adjacent Han characters
 *	               a token (a lone one is a token itself) and treats the
 *	               rest as single_word does, so a word of two characters is
 *	               found wherever it occurs and min_word is max_word
 *	               (docs/reference.md says what differs)
 * Letters are lowered unless case_sensitive, by Unicode's simple lowercase
 * mapping fixed in lower_table.h, so a token never depends on the
 * database's locale or the machine.  Texts and tokens are in the
 * database's encoding, converted to and from UTF-8 here.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <errno.h>

#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "errors.h"
#include "ots_limits.h"
#include "search/analyzer.h"
#include "search/lower_table.h"

PG_FUNCTION_INFO_V1(ots_search_analyze);

/* what a character is to the analyzers */
typedef enum CharClass
{
	CHAR_BREAK,					/* space, punctuation, a symbol, a mark: between tokens */
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

/* ---------------------------------------------------------------- characters */

/* char_class: how the analyzers cut at c; ASCII and the blocks of CJK text by name, other letters as letters */
static CharClass
char_class(pg_wchar c)
{
	if (c < 0x80)
		return (c >= '0' && c <= '9') ? CHAR_DIGIT :
			((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) ? CHAR_LETTER : CHAR_BREAK;
	if ((c >= 0x2E80 && c <= 0x2FDF) ||		/* CJK and Kangxi radicals */
		c == 0x3005 || c == 0x3007 ||	/* 々, 〇 */
		(c >= 0x3040 && c <= 0x309F) ||		/* Hiragana */
		(c >= 0x3400 && c <= 0x4DBF) ||		/* CJK Unified Ideographs Extension A */
		(c >= 0x4E00 && c <= 0x9FFF) ||		/* CJK Unified Ideographs */
		(c >= 0xF900 && c <= 0xFAFF) ||		/* CJK Compatibility Ideographs */
		(c >= 0x20000 && c <= 0x323AF))		/* the supplementary ideographic planes */
		return CHAR_HAN;
	if (c == 0xAA || c == 0xB5 || c == 0xBA)
		return CHAR_LETTER;		/* ª µ º */
	if (c == 0xB2 || c == 0xB3 || c == 0xB9 || (c >= 0xFF10 && c <= 0xFF19))
		return CHAR_DIGIT;		/* superscript and fullwidth digits */
	if (c <= 0xBF || c == 0xD7 || c == 0xF7 ||	/* Latin-1 controls, signs and punctuation */
		c == 0x1680 ||			/* Ogham space */
		(c >= 0x2000 && c <= 0x2BFF) ||		/* spaces, punctuation, symbols, arrows, shapes */
		(c >= 0x2E00 && c <= 0x2E7F) ||		/* supplemental punctuation */
		(c >= 0x3000 && c <= 0x303F) ||		/* CJK symbols and punctuation */
		c == 0x30FB ||			/* katakana middle dot */
		(c >= 0xFE00 && c <= 0xFE1F) ||		/* variation selectors, vertical forms */
		(c >= 0xFE30 && c <= 0xFE6F) ||		/* CJK compatibility and small forms */
		c == 0xFEFF ||			/* byte order mark */
		(c >= 0xFF00 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) ||
		(c >= 0xFF3B && c <= 0xFF40) || (c >= 0xFF5B && c <= 0xFF65) ||	/* fullwidth punctuation */
		(c >= 0xFFE0 && c <= 0xFFEE) ||		/* fullwidth signs */
		(c >= 0xFFF0 && c <= 0xFFFF) ||		/* specials */
		(c >= 0x1F000 && c <= 0x1FAFF) ||	/* emoji and other pictographs */
		(c >= 0xE0000 && c <= 0xE01EF))		/* tags, variation selectors supplement */
		return CHAR_BREAK;
	return CHAR_LETTER;
}

/* char_white: a white space (Unicode's White_Space), split's default delimiter */
static bool
char_white(pg_wchar c)
{
	return (c >= 0x09 && c <= 0x0D) || c == ' ' || c == 0x85 || c == 0xA0 || c == 0x1680 ||
		(c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
		c == 0x205F || c == 0x3000;
}

/* char_lower: c lowered (lower_table.h), or c */
static pg_wchar
char_lower(pg_wchar c)
{
	int			lo = 0;
	int			hi = lengthof(lower_ranges) - 1;

	if (c < 0x80)
		return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		const LowerRange *r = &lower_ranges[mid];

		if ((int32) c < r->first)
			hi = mid - 1;
		else if ((int32) c > r->last)
			lo = mid + 1;
		else
			return ((int32) c - r->first) % r->stride == 0 ? (pg_wchar) ((int32) c + r->delta) : c;
	}
	return c;
}

/* ---------------------------------------------------------------- tokens */

/* tokens as they are made: their UTF-8 in one buffer, pointed at when done */
typedef struct Tokens
{
	SearchToken *items;
	int		   *offsets;		/* of each token's bytes in buf */
	int			n;
	int			cap;
	bool		lower;
	StringInfoData buf;
} Tokens;

/* tokens_add: the characters chars[from, to) as the next token, at position */
static void
tokens_add(Tokens *t, const pg_wchar *chars, int from, int to, int position)
{
	if ((t->n & 0xFFF) == 0)
		CHECK_FOR_INTERRUPTS();
	if (t->n == t->cap)
	{
		t->cap *= 2;
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
	t->items[t->n].position = position;
	t->items[t->n].start = from;
	t->items[t->n].end = to;
	t->n++;
}

/*
 * words: single_word's tokens of chars[0, n), each at the next position;
 * with bigrams, max_word's (Han runs as pairs)
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
				tokens_add(t, chars, i, j, t->n);
			for (int k = i; k + 1 < j; k++)
				tokens_add(t, chars, k, k + 2, t->n);
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
		tokens_add(t, chars, i, j, t->n);
		i = j;
	}
}

/*
 * split_pieces: the pieces of chars[0, n) between occurrences of
 * delim[0, ndelim), taken left to right, or between white spaces when
 * ndelim is 0
 */
static void
split_pieces(Tokens *t, const pg_wchar *chars, int n, const pg_wchar *delim, int ndelim)
{
	int			start = 0;

	for (int i = 0; i <= n; i++)
	{
		int			skip = 0;

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (i < n && ndelim == 0 && char_white(chars[i]))
			skip = 1;
		else if (i < n && ndelim > 0 && i + ndelim <= n &&
				 memcmp(&chars[i], delim, sizeof(pg_wchar) * ndelim) == 0)
			skip = ndelim;
		if (i < n && skip == 0)
			continue;
		if (i > start)
			tokens_add(t, chars, start, i, t->n);
		i += Max(skip, 1) - 1;
		start = i + 1;
	}
}

/* ngrams: fuzzy's tokens of chars[0, n), those starting at a character at its index */
static void
ngrams(Tokens *t, const pg_wchar *chars, int n, int min_chars, int max_chars)
{
	for (int start = 0; start < n; start++)
		for (int len = min_chars; len <= max_chars && start + len <= n; len++)
			tokens_add(t, chars, start, start + len, start);
}

/* utf8_chars: the code points of the first max_chars characters of UTF-8 text[0, len); *n of them */
static pg_wchar *
utf8_chars(const char *text, int len, int max_chars, int *n)
{
	int			bytes = 0;
	int			nchars = 0;
	pg_wchar   *chars;

	while (bytes < len && nchars < max_chars)
	{
		bytes += pg_utf_mblen((const unsigned char *) text + bytes);
		nchars++;
	}
	chars = palloc(sizeof(pg_wchar) * ((Size) nchars + 1));
	*n = pg_encoding_mb2wchar_with_len(PG_UTF8, text, chars, Min(bytes, len));
	return chars;
}

/*
 * search_analyze: the tokens of text[0, len), in the database's encoding,
 * in order; *ntokens of them, also in the database's encoding
 */
SearchToken *
search_analyze(const SearchAnalyzer *analyzer, const char *text, int len, int *ntokens)
{
	Tokens		t = {0};
	int			n;
	pg_wchar   *chars;
	char	   *utf8;

	if (len > OTS_MAX_ATTR_VALUE_LEN)
		ots_error(PARAMETER_INVALID, "The text is longer than %d bytes.", OTS_MAX_ATTR_VALUE_LEN);
	utf8 = pg_server_to_any(text, len, PG_UTF8);
	if (utf8 != text)
		len = strlen(utf8);
	chars = utf8_chars(utf8, len, analyzer->kind == ANALYZER_FUZZY ? OTS_FUZZY_TEXT_CHARS : len, &n);
	t.cap = 16;
	t.items = palloc(sizeof(SearchToken) * t.cap);
	t.offsets = palloc(sizeof(int) * t.cap);
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
				int			ndelim = 0;
				pg_wchar   *delim = NULL;

				if (analyzer->delimiter != NULL)
				{
					int			dlen = strlen(analyzer->delimiter);

					delim = utf8_chars(analyzer->delimiter, dlen, dlen, &ndelim);
				}
				split_pieces(&t, chars, n, delim, ndelim);
				break;
			}
		case ANALYZER_FUZZY:
			ngrams(&t, chars, n, analyzer->min_chars, analyzer->max_chars);
			break;
	}
	for (int i = 0; i < t.n; i++)
	{
		const char *token = t.buf.data + t.offsets[i];
		char	   *server = pg_any_to_server(token, t.items[i].len, PG_UTF8);

		t.items[i].text = token;
		if (server != token)
		{
			t.items[i].text = server;
			t.items[i].len = strlen(server);
		}
	}
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

/* parameter_bool: a true/false parameter, absent when not given */
static bool
parameter_bool(Jsonb *parameter, const char *key, bool absent)
{
	JsonbValue	v;

	if (parameter_member(parameter, key, &v) == NULL)
		return absent;
	if (v.type != jbvBool)
		ots_parameter_invalid(psprintf("Invalid analyzer_parameter: %s is not a JSON boolean.", key),
							  psprintf("%s is true or false.", key));
	return v.val.boolean;
}

/* parameter_chars: a number of characters of a fuzzy token (1 to OTS_MAX_FUZZY_CHARS), absent when not given */
static int
parameter_chars(Jsonb *parameter, const char *key, int absent)
{
	JsonbValue	v;
	char	   *digits;
	char	   *end;
	long		n;

	if (parameter_member(parameter, key, &v) == NULL)
		return absent;
	if (v.type != jbvNumeric)
		ots_parameter_invalid(psprintf("Invalid analyzer_parameter: %s is not an integer.", key),
							  psprintf("%s is an integer.", key));
	digits = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v.val.numeric)));
	errno = 0;
	n = strtol(digits, &end, 10);
	if (*end == '.')
		end += strspn(end + 1, "0") + 1;	/* 2.0 is 2 */
	if (*end != '\0')
		ots_parameter_invalid(psprintf("Invalid analyzer_parameter: %s is not an integer.", key),
							  psprintf("%s is an integer.", key));
	if (errno != 0 || n < 1 || n > OTS_MAX_FUZZY_CHARS)
		ots_parameter_invalid(psprintf("Invalid analyzer_parameter: %s must be between 1 and %d.",
									   key, OTS_MAX_FUZZY_CHARS),
							  psprintf("A fuzzy token has at least 1 and at most %d characters.",
									   OTS_MAX_FUZZY_CHARS));
	return (int) n;
}

/*
 * parameter_known: the parameter is a JSON object (or null) whose members
 * given a value are parameters the analyzer takes
 */
static void
parameter_known(Jsonb *parameter, SearchAnalyzerKind kind)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	char	   *key = NULL;

	if (!JB_ROOT_IS_OBJECT(parameter))
		ots_parameter_invalid("Invalid analyzer_parameter: it is not a JSON object.",
							  "analyzer_parameter is a JSON object of the analyzer's parameters, or null.");
	it = JsonbIteratorInit(&parameter->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		bool		known = false;

		if (tok == WJB_KEY)
			key = pnstrdup(v.val.string.val, v.val.string.len);
		if (tok != WJB_VALUE || v.type == jbvNull)
			continue;
		for (int i = 0; analyzer_parameters[kind][i] != NULL; i++)
			known = known || strcmp(analyzer_parameters[kind][i], key) == 0;
		if (!known)
			ots_parameter_invalid(psprintf("Invalid analyzer_parameter: analyzer %s takes no parameter '%s'.",
										   analyzer_names[kind], key),
								  "single_word takes case_sensitive and delimit_word; split, delimiter and case_sensitive; fuzzy, min_chars, max_chars and case_sensitive; min_word and max_word, none.");
	}
}

const char *
search_analyzer_name(SearchAnalyzerKind kind)
{
	return analyzer_names[kind];
}

/*
 * search_analyzer_read: the analyzer of name with parameter's parameters
 * (NULL or JSON null: the defaults); OTSParameterInvalid otherwise
 */
int
search_token_cmp(Datum a, Datum b)
{
	text	   *ta = DatumGetTextPP(a);
	text	   *tb = DatumGetTextPP(b);
	int			la = VARSIZE_ANY_EXHDR(ta);
	int			lb = VARSIZE_ANY_EXHDR(tb);
	int			c = memcmp(VARDATA_ANY(ta), VARDATA_ANY(tb), Min(la, lb));

	return c != 0 ? c : (la > lb) - (la < lb);
}

static int
token_qsort_cmp(const void *a, const void *b)
{
	return search_token_cmp(*(const Datum *) a, *(const Datum *) b);
}

Datum *
search_tokens_distinct(const SearchToken *t, int n, int *ndistinct)
{
	Datum	   *out = palloc(sizeof(Datum) * Max(n, 1));
	int			d = 0;

	for (int i = 0; i < n; i++)
	{
		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		out[i] = PointerGetDatum(cstring_to_text_with_len(t[i].text, t[i].len));
	}
	qsort(out, n, sizeof(Datum), token_qsort_cmp);
	for (int i = 0; i < n; i++)
		if (d == 0 || search_token_cmp(out[d - 1], out[i]) != 0)
			out[d++] = out[i];
	*ndistinct = d;
	return out;
}

void
search_analyzer_read(const char *name, Jsonb *parameter, SearchAnalyzer *out)
{
	int			kind = -1;
	JsonbValue	v;

	for (int i = 0; i < lengthof(analyzer_names); i++)
		if (strcmp(name, analyzer_names[i]) == 0)
			kind = i;
	if (kind < 0)
		ots_parameter_invalid(psprintf("Invalid analyzer: '%s'.", name),
							  "The analyzer is single_word, split, fuzzy, min_word or max_word.");
	if (parameter != NULL && JB_ROOT_IS_SCALAR(parameter) &&
		getIthJsonbValueFromContainer(&parameter->root, 0)->type == jbvNull)
		parameter = NULL;
	memset(out, 0, sizeof(*out));
	out->kind = kind;
	if (parameter != NULL)
		parameter_known(parameter, kind);
	if (kind == ANALYZER_SINGLE_WORD || kind == ANALYZER_SPLIT || kind == ANALYZER_FUZZY)
		out->case_sensitive = parameter_bool(parameter, "case_sensitive", false);
	if (kind == ANALYZER_SINGLE_WORD)
		out->delimit_word = parameter_bool(parameter, "delimit_word", false);
	if (kind == ANALYZER_SPLIT && parameter_member(parameter, "delimiter", &v) != NULL)
	{
		if (v.type != jbvString || v.val.string.len == 0 ||
			pg_mbstrlen_with_len(v.val.string.val, v.val.string.len) > OTS_MAX_SPLIT_DELIMITER_CHARS)
			ots_parameter_invalid(psprintf("Invalid analyzer_parameter: delimiter is not a string of 1 to %d characters.",
										   OTS_MAX_SPLIT_DELIMITER_CHARS),
								  "The delimiter is a string of characters; any white space when absent.");
		out->delimiter = pg_server_to_any(pnstrdup(v.val.string.val, v.val.string.len),
										  v.val.string.len, PG_UTF8);
	}
	if (kind == ANALYZER_FUZZY)
	{
		out->min_chars = parameter_chars(parameter, "min_chars", 1);
		out->max_chars = parameter_chars(parameter, "max_chars", 7);
		if (out->max_chars < out->min_chars)
			ots_parameter_invalid(psprintf("Invalid analyzer_parameter: max_chars (%d) is less than min_chars (%d).",
										   out->max_chars, out->min_chars),
								  "A fuzzy token has min_chars to max_chars characters; max_chars is 7 when not given.");
	}
}

/* ---------------------------------------------------------------- SQL */

/*
 * ots_search_analyze is ots.search_analyze(text, analyzer, analyzer_parameter):
 * the tokens a TEXT field of a search index makes of text, with their
 * positions; no rows for NULL; the analyzer single_word when NULL.
 */
Datum
ots_search_analyze(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SearchAnalyzer analyzer;
	SearchToken *tokens;
	int			ntokens;
	text	   *in;

	search_analyzer_read(PG_ARGISNULL(1) ? "single_word" : text_to_cstring(PG_GETARG_TEXT_PP(1)),
						 PG_ARGISNULL(2) ? NULL : PG_GETARG_JSONB_P(2), &analyzer);
	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(0))
		return (Datum) 0;
	in = PG_GETARG_TEXT_PP(0);
	tokens = search_analyze(&analyzer, VARDATA_ANY(in), VARSIZE_ANY_EXHDR(in), &ntokens);
	for (int i = 0; i < ntokens; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = PointerGetDatum(cstring_to_text_with_len(tokens[i].text, tokens[i].len));
		values[1] = Int32GetDatum(tokens[i].position);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
