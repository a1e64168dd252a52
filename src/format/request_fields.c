/*-------------------------------------------------------------------------
 * src/format/request_fields.c
 *	  Refuses a field a jsonb object of a request does not know
 *	  (request_fields_check).
 *
 * An object of a request whose fields were taken as given, unknown ones
 * skipped, would turn a misspelled field into a silently different write
 * (a PUT row with "attribute_columns" for "attributes" wrote a row without
 * attributes).  So every parser of an object shape declares its fields in
 * one table beside the code that reads them (RequestFields), and checks
 * the object against it before acting on it: the fields of batch entries
 * and rows, filters, time ranges, cells and value objects.  The check
 * walks the object's keys once, comparing each with the shape's few names;
 * a parser that already counts the fields it found checks only when the
 * object has more (the error path).  Attribute maps and primary keys,
 * whose keys are the user's column names, are not such shapes.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "errors.h"
#include "format/request_fields.h"

/* request_fields_name is the name of element i of a RequestFields list */
static inline const char *
request_fields_name(const RequestFields *fields, int i)
{
	return *(const char *const *) ((const char *) fields->names + (size_t) i * fields->stride);
}

/*
 * request_fields_known: is key (keylen bytes) a field of the list?  Names
 * mostly differ in their first byte, so only a name that begins as the key
 * does is measured and compared.
 */
static bool
request_fields_known(const RequestFields *fields, const char *key, uint32 keylen)
{
	if (keylen == 0)
		return false;
	for (int i = 0; i < fields->n; i++)
	{
		const char *name = request_fields_name(fields, i);

		if (name[0] == key[0] && strlen(name) == keylen && memcmp(name, key, keylen) == 0)
			return true;
	}
	return false;
}

/*
 * request_fields_check walks obj's keys in place (an object's keys come
 * first among its children, their bytes first in its data, as PostgreSQL's
 * jsonb_util.c lays them out) and refuses the first one the list does not
 * know, naming it, where it is (where_fmt, only formatted then) and the
 * fields the shape knows.
 */
void
request_fields_check(JsonbContainer *obj, const RequestFields *fields, const char *where_fmt,...)
{
	uint32		count = JsonContainerSize(obj);
	const char *keys = (const char *) &obj->children[count * 2];
	uint32		offset = 0;

	Assert(JsonContainerIsObject(obj));
	for (uint32 i = 0; i < count; i++)
	{
		/* a key's JEntry holds its length, or (every JB_OFFSET_STRIDE'th) its end */
		JEntry		entry = obj->children[i];
		uint32		end = JBE_HAS_OFF(entry) ? JBE_OFFLENFLD(entry) : offset + JBE_OFFLENFLD(entry);
		const char *key = keys + offset;
		uint32		keylen = end - offset;
		StringInfoData where;
		StringInfoData known;

		offset = end;
		if (request_fields_known(fields, key, keylen))
			continue;
		initStringInfo(&where);
		for (;;)
		{
			va_list		args;
			int			needed;

			va_start(args, where_fmt);
			needed = appendStringInfoVA(&where, where_fmt, args);
			va_end(args);
			if (needed == 0)
				break;
			enlargeStringInfo(&where, needed);
		}
		initStringInfo(&known);
		for (int f = 0; f < fields->n; f++)
			appendStringInfo(&known, "%s%s", f > 0 ? ", " : "", request_fields_name(fields, f));
		ereport(ERROR,
				(errcode(ERRCODE_OTS_PARAMETER_INVALID),
				 errmsg_internal("Unknown field '%s' in %s.", pnstrdup(key, keylen), where.data),
				 errdetail("The fields of %s are %s.", fields->shape, known.data)));
	}
}
