-- ots.search_analyze (src/search/analyzer.c): the tokens a search index's
-- TEXT field makes of a text under each of Tablestore's analyzers.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;

-- an error as its SQLSTATE, Tablestore code, message and detail
\i test/search_err.sql

-- the tokens of a text, in order, as one line
CREATE FUNCTION pg_temp.tokens(t text, a text DEFAULT 'single_word', p jsonb DEFAULT NULL) RETURNS text
	LANGUAGE sql AS $$
	SELECT coalesce(string_agg(token || '@' || "position", ' ' ORDER BY "position"), '(none)')
	  FROM ots.search_analyze(t, a, p)
$$;

-- single_word, the default: Han characters one by one, runs of letters
-- and digits cut at spaces, punctuation and symbols, lowered
SELECT * FROM ots.search_analyze('Hang Zhou');
SELECT pg_temp.tokens('杭州');
SELECT pg_temp.tokens('IPhone6');
SELECT pg_temp.tokens('IPhone6', 'single_word', '{"delimit_word": true}');
SELECT pg_temp.tokens('IPhone6s-Max v2', 'single_word', '{"delimit_word": true, "case_sensitive": true}');
SELECT pg_temp.tokens('Hang Zhou', 'single_word', '{"case_sensitive": true}');
SELECT pg_temp.tokens('Hello, 世界! 你好2024年 e-mail_addr@x.io  tab	end');
-- Hiragana one by one, Katakana and Hangul as words
SELECT pg_temp.tokens('ひらがな カタカナ 한국어');
-- Latin-1, Greek, Cyrillic and fullwidth capitals lowered; fullwidth
-- punctuation, CJK punctuation and emoji cut
SELECT pg_temp.tokens('ÉCOLE ΑΘΗΝΑ МОСКВА ЀЏ ＡＢＣ１２３，测试。🙂ok×2');
SELECT pg_temp.tokens('ÉCOLE ΑΘΗΝΑ', 'single_word', '{"case_sensitive": true}');
-- Unicode's simple lowercase mapping: Latin Extended, Greek with tonos;
-- İ (two characters lowered) and ß (no capital) kept
SELECT pg_temp.tokens('ŁÓDŹ Άρης ҐАНОК İstanbul Straße Ǆ');
-- invisible marks, fullwidth signs and the katakana middle dot cut;
-- ª, º and superscript digits kept in words; 々 and 〇 are Han
SELECT pg_temp.tokens(E'I ❤️ NY ﻿hello 价格￥100 カタカナ・テスト Nº1 x² 二〇二四 人々');
-- fullwidth digits are digits: delimit_word cuts them from letters
SELECT pg_temp.tokens('ＡＢ１２', 'single_word', '{"delimit_word": true}');
-- a character past the Basic Multilingual Plane
SELECT pg_temp.tokens(E'a𠀀b');
-- nothing to cut
SELECT pg_temp.tokens('');
SELECT pg_temp.tokens(' ,.!? ');
SELECT count(*) FROM ots.search_analyze(NULL);
-- the defaults are the parameters' defaults
SELECT pg_temp.tokens('A b', NULL, NULL) = pg_temp.tokens('A b', 'single_word', '{}') AS same;
-- a parameter given as null is its default, and so is a null parameter
SELECT pg_temp.tokens('IPhone6', 'single_word', '{"delimit_word": null, "case_sensitive": null}');
SELECT pg_temp.tokens('IPhone6', 'single_word', 'null');
SELECT pg_temp.tokens('A b', 'max_word', '{"case_sensitive": null}');

-- split: pieces between delimiters (any white space by default), empty
-- pieces dropped, delimiters taken left to right
SELECT pg_temp.tokens('a b  c ', 'split');
SELECT pg_temp.tokens(E'Tab	here
line　ideographic nbsp', 'split');
SELECT pg_temp.tokens('aaa', 'split', '{"delimiter": "aa"}');
SELECT pg_temp.tokens('-a-', 'split', '{"delimiter": "-"}');
SELECT pg_temp.tokens('a b-c', 'split', '{"delimiter": "-"}');
SELECT pg_temp.tokens('上海和杭州和苏州', 'split', '{"delimiter": "和"}');
SELECT pg_temp.tokens('x→←y→←', 'split', '{"delimiter": "→←"}');
SELECT pg_temp.tokens('2019-05-01', 'split', '{"delimiter": "-"}');
SELECT pg_temp.tokens('Red||Green||||Blue', 'split', '{"delimiter": "||"}');
SELECT pg_temp.tokens('Red||Green', 'split', '{"delimiter": "||", "case_sensitive": true}');
SELECT pg_temp.tokens('杭州#苏州#', 'split', '{"delimiter": "#"}');
SELECT pg_temp.tokens('-', 'split', '{"delimiter": "-"}');

-- fuzzy: every run of min_chars to max_chars characters (1 and 7 by
-- default), by start and then length, spaces included; the runs that start
-- at one character share its position, so a query's runs make a phrase
-- exactly where they are a substring
SELECT pg_temp.tokens('abc', 'fuzzy');
SELECT pg_temp.tokens('abcd', 'fuzzy', '{"min_chars": 2, "max_chars": 2.0}');
SELECT pg_temp.tokens('Hello', 'fuzzy', '{"min_chars": 2, "max_chars": 3}');
SELECT pg_temp.tokens('A b', 'fuzzy', '{"min_chars": 2, "max_chars": 2, "case_sensitive": true}');
SELECT pg_temp.tokens('苏州', 'fuzzy');
SELECT pg_temp.tokens('ab', 'fuzzy', '{"min_chars": 3}');
-- only the first 1,024 characters are read
SELECT count(*), max("position") FROM ots.search_analyze(repeat('x', 1030), 'fuzzy', '{"max_chars": 1}');
SELECT count(*) FROM ots.search_analyze(repeat('y', 1030), 'fuzzy', '{"min_chars": 32, "max_chars": 32}');

-- max_word and min_word: every two adjacent Han characters (a lone one by
-- itself), the rest as single_word
SELECT pg_temp.tokens('菊花茶', 'max_word');
SELECT pg_temp.tokens('我爱北京天安门 and Beijing2008 茶', 'max_word');
SELECT pg_temp.tokens('ab中cd 北京', 'max_word');
-- min_word is max_word
SELECT pg_temp.tokens('我爱北京天安门 and Beijing2008 茶', 'min_word') =
	   pg_temp.tokens('我爱北京天安门 and Beijing2008 茶', 'max_word') AS same;

-- stable, not immutable: in a database not in UTF-8 the text goes through
-- the default conversion, which search_path finds; never the locale
SELECT provolatile, proisstrict FROM pg_proc WHERE oid = 'ots.search_analyze(text, text, jsonb)'::regprocedure;

-- refusals: OTSParameterInvalid, nothing returned
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'standard')$$);
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'SINGLE_WORD')$$);
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'single_word', '[]')$$);
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'single_word', '"case_sensitive"')$$);
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'single_word', '{"delimiter": "-"}')$$);
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'single_word', '{"case_sensitive": "yes"}')$$);
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'single_word', '{"delimit_word": 1}')$$);
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'split', '{"delimiter": ""}')$$);
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'split', '{"delimiter": 5}')$$);
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'split', jsonb_build_object('delimiter', repeat('é', 33)))$$);
SELECT count(*) FROM ots.search_analyze('xéy', 'split', jsonb_build_object('delimiter', repeat('é', 32)));
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'fuzzy', '{"min_chars": 0}')$$);
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'fuzzy', '{"max_chars": 33}')$$);
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'fuzzy', '{"min_chars": 1.5}')$$);
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'fuzzy', '{"min_chars": "2"}')$$);
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'fuzzy', '{"min_chars": 99999999999999999999}')$$);
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'fuzzy', '{"min_chars": 5, "max_chars": 4}')$$);
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'fuzzy', '{"min_chars": 8}')$$);
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze('x', 'max_word', '{"case_sensitive": true}')$$);
-- a text longer than a TEXT value may be (2 MB)
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze(repeat('a', 2097153))$$);
SELECT count(*) FROM ots.search_analyze(repeat('a ', 1048576));
-- a bad analyzer is refused for a NULL text too
SELECT pg_temp.err($$SELECT * FROM ots.search_analyze(NULL, 'standard')$$);

-- a database in another encoding: the text, the delimiter and the tokens
-- are converted, not read as UTF-8 (a LATIN1 é as a delimiter used to
-- decode to nothing and loop)
CREATE DATABASE search_analyze_latin1 ENCODING 'LATIN1' LOCALE 'C' TEMPLATE template0;
\c search_analyze_latin1
SET client_encoding = 'UTF8';
SET client_min_messages = warning;
CREATE EXTENSION ots;
SELECT token, "position", octet_length(token) FROM ots.search_analyze('CAFÉ crème', 'single_word');
SELECT token FROM ots.search_analyze('aébéc', 'split', '{"delimiter": "é"}');
SELECT token FROM ots.search_analyze('Éé', 'fuzzy', '{"max_chars": 2}');
\c contrib_regression
DROP DATABASE search_analyze_latin1;
