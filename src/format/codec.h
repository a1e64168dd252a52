/*-------------------------------------------------------------------------
 * src/format/codec.h
 *	  The jsonb encoding of ots values, primary keys and attribute maps.
 *
 * Values:	 JSON string -> String; a number whose jsonb text has a fractional
 *			 part ("3.0", "2.5") -> Double, any other number -> Integer (int64);
 *			 true/false -> Boolean; {"$binary": "<base64>"} -> Binary;
 *			 {"$double": <number> | "NaN" | "Infinity" | "-Infinity"} -> Double.
 * Cells:	 a value, {"value": <value>, "ts": <ms>}, or an array of those.
 * Pk:		 {"<pk name>": <String|Integer|Binary>}; in range bounds also
 *			 {"$inf": "min"|"max"}; in writes {"$auto_increment": true}
 *			 for an AUTO_INCREMENT column.
 * Output uses the same forms, so everything round-trips: a whole-number
 * Double prints as "3.0", one too large for plain decimals as
 * {"$double": 1e+300}.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_CODEC_H
#define OTS_CODEC_H

#include "postgres.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "meta/catalog.h"
#include "format/cells.h"
#include "format/value.h"

/* one attribute cell of a write request */
typedef struct CellInput
{
	const char *name;
	uint32		namelen;
	bool		has_ts;
	int64		ts;
	OtsValue	value;
} CellInput;

/* a primary key as given in a request, in table schema order */
typedef enum PkSpecial
{
	PK_VALUE = 0,
	PK_INF_MIN,
	PK_INF_MAX,
	PK_AUTO_INCREMENT
} PkSpecial;

typedef struct PkInput
{
	int			n;
	OtsValue	v[OTS_MAX_KEY_COLUMNS];
	PkSpecial	special[OTS_MAX_KEY_COLUMNS];
} PkInput;

/* what codec_parse_pk accepts besides plain values */
#define PK_ALLOW_INF		0x01
#define PK_ALLOW_AUTO_INC	0x02

/*
 * codec_parse_value reads one attribute value; "column" names it in errors.
 * codec_read_value reads one without a write request's size limit (a
 * stored value: cells' text form, stream records).
 */
extern void codec_parse_value(const JsonbValue *jv, OtsValue *out, const char *column);
extern void codec_read_value(const JsonbValue *jv, OtsValue *out, const char *column);

/*
 * codec_parse_attributes reads an attribute map into palloc'd cells, in
 * map order, validating names, values and timestamp bounds.  NULL or '{}'
 * yields zero cells.
 */
extern CellInput *codec_parse_attributes(Jsonb *attrs, int *ncells);

/*
 * codec_parse_attributes_with reads attrs (NULL: none) as
 * codec_parse_attributes does, with the ntyped cells typed (values already
 * read, as a view's typed columns give them; names in jsonb's key order,
 * codec_key_cmp, none of them in attrs) among them: the cells of the map
 * that holds both, each typed cell checked where its name falls as if it
 * were in attrs.
 */
extern CellInput *codec_parse_attributes_with(Jsonb *attrs, const CellInput *typed, int ntyped,
											  int *ncells);

/*
 * codec_parse_stored_attributes reads the cells of a stored row (the text
 * input of ots.cells) as codec_parse_attributes does, checking the format
 * only: no limit of a write request (cells per write, value sizes) applies
 * to a row that grew through many writes.
 */
extern CellInput *codec_parse_stored_attributes(Jsonb *attrs, int *ncells);

/*
 * codec_parse_pk reads a primary key against the table's schema with
 * Tablestore's checks and messages (count, then names, then types, then
 * value lengths).
 */
extern void codec_parse_pk(const OtsTable *t, Jsonb *pk, int flags, PkInput *out);

/*
 * codec_check_pk applies codec_parse_pk's checks to a key given as values
 * (a view's row): pk->n columns given, each value of its column's type in
 * its column's place, PK_AUTO_INCREMENT where flags allow it.
 */
extern void codec_check_pk(const OtsTable *t, const PkInput *pk, int flags);

/* codec_pk_copy copies src into dst, its strings and binaries too (palloc) */
extern void codec_pk_copy(PkInput *dst, const PkInput *src);

/* codec_pk_equal: do a and b hold the same key values? */
extern bool codec_pk_equal(const PkInput *a, const PkInput *b);

/* codec_parse_timestamp reads a ms timestamp number, checking its bounds */
extern int64 codec_parse_timestamp(const JsonbValue *jv);

/* codec_check_double rejects what Tablestore rejects in a Double (NaN, infinities) */
extern void codec_check_double(double d);

/*
 * codec_check_timestamp raises Tablestore's timestamp error unless ts lies
 * in [0, OTS_MAX_TIMESTAMP) ms
 */
extern void codec_check_timestamp(int64 ts);

/* codec_check_pk_length: OTSParameterInvalid for a String/Binary key value over Tablestore's length */
extern void codec_check_pk_length(const OtsPkColumn *col, uint32 len);

/* codec_pk_size: Tablestore's data size of a primary key (names + values) */
extern uint32 codec_pk_size(const OtsTable *t, const PkInput *pk);

/*
 * codec_cells_data_size: the data size of a write request's attribute map
 * as Tablestore counts it for the 4 MB request limit, without parsing it:
 * per cell its column name and value (values false: per version of a
 * delete map, its name only), 8 bytes more for an explicit timestamp.
 * check_ts also rejects a timestamp outside [0, INT64_MAX/1000).  0 for
 * NULL or anything but an object; malformed cells count what they hold
 * (parsing reports them).
 */
extern uint64 codec_cells_data_size(JsonbContainer *map, bool values, bool check_ts);

/* codec_pk_data_size: the same of a request's primary key (names and values) */
extern uint64 codec_pk_data_size(JsonbContainer *pk);

/*
 * codec_double_numeric is a Double's output number: its shortest decimal
 * form, ".0" added to a whole number; *wrapped when that form has a
 * positive exponent and so must be written {"$double": n}.
 */
extern Numeric codec_double_numeric(double d, bool *wrapped);

/* codec_base64 is the base64 text of a Binary value ({"$binary": text}) */
extern char *codec_base64(const char *data, int len, int *outlen);

/* one key and value of a flat object for codec_flat_object */
typedef struct CodecPair
{
	const char *key;
	int			keylen;
	OtsValue	value;
} CodecPair;

/* codec_key_cmp: jsonb's order of object keys (shorter first, then bytewise), as strcmp */
extern int	codec_key_cmp(const char *a, uint32 alen, const char *b, uint32 blen);

/*
 * codec_flat_object returns the jsonb object {key: value, ...} of n pairs
 * with distinct keys, written directly in binary form (codec_object.c);
 * sorts pairs in jsonb key order.
 */
extern Jsonb *codec_flat_object(CodecPair *pairs, int n);

/*
 * codec_jsonb_value: a value as a JsonbValue, in ots's jsonb encoding (an
 * object for {"$binary": ...} and {"$double": ...}), for code that builds
 * a jsonb tree itself; strings point into the value
 */
extern void codec_jsonb_value(const OtsValue *v, JsonbValue *out);

/* codec_push_value appends a value as WJB_VALUE or WJB_ELEM */
extern void codec_push_value(JsonbParseState **state, const OtsValue *v,
							 JsonbIteratorToken token);

/* codec_push_key appends a key; codec_push_int an int64 as a number */
extern void codec_push_key(JsonbParseState **state, const char *s, uint32 len);

/*
 * CODEC_KEY("name") is a key written as a string literal, as the two
 * arguments (key, length) codec_push_key and jsonb's key lookups take:
 * its length is counted by the compiler, never by hand (anything but a
 * literal fails to compile)
 */
#define CODEC_KEY(literal) ("" literal ""), (sizeof(literal) - 1)
extern void codec_push_int(JsonbParseState **state, int64 v, JsonbIteratorToken token);

/* codec_push_cell appends one cell as {"ts": ts, "value": v} */
extern void codec_push_cell(JsonbParseState **state, int64 ts, const OtsValue *v);

/*
 * codec_stored_row_to_jsonb renders every cell of a stored row with the row
 * marker: ots.cells's text form, {"row_ts": <ms>, "cells": {...}}
 */
extern Jsonb *codec_stored_row_to_jsonb(const CellsReader *r);

/* codec_pk_to_jsonb renders a complete primary key */
extern Jsonb *codec_pk_to_jsonb(const OtsTable *t, const PkInput *pk);

/* codec_jsonb_get finds key in a jsonb object; false if absent or not an object */
extern bool codec_jsonb_get(Jsonb *obj, const char *key, JsonbValue *out);

#endif							/* OTS_CODEC_H */
