/*-------------------------------------------------------------------------
 * src/search/json_build.h
 *	  Building a search index's jsonb (a schema shown, a search's result):
 *	  a member's key, and a string, boolean, integer or jsonb value, pushed
 *	  onto a JsonbParseState.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_SEARCH_JSON_BUILD_H
#define OTS_SEARCH_JSON_BUILD_H

#include "postgres.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

static inline void
json_push_key(JsonbParseState **st, const char *key)
{
	JsonbValue	k;

	k.type = jbvString;
	k.val.string.val = (char *) key;
	k.val.string.len = strlen(key);
	pushJsonbValue(st, WJB_KEY, &k);
}

/* json_push_string: a member (key set) or an array's element (key NULL) */
static inline void
json_push_string(JsonbParseState **st, const char *key, const char *val)
{
	JsonbValue	v;

	if (key != NULL)
		json_push_key(st, key);
	v.type = jbvString;
	v.val.string.val = (char *) val;
	v.val.string.len = strlen(val);
	pushJsonbValue(st, key != NULL ? WJB_VALUE : WJB_ELEM, &v);
}

static inline void
json_push_bool(JsonbParseState **st, const char *key, bool val)
{
	JsonbValue	v;

	json_push_key(st, key);
	v.type = jbvBool;
	v.val.boolean = val;
	pushJsonbValue(st, WJB_VALUE, &v);
}

static inline void
json_push_int(JsonbParseState **st, const char *key, int64 n)
{
	JsonbValue	v;

	json_push_key(st, key);
	v.type = jbvNumeric;
	v.val.numeric = int64_to_numeric(n);
	pushJsonbValue(st, WJB_VALUE, &v);
}

/* json_push_jsonb: a member whose value is j (JSON null for NULL) */
static inline void
json_push_jsonb(JsonbParseState **st, const char *key, Jsonb *j)
{
	JsonbValue	v;

	json_push_key(st, key);
	if (j == NULL)
		v.type = jbvNull;
	else if (JB_ROOT_IS_SCALAR(j))
		(void) JsonbExtractScalar(&j->root, &v);
	else
	{
		v.type = jbvBinary;
		v.val.binary.data = &j->root;
		v.val.binary.len = VARSIZE(j) - VARHDRSZ;
	}
	pushJsonbValue(st, WJB_VALUE, &v);
}

#endif							/* OTS_SEARCH_JSON_BUILD_H */
