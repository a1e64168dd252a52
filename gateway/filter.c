/*-------------------------------------------------------------------------
 * gateway/filter.c
 *	  A serialized protobuf Filter -> ots's filter jsonb.
 *
 * A Filter is a type and the serialized message of that type; a composite
 * one holds further Filters, so the bytes nest.  We unpack each level with
 * the generated code and build
 *	  {"column", "comparator", "value", "pass_if_missing", "latest_version_only"}
 *	  {"and"|"or"|"not": [...]}   {"column_pagination": {"offset", "limit"}}
 * as docs/reference.md "Filters and column conditions" describes.  ots
 * checks the semantics (node count, NOT arity, pagination only at the top);
 * here we only refuse what cannot be represented, and bound the nesting so
 * hostile input cannot exhaust the stack.
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>

#include "otsd.h"
#include "plainbuffer.h"

/* ots allows 32 filter nodes, so a deeper nesting can never be valid */
#define FILTER_MAX_NODES 32

static json_t *filter_node(const Otsp__Filter *filter, int depth, char *err, size_t errlen);

static json_t *
filter_fail(char *err, size_t errlen, const char *fmt,...)
__attribute__((format(printf, 3, 4)));

/* filter_fail writes the message and returns NULL */
static json_t *
filter_fail(char *err, size_t errlen, const char *fmt,...)
{
	va_list		args;

	va_start(args, fmt);
	vsnprintf(err, errlen, fmt, args);
	va_end(args);
	return NULL;
}

/* filter_unpack: one message of the filter tree, or NULL after a message naming what */
static void *
filter_unpack(const ProtobufCMessageDescriptor *descriptor, const uint8_t *data, size_t len,
			  const char *what, char *err, size_t errlen)
{
	ProtobufCMessage *message = protobuf_c_message_unpack(descriptor, pb_allocator, len, data);

	if (message == NULL)
		filter_fail(err, errlen, "Invalid filter: the %s cannot be parsed.", what);
	return message;
}

static const char *
filter_comparator(Otsp__ComparatorType comparator)
{
	switch (comparator)
	{
		case OTSP__COMPARATOR_TYPE__CT_EQUAL:
			return "=";
		case OTSP__COMPARATOR_TYPE__CT_NOT_EQUAL:
			return "!=";
		case OTSP__COMPARATOR_TYPE__CT_GREATER_THAN:
			return ">";
		case OTSP__COMPARATOR_TYPE__CT_GREATER_EQUAL:
			return ">=";
		case OTSP__COMPARATOR_TYPE__CT_LESS_THAN:
			return "<";
		case OTSP__COMPARATOR_TYPE__CT_LESS_EQUAL:
			return "<=";
		case OTSP__COMPARATOR_TYPE__CT_EXIST:
			return "EXIST";
		case OTSP__COMPARATOR_TYPE__CT_NOT_EXIST:
			return "NOT_EXIST";
		default:
			return NULL;
	}
}

/* filter_cast_type: ots's name of a ValueTransferRule's cast type (STRING when absent), NULL if none */
static const char *
filter_cast_type(const Otsp__ValueTransferRule *rule)
{
	if (!rule->has_cast_type)
		return "STRING";
	switch (rule->cast_type)
	{
		case OTSP__VARIANT_TYPE__VT_INTEGER:
			return "INTEGER";
		case OTSP__VARIANT_TYPE__VT_DOUBLE:
			return "DOUBLE";
		case OTSP__VARIANT_TYPE__VT_STRING:
			return "STRING";
		default:
			return NULL;
	}
}

/* filter_single: a SingleColumnValueFilter's bytes */
static json_t *
filter_single(const uint8_t *data, size_t len, char *err, size_t errlen)
{
	Otsp__SingleColumnValueFilter *single;
	const char *comparator;
	json_t	   *column;
	json_t	   *value;
	json_t	   *result = NULL;

	single = filter_unpack(&otsp__single_column_value_filter__descriptor, data, len,
						   "single column value filter", err, errlen);
	if (single == NULL)
		return NULL;
	comparator = filter_comparator(single->comparator);
	column = json_string(single->column_name);
	if (comparator == NULL)
		filter_fail(err, errlen, "Invalid filter: unsupported comparator type %d.",
					(int) single->comparator);
	else if (column == NULL)
		filter_fail(err, errlen, "Invalid filter: the column name is not valid UTF-8.");
	else if (single->value_trans_rule != NULL && filter_cast_type(single->value_trans_rule) == NULL)
		filter_fail(err, errlen, "Invalid filter: unsupported cast_type %d.",
					(int) single->value_trans_rule->cast_type);
	/* (NOT_)EXIST reads no value: an SDK may send none */
	else if ((value = (single->column_value.len == 0 &&
					   (single->comparator == OTSP__COMPARATOR_TYPE__CT_EXIST ||
						single->comparator == OTSP__COMPARATOR_TYPE__CT_NOT_EXIST)) ? json_null() :
			  pb_decode_variant_json(single->column_value.data, single->column_value.len,
									 single->column_name, err, errlen)) != NULL)
	{
		result = json_pack("{s:o, s:s, s:o, s:b, s:b}",
						   "column", json_incref(column),
						   "comparator", comparator,
						   "value", value,
						   "pass_if_missing", !single->filter_if_missing,
						   "latest_version_only", single->latest_version_only);
		/* a regex filter (Tablestore's ValueTransferRule); ots checks the regex */
		if (result != NULL && single->value_trans_rule != NULL)
		{
			json_t	   *regex = json_string(single->value_trans_rule->regex);

			if (regex == NULL)
			{
				filter_fail(err, errlen, "Invalid filter: the regex is not valid UTF-8.");
				json_decref(result);
				result = NULL;
			}
			else
			{
				json_object_set_new(result, "regex", regex);
				json_object_set_new(result, "cast_type",
									json_string(filter_cast_type(single->value_trans_rule)));
			}
		}
	}
	json_decref(column);
	otsp__single_column_value_filter__free_unpacked(single, pb_allocator);
	return result;
}

/* filter_composite: a CompositeColumnValueFilter's bytes, its children one level deeper */
static json_t *
filter_composite(const uint8_t *data, size_t len, int depth, char *err, size_t errlen)
{
	Otsp__CompositeColumnValueFilter *composite;
	const char *op;
	json_t	   *children;
	json_t	   *result = NULL;

	composite = filter_unpack(&otsp__composite_column_value_filter__descriptor, data, len,
							  "composite column value filter", err, errlen);
	if (composite == NULL)
		return NULL;
	switch (composite->combinator)
	{
		case OTSP__LOGICAL_OPERATOR__LO_NOT:
			op = "not";
			break;
		case OTSP__LOGICAL_OPERATOR__LO_AND:
			op = "and";
			break;
		case OTSP__LOGICAL_OPERATOR__LO_OR:
			op = "or";
			break;
		default:
			op = NULL;
			break;
	}
	if (op == NULL)
	{
		filter_fail(err, errlen, "Invalid filter: unsupported logical operator %d.",
					(int) composite->combinator);
		goto done;
	}
	if (composite->n_sub_filters > FILTER_MAX_NODES)
	{
		filter_fail(err, errlen, "The count of filter exceeds the max: %d.", FILTER_MAX_NODES);
		goto done;
	}
	children = json_array();
	for (size_t i = 0; i < composite->n_sub_filters; i++)
	{
		json_t	   *node = filter_node(composite->sub_filters[i], depth + 1, err, errlen);

		if (node == NULL)
		{
			json_decref(children);
			goto done;
		}
		json_array_append_new(children, node);
	}
	result = json_pack("{s:o}", op, children);
done:
	otsp__composite_column_value_filter__free_unpacked(composite, pb_allocator);
	return result;
}

/* filter_pagination: a ColumnPaginationFilter's bytes */
static json_t *
filter_pagination(const uint8_t *data, size_t len, char *err, size_t errlen)
{
	Otsp__ColumnPaginationFilter *page;
	json_t	   *result;

	page = filter_unpack(&otsp__column_pagination_filter__descriptor, data, len,
						 "column pagination filter", err, errlen);
	if (page == NULL)
		return NULL;
	result = json_pack("{s:{s:i, s:i}}", "column_pagination",
					   "offset", (int) page->offset, "limit", (int) page->limit);
	otsp__column_pagination_filter__free_unpacked(page, pb_allocator);
	return result;
}

/*
 * filter_node: one Filter at nesting depth (the top is 1).  A composite's
 * children come unpacked with it; their own payloads stay bytes until
 * their turn, so the recursion is ours and bounded.
 */
static json_t *
filter_node(const Otsp__Filter *filter, int depth, char *err, size_t errlen)
{
	if (depth > FILTER_MAX_NODES)
		return filter_fail(err, errlen, "The count of filter exceeds the max: %d.", FILTER_MAX_NODES);
	switch (filter->type)
	{
		case OTSP__FILTER_TYPE__FT_SINGLE_COLUMN_VALUE:
			return filter_single(filter->filter.data, filter->filter.len, err, errlen);
		case OTSP__FILTER_TYPE__FT_COMPOSITE_COLUMN_VALUE:
			return filter_composite(filter->filter.data, filter->filter.len, depth, err, errlen);
		case OTSP__FILTER_TYPE__FT_COLUMN_PAGINATION:
			return filter_pagination(filter->filter.data, filter->filter.len, err, errlen);
		default:
			return filter_fail(err, errlen, "Invalid filter: unsupported filter type %d.",
							   (int) filter->type);
	}
}

/*
 * pb_decode_filter: a serialized Filter (a read's filter or a write's
 * column_condition) as ots's filter jsonb, or NULL with a message in err.
 */
json_t *
pb_decode_filter(const uint8_t *data, size_t len, char *err, size_t errlen)
{
	Otsp__Filter *filter;
	json_t	   *result;

	filter = filter_unpack(&otsp__filter__descriptor, data, len, "filter", err, errlen);
	if (filter == NULL)
		return NULL;
	result = filter_node(filter, 1, err, errlen);
	otsp__filter__free_unpacked(filter, pb_allocator);
	return result;
}
