-- Search indexes (Tablestore's search index; docs/reference.md, "Search").

CREATE FUNCTION ots.search_analyze(
	"text" text,
	analyzer text DEFAULT 'single_word',
	analyzer_parameter jsonb DEFAULT NULL)
	RETURNS TABLE (token text, "position" integer)
	AS 'MODULE_PATHNAME', 'ots_search_analyze' LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION ots.search_analyze(text, text, jsonb) IS
	'the tokens, with their positions, that a search index''s TEXT field with this analyzer (single_word, split, fuzzy, min_word, max_word) and its parameters makes of a text';
