/*-------------------------------------------------------------------------
 * src/api/filter.c
 *	  Tablestore filters: compiling the jsonb form of a read filter or a
 *	  write's column_condition into a tree, and evaluating that tree
 *	  against one row.
 *
 * This file owns the jsonb filter syntax documented in filter.h, its
 * validation (Tablestore's texts where Tablestore has one), and the
 * evaluation semantics of docs/reference.md's Filters: missing columns,
 * latest_version_only, primary-key columns, and type mismatch as false.
 * Which cells a filter sees is decided by format/visibility.c and
 * read_select.c; this file only walks them.
 *
 * A compiled tree lives in the memory context that was current when it
 * was parsed and owns copies of everything it needs, so the jsonb it came
 * from may be freed.  Its depth is bounded by OTS_MAX_FILTER_NODES, which
 * bounds the recursion of both parsing and evaluation.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <errno.h>
#include <math.h>

#include "catalog/pg_collation.h"
#include "miscadmin.h"
#include "mb/pg_wchar.h"
#include "regex/regex.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "errors.h"
#include "api/filter.h"
#include "format/names.h"
#include "ots_limits.h"
#include "format/request_fields.h"
#include "format/value.h"

typedef enum FilterKind
{
	FILTER_SINGLE,
	FILTER_NOT,
	FILTER_AND,
	FILTER_OR,
	FILTER_PAGINATION
} FilterKind;

typedef enum FilterComparator
{
	FILTER_EQUAL,
	FILTER_NOT_EQUAL,
	FILTER_GREATER_THAN,
	FILTER_GREATER_EQUAL,
	FILTER_LESS_THAN,
	FILTER_LESS_EQUAL,
	FILTER_EXIST,				/* the column (its regex's match) is there */
	FILTER_NOT_EXIST
} FilterComparator;

/*
 * A regex filter's rule (Tablestore's ValueTransferRule): the first match of
 * regex in a String cell (its first parenthesized group, if it has one), as
 * a value of cast_type; a cell it finds nothing in counts as no cell.
 */
typedef struct FilterRegex
{
	regex_t		re;				/* pg_regcomp's, freed with the tree's context */
	OtsValueType cast_type;		/* String, Integer or Double */
} FilterRegex;

struct Filter
{
	FilterKind	kind;

	/* FILTER_SINGLE */
	char	   *column;			/* NUL-terminated copy */
	uint32		columnlen;
	FilterComparator comparator;
	OtsValue	value;			/* String/Binary bytes owned by the tree; none for (NOT_)EXIST */
	bool		pass_if_missing;
	bool		latest_version_only;
	FilterRegex *regex;			/* NULL: the cells as they are */

	/* FILTER_NOT, FILTER_AND, FILTER_OR */
	int			nchildren;
	Filter	  **children;

	/* FILTER_PAGINATION */
	int32		offset;
	int32		limit;
};

/* comparator spellings accepted in "comparator", matched case-insensitively */
typedef struct FilterComparatorName
{
	const char *name;
	FilterComparator comparator;
} FilterComparatorName;

static const FilterComparatorName filter_comparator_names[] = {
	{"EQUAL", FILTER_EQUAL},
	{"=", FILTER_EQUAL},
	{"==", FILTER_EQUAL},
	{"NOT_EQUAL", FILTER_NOT_EQUAL},
	{"!=", FILTER_NOT_EQUAL},
	{"<>", FILTER_NOT_EQUAL},
	{"GREATER_THAN", FILTER_GREATER_THAN},
	{">", FILTER_GREATER_THAN},
	{"GREATER_EQUAL", FILTER_GREATER_EQUAL},
	{">=", FILTER_GREATER_EQUAL},
	{"LESS_THAN", FILTER_LESS_THAN},
	{"<", FILTER_LESS_THAN},
	{"LESS_EQUAL", FILTER_LESS_EQUAL},
	{"<=", FILTER_LESS_EQUAL},
	{"EXIST", FILTER_EXIST},
	{"NOT_EXIST", FILTER_NOT_EXIST},
};

/* the cast types of a regex filter (any case) */
static const struct
{
	const char *name;
	OtsValueType type;
}			filter_cast_types[] = {
	{"STRING", OTS_VT_STRING},
	{"INTEGER", OTS_VT_INTEGER},
	{"DOUBLE", OTS_VT_DOUBLE},
};

/* the keys of each filter shape */
#define FILTER_KEY_AND				"and"
#define FILTER_KEY_OR				"or"
#define FILTER_KEY_NOT				"not"
#define FILTER_KEY_PAGINATION		"column_pagination"
#define FILTER_KEY_COLUMN			"column"
#define FILTER_KEY_COMPARATOR		"comparator"
#define FILTER_KEY_VALUE			"value"
#define FILTER_KEY_PASS_IF_MISSING	"pass_if_missing"
#define FILTER_KEY_LATEST_ONLY		"latest_version_only"
#define FILTER_KEY_REGEX			"regex"
#define FILTER_KEY_CAST_TYPE		"cast_type"
#define FILTER_KEY_OFFSET			"offset"
#define FILTER_KEY_LIMIT			"limit"

/*
 * the fields of a filter object: an operator's one key (its kind) or the
 * keys of a single-column filter (FILTER_SINGLE); a filter has no others
 */
static const struct
{
	const char *key;
	FilterKind	kind;
}			filter_fields[] = {
	{FILTER_KEY_AND, FILTER_AND},
	{FILTER_KEY_OR, FILTER_OR},
	{FILTER_KEY_NOT, FILTER_NOT},
	{FILTER_KEY_PAGINATION, FILTER_PAGINATION},
	{FILTER_KEY_COLUMN, FILTER_SINGLE},
	{FILTER_KEY_COMPARATOR, FILTER_SINGLE},
	{FILTER_KEY_VALUE, FILTER_SINGLE},
	{FILTER_KEY_PASS_IF_MISSING, FILTER_SINGLE},
	{FILTER_KEY_LATEST_ONLY, FILTER_SINGLE},
	{FILTER_KEY_REGEX, FILTER_SINGLE},
	{FILTER_KEY_CAST_TYPE, FILTER_SINGLE},
};
static const RequestFields filter_object = REQUEST_FIELDS("a filter", filter_fields);

/* the fields of the operand of "column_pagination" */
static const char *const filter_pagination_fields[] = {FILTER_KEY_OFFSET, FILTER_KEY_LIMIT};
static const RequestFields filter_pagination_object = REQUEST_FIELDS("column_pagination",
																	 filter_pagination_fields);

/* NOT takes exactly this many sub-filters; AND/OR at least this many */
#define FILTER_NOT_CHILDREN			1
#define FILTER_AND_OR_MIN_CHILDREN	2

#define FILTER_SHAPE_DETAIL \
	"A filter is a JSON object: {\"column\": ..., \"comparator\": ..., \"value\": ...}, " \
	"{\"and\": [filters]}, {\"or\": [filters]}, {\"not\": [filter]} or " \
	"{\"column_pagination\": {\"offset\": <integer>, \"limit\": <integer>}}."
#define FILTER_SINGLE_DETAIL \
	"A single-column filter has the keys \"column\", \"comparator\" and \"value\" " \
	"(no value for EXIST and NOT_EXIST), and optionally \"pass_if_missing\", " \
	"\"latest_version_only\", \"regex\" and \"cast_type\"."
#define FILTER_COMPARATOR_DETAIL \
	"The comparators are EQUAL, NOT_EQUAL, GREATER_THAN, GREATER_EQUAL, LESS_THAN, " \
	"LESS_EQUAL, EXIST and NOT_EXIST (any case), or =, ==, !=, <>, >, >=, <, <=."
#define FILTER_REGEX_DETAIL \
	"\"regex\" is a regular expression of at most 256 bytes; \"cast_type\" is STRING " \
	"(the default), INTEGER or DOUBLE."
#define FILTER_PAGINATION_DETAIL \
	"A column pagination filter is {\"column_pagination\": {\"offset\": <integer>, " \
	"\"limit\": <integer>}}; offset defaults to 0."

/* parsing state shared by all nodes of one filter */
typedef struct FilterParseState
{
	int			nodes;			/* nodes compiled so far */
	bool		allow_pagination;
	const char *argument;		/* "filter" or "column_condition", in errors */
} FilterParseState;

static Filter *filter_new_node(FilterParseState *ps, FilterKind kind);
static Filter *filter_parse_node(FilterParseState *ps, const JsonbValue *jv, bool top);
static Filter *filter_parse_composite(FilterParseState *ps, FilterKind kind,
									  const char *key, const JsonbValue *operand);
static Filter *filter_parse_pagination(FilterParseState *ps, const JsonbValue *operand,
									   bool top);
static int32 filter_parse_page_bound(const JsonbValue *jv, bool is_offset);
static Filter *filter_parse_single(FilterParseState *ps, JsonbContainer *c);
static FilterComparator filter_parse_comparator(const JsonbValue *jv);
static bool filter_parse_flag(JsonbContainer *c, const char *key);
static FilterRegex *filter_parse_regex(JsonbContainer *c, const char *column);
static bool filter_regex_value(const FilterRegex *rx, const OtsValue *cell, OtsValue *out);
static bool filter_cell_value(const Filter *f, const OtsValue *cell, OtsValue *out);
static bool filter_compare(const Filter *f, const OtsValue *v);
static bool filter_eval_single(const Filter *f, const OtsTable *t, const PkInput *pk,
							   const CellsReader *r, const ReadSelect *sel);
static bool filter_eval_node(const Filter *f, const OtsTable *t, const PkInput *pk,
							 const CellsReader *r, const ReadSelect *sel);

/*
 * filter_new_node allocates a node and counts it against
 * OTS_MAX_FILTER_NODES.  Composites are counted before their children are
 * parsed, so nesting never recurses deeper than the node limit.
 */
static Filter *
filter_new_node(FilterParseState *ps, FilterKind kind)
{
	Filter	   *f;

	if (++ps->nodes > OTS_MAX_FILTER_NODES)
		ots_error(PARAMETER_INVALID, "The count of filter exceeds the max: %d.",
				  OTS_MAX_FILTER_NODES);
	f = palloc0(sizeof(Filter));
	f->kind = kind;
	return f;
}

/*
 * filter_parse_node compiles one filter given as a JsonbValue (a jbvBinary
 * object for every valid shape).  top is true for the root, the only place
 * column pagination may appear.
 */
static Filter *
filter_parse_node(FilterParseState *ps, const JsonbValue *jv, bool top)
{
	JsonbContainer *c;
	JsonbValue	operand;

	if (jv->type != jbvBinary || !JsonContainerIsObject(jv->val.binary.data))
		ots_parameter_invalid("Invalid filter.", FILTER_SHAPE_DETAIL);
	c = jv->val.binary.data;
	if (JsonContainerSize(c) == 0)
		ots_parameter_invalid("Invalid filter.", FILTER_SHAPE_DETAIL);
	request_fields_check(c, &filter_object, "%s", ps->argument);

	for (int i = 0; i < lengthof(filter_fields); i++)
	{
		const char *key = filter_fields[i].key;

		if (filter_fields[i].kind == FILTER_SINGLE ||
			getKeyJsonValueFromContainer(c, key, strlen(key), &operand) == NULL)
			continue;
		if (JsonContainerSize(c) != 1)
			ots_parameter_invalid("Invalid filter.",
								  psprintf("A filter with the key \"%s\" has no other keys.", key));
		if (filter_fields[i].kind == FILTER_PAGINATION)
			return filter_parse_pagination(ps, &operand, top);
		return filter_parse_composite(ps, filter_fields[i].kind, key, &operand);
	}
	return filter_parse_single(ps, c);
}

/*
 * filter_parse_composite compiles {"and"|"or"|"not": [filters]}, checking
 * the number of sub-filters before compiling any of them.
 */
static Filter *
filter_parse_composite(FilterParseState *ps, FilterKind kind, const char *key,
					   const JsonbValue *operand)
{
	JsonbContainer *arr;
	Filter	   *f;
	int			n;

	if (operand->type != jbvBinary || !JsonContainerIsArray(operand->val.binary.data))
		ots_parameter_invalid("Invalid filter.",
							  psprintf("\"%s\" takes a JSON array of filters.", key));
	arr = operand->val.binary.data;
	n = JsonContainerSize(arr);
	if (kind == FILTER_NOT && n != FILTER_NOT_CHILDREN)
		ots_error(PARAMETER_INVALID,
				  "Invalid NOT operator: the number of sub-filters must be 1.");
	if (kind != FILTER_NOT && n < FILTER_AND_OR_MIN_CHILDREN)
		ots_error(PARAMETER_INVALID,
				  "Invalid AND/OR operator: the number of sub-filters must be more than 1.");

	f = filter_new_node(ps, kind);
	f->nchildren = n;
	f->children = palloc(sizeof(Filter *) * n);
	for (int i = 0; i < n; i++)
	{
		JsonbValue *elem = getIthJsonbValueFromContainer(arr, i);

		f->children[i] = filter_parse_node(ps, elem, false);
		pfree(elem);
	}
	return f;
}

/*
 * filter_parse_pagination compiles {"column_pagination": {"offset": o,
 * "limit": l}}: reads only, top level only, offset >= 0 (default 0),
 * limit > 0.
 */
static Filter *
filter_parse_pagination(FilterParseState *ps, const JsonbValue *operand, bool top)
{
	JsonbContainer *c;
	JsonbValue	offset;
	JsonbValue	limit;
	bool		has_offset;
	Filter	   *f;

	if (!ps->allow_pagination)
		ots_parameter_invalid("ColumnPaginationFilter is only supported in read operations.",
							  "The column_condition of a write is a single-column or composite filter; column_pagination applies to reads only.");
	if (!top)
		ots_parameter_invalid("ColumnPaginationFilter must be the top-level filter.",
							  "column_pagination cannot be a sub-filter of \"and\", \"or\" or \"not\".");
	if (operand->type != jbvBinary || !JsonContainerIsObject(operand->val.binary.data))
		ots_parameter_invalid("Invalid ColumnPaginationFilter.", FILTER_PAGINATION_DETAIL);
	c = operand->val.binary.data;
	request_fields_check(c, &filter_pagination_object, "%s", FILTER_KEY_PAGINATION);

	has_offset = getKeyJsonValueFromContainer(c, FILTER_KEY_OFFSET,
											  strlen(FILTER_KEY_OFFSET), &offset) != NULL;
	if (getKeyJsonValueFromContainer(c, FILTER_KEY_LIMIT, strlen(FILTER_KEY_LIMIT),
									 &limit) == NULL ||
		JsonContainerSize(c) != (has_offset ? 2 : 1))
		ots_parameter_invalid("Invalid ColumnPaginationFilter.", FILTER_PAGINATION_DETAIL);

	f = filter_new_node(ps, FILTER_PAGINATION);
	f->offset = has_offset ? filter_parse_page_bound(&offset, true) : 0;
	f->limit = filter_parse_page_bound(&limit, false);
	return f;
}

/*
 * filter_parse_page_bound reads a pagination offset (>= 0) or limit (> 0),
 * an integral JSON number that fits in int32.
 */
static int32
filter_parse_page_bound(const JsonbValue *jv, bool is_offset)
{
	char	   *text;
	char	   *end;
	long long	v;

	if (jv->type != jbvNumeric)
		ots_parameter_invalid("Invalid ColumnPaginationFilter.", FILTER_PAGINATION_DETAIL);
	text = DatumGetCString(DirectFunctionCall1(numeric_out,
											   NumericGetDatum(jv->val.numeric)));
	errno = 0;
	v = strtoll(text, &end, 10);
	if (*end != '\0')
		ots_parameter_invalid("Invalid ColumnPaginationFilter.", FILTER_PAGINATION_DETAIL);
	/* on overflow strtoll saturates, which keeps the sign for the checks below */
	if (is_offset && v < 0)
		ots_error(PARAMETER_INVALID,
				  "Offset in ColumnPaginationFilter must be greater than or equal to 0.");
	if (!is_offset && v <= 0)
		ots_error(PARAMETER_INVALID,
				  "Limit in ColumnPaginationFilter must be greater than 0.");
	if (errno == ERANGE || v > PG_INT32_MAX)
		ots_parameter_invalid("Invalid ColumnPaginationFilter.",
							  psprintf("%s must be at most %d.",
									   is_offset ? FILTER_KEY_OFFSET : FILTER_KEY_LIMIT,
									   PG_INT32_MAX));
	return (int32) v;
}

/*
 * filter_parse_single compiles a single-column filter (its keys checked by
 * filter_parse_node): the column name, the comparator, the constant (with
 * codec's value rules and length limit) and the two optional flags.
 */
static Filter *
filter_parse_single(FilterParseState *ps, JsonbContainer *c)
{
	JsonbValue	column;
	JsonbValue	comparator;
	JsonbValue	value;
	Filter	   *f;

	if (getKeyJsonValueFromContainer(c, FILTER_KEY_COLUMN, strlen(FILTER_KEY_COLUMN),
									 &column) == NULL)
		ots_parameter_invalid("Column name is missing in filter.", FILTER_SINGLE_DETAIL);
	if (column.type != jbvString)
		ots_parameter_invalid("Invalid column name in filter.",
							  "\"column\" takes a column name as a JSON string.");
	names_check_column(column.val.string.val, column.val.string.len);

	f = filter_new_node(ps, FILTER_SINGLE);
	f->column = pnstrdup(column.val.string.val, column.val.string.len);
	f->columnlen = column.val.string.len;

	if (getKeyJsonValueFromContainer(c, FILTER_KEY_COMPARATOR, strlen(FILTER_KEY_COMPARATOR),
									 &comparator) == NULL)
		ots_parameter_invalid(psprintf("Comparator is missing in filter of column '%s'.",
									   f->column),
							  FILTER_COMPARATOR_DETAIL);
	f->comparator = filter_parse_comparator(&comparator);

	/* (NOT_)EXIST tests for the column alone: a value given with it (the SDKs send one) is not read */
	if (f->comparator != FILTER_EXIST && f->comparator != FILTER_NOT_EXIST)
	{
		if (getKeyJsonValueFromContainer(c, FILTER_KEY_VALUE, strlen(FILTER_KEY_VALUE),
										 &value) == NULL)
			ots_parameter_invalid(psprintf("Value is missing in filter of column '%s'.", f->column),
								  FILTER_SINGLE_DETAIL);
		if (value.type == jbvNull)
			ots_parameter_invalid(psprintf("Invalid value of column '%s'.", f->column),
								  "A filter compares with a value; JSON null is not a value.");
		codec_parse_value(&value, &f->value, f->column);
		/*
		 * A String points into the jsonb: copy it.  A Binary was decoded by
		 * codec into fresh memory of the current context, which the tree owns.
		 */
		if (f->value.type == OTS_VT_STRING)
			f->value.u.s.data = pnstrdup(f->value.u.s.data, f->value.u.s.len);
	}

	f->pass_if_missing = filter_parse_flag(c, FILTER_KEY_PASS_IF_MISSING);
	f->latest_version_only = filter_parse_flag(c, FILTER_KEY_LATEST_ONLY);
	f->regex = filter_parse_regex(c, f->column);
	return f;
}

/* filter_regex_free frees a compiled regex with the memory context of its tree */
static void
filter_regex_free(void *arg)
{
	pg_regfree(&((FilterRegex *) arg)->re);
}

/*
 * filter_parse_regex compiles a filter's "regex" (NULL without one) and
 * reads its "cast_type": PostgreSQL's advanced regular expressions, with
 * the C collation's character classes
 */
static FilterRegex *
filter_parse_regex(JsonbContainer *c, const char *column)
{
	JsonbValue	regex;
	JsonbValue	cast;
	bool		has_cast = getKeyJsonValueFromContainer(c, FILTER_KEY_CAST_TYPE,
														strlen(FILTER_KEY_CAST_TYPE), &cast) != NULL;
	FilterRegex *rx;
	MemoryContextCallback *cb;
	pg_wchar   *wide;
	int			wlen;
	int			rc;

	if (getKeyJsonValueFromContainer(c, FILTER_KEY_REGEX, strlen(FILTER_KEY_REGEX), &regex) == NULL)
	{
		if (has_cast)
			ots_parameter_invalid(psprintf("cast_type needs a regex in filter of column '%s'.", column),
								  FILTER_REGEX_DETAIL);
		return NULL;
	}
	if (regex.type != jbvString || regex.val.string.len == 0 ||
		regex.val.string.len > OTS_MAX_FILTER_REGEX_LEN)
		ots_parameter_invalid(psprintf("Invalid regex in filter of column '%s'.", column),
							  FILTER_REGEX_DETAIL);
	rx = palloc0(sizeof(FilterRegex));
	rx->cast_type = OTS_VT_STRING;
	if (has_cast)
	{
		bool		known = false;

		for (int i = 0; cast.type == jbvString && i < lengthof(filter_cast_types); i++)
			if (strlen(filter_cast_types[i].name) == cast.val.string.len &&
				pg_strncasecmp(filter_cast_types[i].name, cast.val.string.val, cast.val.string.len) == 0)
			{
				rx->cast_type = filter_cast_types[i].type;
				known = true;
			}
		if (!known)
			ots_parameter_invalid(psprintf("Invalid cast_type in filter of column '%s'.", column),
								  FILTER_REGEX_DETAIL);
	}
	wide = palloc(sizeof(pg_wchar) * (regex.val.string.len + 1));
	wlen = pg_mb2wchar_with_len(regex.val.string.val, wide, regex.val.string.len);
	/* (allocated first: nothing can fail between pg_regcomp and its registration) */
	cb = palloc(sizeof(MemoryContextCallback));
	rc = pg_regcomp(&rx->re, wide, wlen, REG_ADVANCED, C_COLLATION_OID);
	if (rc != REG_OKAY)
	{
		char		why[256];

		/* a cancel is the user's, not the regex's fault */
		CHECK_FOR_INTERRUPTS();
		pg_regerror(rc, &rx->re, why, sizeof(why));
		ots_parameter_invalid(psprintf("Invalid regex in filter of column '%s'.", column),
							  psprintf("%s: %s", pnstrdup(regex.val.string.val, regex.val.string.len), why));
	}
	/* pg_regcomp's memory is malloc'd: it goes with the tree's context */
	cb->func = filter_regex_free;
	cb->arg = rx;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
	pfree(wide);
	return rx;
}

/* filter_parse_comparator reads one of the spellings in filter_comparator_names */
static FilterComparator
filter_parse_comparator(const JsonbValue *jv)
{
	if (jv->type != jbvString)
		ots_parameter_invalid("Invalid comparator in filter.", FILTER_COMPARATOR_DETAIL);
	for (int i = 0; i < lengthof(filter_comparator_names); i++)
	{
		const char *name = filter_comparator_names[i].name;

		if (strlen(name) == jv->val.string.len &&
			pg_strncasecmp(name, jv->val.string.val, jv->val.string.len) == 0)
			return filter_comparator_names[i].comparator;
	}
	ots_parameter_invalid(psprintf("Invalid comparator: '%s'.",
								   pnstrdup(jv->val.string.val, jv->val.string.len)),
						  FILTER_COMPARATOR_DETAIL);
}

/* filter_parse_flag reads an optional boolean key, true when absent */
static bool
filter_parse_flag(JsonbContainer *c, const char *key)
{
	JsonbValue	jv;

	if (getKeyJsonValueFromContainer(c, key, strlen(key), &jv) == NULL)
		return true;
	if (jv.type != jbvBool)
		ots_parameter_invalid(psprintf("Invalid %s in filter.", key),
							  psprintf("\"%s\" takes true or false.", key));
	return jv.val.boolean;
}

/*
 * filter_parse validates and compiles a filter; see filter.h.  NULL and
 * JSON null mean no filter.
 */
Filter *
filter_parse(Jsonb *filter, bool allow_pagination)
{
	FilterParseState ps;
	JsonbValue	root;

	if (filter == NULL)
		return NULL;
	if (JB_ROOT_IS_SCALAR(filter))
	{
		JsonbValue	scalar;

		if (JsonbExtractScalar(&filter->root, &scalar) && scalar.type == jbvNull)
			return NULL;
		ots_parameter_invalid("Invalid filter.", FILTER_SHAPE_DETAIL);
	}

	ps.nodes = 0;
	ps.allow_pagination = allow_pagination;
	ps.argument = allow_pagination ? "filter" : "column_condition";
	root.type = jbvBinary;
	root.val.binary.data = &filter->root;
	root.val.binary.len = VARSIZE(filter) - VARHDRSZ;
	return filter_parse_node(&ps, &root, true);
}

/*
 * filter_compare applies a single-column filter's comparator to one value.
 * Values of another type than the constant never match, whatever the
 * comparator (NOT_EQUAL included).
 */
static bool
filter_compare(const Filter *f, const OtsValue *v)
{
	int			cmp;

	if (v->type != f->value.type)
		return false;
	cmp = ots_value_compare(v, &f->value);
	switch (f->comparator)
	{
		case FILTER_EXIST:
		case FILTER_NOT_EXIST:
			return false;		/* no comparison: filter_eval_single decides */
		case FILTER_EQUAL:
			return cmp == 0;
		case FILTER_NOT_EQUAL:
			return cmp != 0;
		case FILTER_GREATER_THAN:
			return cmp > 0;
		case FILTER_GREATER_EQUAL:
			return cmp >= 0;
		case FILTER_LESS_THAN:
			return cmp < 0;
		case FILTER_LESS_EQUAL:
			return cmp <= 0;
	}
	pg_unreachable();
}

/*
 * filter_regex_value: the value rx finds in cell: its first match (the
 * first group's, if the regex has groups) in a String, cast; false when
 * the cell is no String, nothing matches or the cast fails
 */
static bool
filter_regex_value(const FilterRegex *rx, const OtsValue *cell, OtsValue *out)
{
	pg_wchar   *wide;
	int			wlen;
	regmatch_t	match[2];
	int			group;
	int			rc;
	char	   *text;
	int			textlen;
	char	   *end;
	bool		found;

	if (cell->type != OTS_VT_STRING)
		return false;
	wide = palloc(sizeof(pg_wchar) * (cell->u.s.len + 1));
	wlen = pg_mb2wchar_with_len(cell->u.s.data, wide, cell->u.s.len);
	rc = pg_regexec((regex_t *) &rx->re, wide, wlen, 0, NULL, lengthof(match), match, 0);
	if (rc != REG_OKAY && rc != REG_NOMATCH)
	{
		char		why[256];

		/* a failure (a cancel, no memory) is an error, not a row without the value */
		CHECK_FOR_INTERRUPTS();
		pg_regerror(rc, (regex_t *) &rx->re, why, sizeof(why));
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_REGULAR_EXPRESSION),
				 errmsg("regular expression failed: %s", why)));
	}
	group = rx->re.re_nsub > 0 ? 1 : 0;
	/* no match, or an optional group that took no part */
	if (rc == REG_NOMATCH || match[group].rm_so < 0)
	{
		pfree(wide);
		return false;
	}
	text = palloc(pg_database_encoding_max_length() * (match[group].rm_eo - match[group].rm_so) + 1);
	textlen = pg_wchar2mb_with_len(wide + match[group].rm_so, text,
								   match[group].rm_eo - match[group].rm_so);
	text[textlen] = '\0';
	pfree(wide);
	out->type = rx->cast_type;
	/* a number is the whole match: digits with a sign, no spaces, no hex */
	switch (rx->cast_type)
	{
		case OTS_VT_STRING:
			out->u.s.data = text;
			out->u.s.len = textlen;
			return true;
		case OTS_VT_INTEGER:
			errno = 0;
			out->u.i = strtoll(text, &end, 10);
			found = textlen > 0 && *end == '\0' && errno == 0 &&
				strspn(text, "+-0123456789") == (size_t) textlen;
			break;
		case OTS_VT_DOUBLE:
			errno = 0;
			out->u.d = strtod(text, &end);
			found = textlen > 0 && *end == '\0' && errno == 0 &&
				strspn(text, "+-.0123456789eE") == (size_t) textlen && !isinf(out->u.d);
			break;
		default:
			found = false;
			break;
	}
	pfree(text);
	return found;
}

/* filter_cell_value: what the filter compares of a cell (its regex's value, or the cell) */
static bool
filter_cell_value(const Filter *f, const OtsValue *cell, OtsValue *out)
{
	if (f->regex != NULL)
		return filter_regex_value(f->regex, cell, out);
	*out = *cell;
	return true;
}

/*
 * filter_eval_single evaluates a single-column filter.  A primary-key
 * column is compared with the row's key and is never missing.  An
 * attribute column is missing when columns_to_get excludes it, the row
 * lacks it, or none of its cells is selected; with a regex, also when its
 * cell (latest_version_only) or each of its cells gives no value.  EXIST
 * passes when the column is there, NOT_EXIST when it is missing, whatever
 * pass_if_missing says.
 */
static bool
filter_eval_single(const Filter *f, const OtsTable *t, const PkInput *pk,
				   const CellsReader *r, const ReadSelect *sel)
{
	CellsColumn col;
	SelectedCells sc;
	int64		ts;
	OtsValue	cell;
	OtsValue	v;
	bool		found = false;
	bool		exist = f->comparator == FILTER_EXIST || f->comparator == FILTER_NOT_EXIST;

	for (int i = 0; i < t->npk; i++)
	{
		if (t->pk[i].namelen == f->columnlen &&
			memcmp(t->pk[i].name, f->column, f->columnlen) == 0)
		{
			if (!filter_cell_value(f, &pk->v[i], &v))
				return exist ? f->comparator == FILTER_NOT_EXIST : f->pass_if_missing;
			return exist ? f->comparator == FILTER_EXIST : filter_compare(f, &v);
		}
	}

	if ((sel->ncolumns == 0 || select_column_wanted(sel, f->column, f->columnlen)) &&
		r != NULL && cells_find_column(r, f->column, f->columnlen, &col))
	{
		visibility_column_begin(&sc, &sel->vis, &col);
		while (visibility_column_next(&sc, &ts, &cell))
		{
			if (filter_cell_value(f, &cell, &v))
			{
				found = true;
				if (exist || filter_compare(f, &v))
					return f->comparator != FILTER_NOT_EXIST;
			}
			if (f->latest_version_only)
				break;
		}
	}
	if (exist)
		return f->comparator == FILTER_NOT_EXIST;
	return found ? false : f->pass_if_missing;
}

/* filter_eval_node evaluates a compiled node, short-circuiting AND/OR */
static bool
filter_eval_node(const Filter *f, const OtsTable *t, const PkInput *pk,
				 const CellsReader *r, const ReadSelect *sel)
{
	switch (f->kind)
	{
		case FILTER_SINGLE:
			return filter_eval_single(f, t, pk, r, sel);
		case FILTER_NOT:
			return !filter_eval_node(f->children[0], t, pk, r, sel);
		case FILTER_AND:
			for (int i = 0; i < f->nchildren; i++)
				if (!filter_eval_node(f->children[i], t, pk, r, sel))
					return false;
			return true;
		case FILTER_OR:
			for (int i = 0; i < f->nchildren; i++)
				if (filter_eval_node(f->children[i], t, pk, r, sel))
					return true;
			return false;
		case FILTER_PAGINATION:
			/* pagination trims columns; it never drops a row */
			return true;
	}
	pg_unreachable();
}

/*
 * filter_eval tells whether a row passes; see filter.h.  r may be NULL for
 * a row without cells.
 */
bool
filter_eval(const Filter *f, const OtsTable *t, const PkInput *pk,
			const CellsReader *r, const ReadSelect *sel)
{
	if (f == NULL)
		return true;
	return filter_eval_node(f, t, pk, r, sel);
}

/* filter_pagination reports a column-pagination filter's offset and limit */
bool
filter_pagination(const Filter *f, int32 *offset, int32 *limit)
{
	if (f == NULL || f->kind != FILTER_PAGINATION)
		return false;
	*offset = f->offset;
	*limit = f->limit;
	return true;
}

void
filter_needs(const Filter *f, RowNeeds *needs, int32 cells, int64 from_ts)
{
	if (f == NULL)
		return;
	if (f->kind == FILTER_SINGLE)
		rowneeds_newest(needs, f->column, f->columnlen, f->latest_version_only ? 1 : cells,
						from_ts, PG_INT64_MAX);
	for (int i = 0; i < f->nchildren; i++)
		filter_needs(f->children[i], needs, cells, from_ts);
}
