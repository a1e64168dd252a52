/*-------------------------------------------------------------------------
 * src/search/analyzer.h
 *	  Tablestore's analyzers for TEXT fields of a search index: the tokens
 *	  of a text, each with its position, under an analyzer and its
 *	  parameters (analyzer.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_SEARCH_ANALYZER_H
#define OTS_SEARCH_ANALYZER_H

#include "postgres.h"
#include "utils/jsonb.h"

typedef enum SearchAnalyzerKind
{
	ANALYZER_SINGLE_WORD,		/* the default */
	ANALYZER_SPLIT,
	ANALYZER_FUZZY,
	ANALYZER_MIN_WORD,
	ANALYZER_MAX_WORD
} SearchAnalyzerKind;

/* an analyzer with its parameters, every one given or defaulted */
typedef struct SearchAnalyzer
{
	SearchAnalyzerKind kind;
	bool		case_sensitive; /* single_word, split, fuzzy */
	bool		delimit_word;	/* single_word: "iphone6" is "iphone", "6" */
	const char *delimiter;		/* split: UTF-8; NULL: any white space */
	int			min_chars;		/* fuzzy: a token's characters */
	int			max_chars;
} SearchAnalyzer;

/*
 * a token: its bytes (not terminated), its position, from 0, and the
 * characters of the text it was cut from, [start, end)
 */
typedef struct SearchToken
{
	const char *text;
	int			len;
	int			position;
	int			start;
	int			end;
} SearchToken;

/*
 * search_analyzer_read: the analyzer of name with the parameters of
 * parameter (NULL or JSON null: the defaults); OTSParameterInvalid else
 */
extern void search_analyzer_read(const char *name, Jsonb *parameter, SearchAnalyzer *out);

/* search_analyzer_name: the analyzer's name ("single_word", ...) */
extern const char *search_analyzer_name(SearchAnalyzerKind kind);

/*
 * search_tokens_distinct: the distinct tokens of t[0, n) as text datums,
 * sorted bytewise (search_token_cmp), *ndistinct of them: in n log n, not n²,
 * whatever a text holds
 */
extern Datum *search_tokens_distinct(const SearchToken *t, int n, int *ndistinct);
extern int	search_token_cmp(Datum a, Datum b);

/* search_analyze: the tokens of text[0, len), in order, both in the database's encoding */
extern SearchToken *search_analyze(const SearchAnalyzer *analyzer, const char *text, int len,
								   int *ntokens);

#endif							/* OTS_SEARCH_ANALYZER_H */
