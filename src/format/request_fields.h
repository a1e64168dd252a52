/*-------------------------------------------------------------------------
 * src/format/request_fields.h
 *	  The fields of a jsonb object shape of a request, and the check that
 *	  an object has only those.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_REQUEST_FIELDS_H
#define OTS_REQUEST_FIELDS_H

#include "postgres.h"
#include "utils/jsonb.h"

/*
 * RequestFields: the fields of one jsonb object shape of a request (a batch
 * row, a filter, a time range, a cell, ...), declared once by the code that
 * reads them.  The list is the parser's own table: n elements, stride bytes
 * apart, each beginning with its field's name (a const char *), so a table
 * of fields and how to read them is the list itself, and a plain array of
 * names is one too.  shape names the object in the error's detail ("a PUT
 * row").
 */
typedef struct RequestFields
{
	const char *shape;
	const void *names;			/* &table[0]: its first member is the name */
	size_t		stride;
	int			n;
} RequestFields;

/* REQUEST_FIELDS(shape, table) is the RequestFields of an array of names or of structs led by one */
#define REQUEST_FIELDS(shape, table) {(shape), (table), sizeof((table)[0]), lengthof(table)}

/*
 * request_fields_check raises OTSParameterInvalid, "Unknown field '<f>' in
 * <where>.", for the first field of obj (an object) its shape does not know
 */
extern void request_fields_check(JsonbContainer *obj, const RequestFields *fields,
								 const char *where_fmt,...) pg_attribute_printf(3, 4);

#endif							/* OTS_REQUEST_FIELDS_H */
