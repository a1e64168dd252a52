/*-------------------------------------------------------------------------
 * src/format/value.h
 *	  One typed Tablestore value: the five attribute types (String, Integer,
 *	  Double, Boolean, Binary), of which the first, second and last may also
 *	  be primary-key values.
 *
 * String and Binary point into memory owned by someone else (a cells
 * value, a jsonb, a Datum); an OtsValue never owns what it points at.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_VALUE_H
#define OTS_VALUE_H

#include "postgres.h"

/* numbering is part of the on-disk cells format: never renumber */
typedef enum OtsValueType
{
	OTS_VT_STRING = 1,
	OTS_VT_INTEGER = 2,
	OTS_VT_DOUBLE = 3,
	OTS_VT_BOOLEAN = 4,
	OTS_VT_BINARY = 5
} OtsValueType;

#define OTS_VT_VALID(t) ((t) >= OTS_VT_STRING && (t) <= OTS_VT_BINARY)

typedef struct OtsValue
{
	OtsValueType type;
	union
	{
		int64		i;			/* OTS_VT_INTEGER */
		double		d;			/* OTS_VT_DOUBLE */
		bool		b;			/* OTS_VT_BOOLEAN */
		struct
		{
			const char *data;
			uint32		len;
		}			s;			/* OTS_VT_STRING, OTS_VT_BINARY */
	}			u;
} OtsValue;

/*
 * ots_value_compare orders two values of the same type: String and Binary
 * bytewise (memcmp, shorter prefix first), Integer as int64, Double
 * numerically, Boolean false < true.  Values of different types are not
 * comparable; the caller checks types first.
 */
extern int	ots_value_compare(const OtsValue *a, const OtsValue *b);

/*
 * ots_value_equal: are two values the same value, of one type and bit for
 * bit (a Double's bits, not its number: the same stored cell)?
 */
extern bool ots_value_equal(const OtsValue *a, const OtsValue *b);

/* ots_value_copy: src into dst, a string's or binary's bytes copied (palloc, NUL-terminated) */
extern void ots_value_copy(OtsValue *dst, const OtsValue *src);

/* ots_value_size is the value's size for capacity units and request limits */
extern uint32 ots_value_size(const OtsValue *v);

/* ots_value_type_name: "STRING", "INTEGER", "DOUBLE", "BOOLEAN", "BINARY" */
extern const char *ots_value_type_name(OtsValueType t);

/* ots_value_vt_name: Tablestore's wire names "VT_STRING", "VT_INTEGER", ... "VT_BLOB" */
extern const char *ots_value_vt_name(OtsValueType t);

#endif							/* OTS_VALUE_H */
