/*-------------------------------------------------------------------------
 * src/api/request.c
 *	  Parses the condition and return-type arguments of the row API,
 *	  applies the 4 MB request limit of writes, computes capacity units
 *	  and builds the ots.row_result tuple.  The fields a jsonb object of a
 *	  request may have are format/request_fields.c's.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "common/base64.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

#include "format/codec.h"
#include "errors.h"
#include "format/names.h"
#include "ots_limits.h"
#include "api/request.h"

void
request_check_data_size(const char *request, uint64 size)
{
	if (size > OTS_MAX_REQUEST_SIZE)
		ots_error(PARAMETER_INVALID,
				  "The total data size of %s request exceeds the limit, limit size: %d, data size: " UINT64_FORMAT ".",
				  request, OTS_MAX_REQUEST_SIZE, size);
}

/* the words of the condition and return-type arguments, by enum value */
static const char *const request_existence_words[] = {
	[ROW_IGNORE] = "IGNORE",
	[ROW_EXPECT_EXIST] = "EXPECT_EXIST",
	[ROW_EXPECT_NOT_EXIST] = "EXPECT_NOT_EXIST",
};
static const char *const request_return_type_words[] = {
	[RT_NONE] = "RT_NONE",
	[RT_PK] = "RT_PK",
	[RT_AFTER_MODIFY] = "RT_AFTER_MODIFY",
};

/*
 * request_word is the enum value (the index in words) of an argument's
 * word s, in any case; the first word when s is NULL.  Another word fails
 * with OTSParameterInvalid, "Invalid <what>: '<s>'.", listing the words.
 */
static int
request_word(const char *s, const char *const *words, int nwords, const char *what,
			 const char *argument)
{
	StringInfoData list;

	if (s == NULL)
		return 0;
	for (int i = 0; i < nwords; i++)
		if (pg_strcasecmp(s, words[i]) == 0)
			return i;
	initStringInfo(&list);
	for (int i = 0; i < nwords; i++)
		appendStringInfo(&list, "%s%s", i > 0 ? ", " : "", words[i]);
	ots_parameter_invalid(psprintf("Invalid %s: '%s'.", what, s),
						  psprintf("%s is one of %s.", argument, list.data));
}

RowExistence
request_row_existence(const char *s)
{
	return (RowExistence) request_word(s, request_existence_words,
									   lengthof(request_existence_words),
									   "row existence expectation", "condition");
}

const char *
request_row_existence_name(RowExistence e)
{
	return e < lengthof(request_existence_words) ? request_existence_words[e] : "?";
}

ReturnType
request_return_type(const char *s)
{
	return (ReturnType) request_word(s, request_return_type_words,
									 lengthof(request_return_type_words),
									 "return type", "return_type");
}

int32
request_cu(uint64 bytes)
{
	return (int32) ((bytes + OTS_CU_BYTES - 1) / OTS_CU_BYTES);
}

/* the small capacity-unit values nearly every call reports, built once per backend */
#define REQUEST_CU_CACHED 4

static Jsonb *request_cu_cache[REQUEST_CU_CACHED + 1][REQUEST_CU_CACHED + 1];

/* request_build_consumed renders {"read": r, "write": w} */
static Jsonb *
request_build_consumed(Consumed c)
{
	JsonbParseState *state = NULL;
	JsonbValue *res;

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	codec_push_key(&state, CODEC_KEY("read"));
	codec_push_int(&state, c.read, WJB_VALUE);
	codec_push_key(&state, CODEC_KEY("write"));
	codec_push_int(&state, c.write, WJB_VALUE);
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(res);
}

Jsonb *
request_consumed_jsonb(Consumed c)
{
	Jsonb	  **cached;

	if (c.read < 0 || c.read > REQUEST_CU_CACHED || c.write < 0 || c.write > REQUEST_CU_CACHED)
		return request_build_consumed(c);
	cached = &request_cu_cache[c.read][c.write];
	if (*cached == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		*cached = request_build_consumed(c);
		MemoryContextSwitchTo(old);
	}
	/* callers copy it into their result tuple; nobody may modify it */
	return *cached;
}

Datum
request_result(FunctionCallInfo fcinfo, Jsonb *primary_key, Jsonb *attributes,
			   Consumed consumed)
{
	Oid			rettype = get_fn_expr_rettype(fcinfo->flinfo);
	TupleDesc	desc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	HeapTuple	tuple;

	/*
	 * The type cache holds the row type's descriptor (and follows ALTER
	 * TYPE); get_call_result_type would look the function up on every call.
	 */
	if (OidIsValid(rettype) && rettype != RECORDOID)
		desc = lookup_rowtype_tupdesc(rettype, -1);
	else if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "ots row functions must return ots.row_result");
	else
		desc = BlessTupleDesc(desc);
	values[0] = PointerGetDatum(primary_key);
	nulls[0] = primary_key == NULL;
	values[1] = PointerGetDatum(attributes);
	nulls[1] = attributes == NULL;
	values[2] = PointerGetDatum(request_consumed_jsonb(consumed));
	tuple = heap_form_tuple(desc, values, nulls);
	if (desc->tdrefcount >= 0)
		ReleaseTupleDesc(desc);
	return HeapTupleGetDatum(tuple);
}

/* request_missing raises the error of a required argument given as NULL */
static void
request_missing(const char *name)
{
	ots_parameter_invalid(psprintf("Parameter %s is missing.", name),
						  psprintf("%s must not be NULL.", name));
}

void
request_require(FunctionCallInfo fcinfo, int argno, const char *name)
{
	if (PG_ARGISNULL(argno))
		request_missing(name);
}

void
request_require_given(const void *arg, const char *name)
{
	if (arg == NULL)
		request_missing(name);
}

/*
 * request_column_names reads a text[] argument of column names (argname
 * names it in errors): a one-dimensional array (any lower bound) of valid
 * names, never NULL, as *n palloc'd C strings.  A multi-dimensional array
 * is refused rather than flattened.
 */
const char **
request_column_names(ArrayType *names, const char *argname, int *n)
{
	Datum	   *elems;
	bool	   *nulls;
	const char **result;

	if (ARR_NDIM(names) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_OTS_PARAMETER_INVALID),
				 errmsg_internal("Invalid %s: the array has %d dimensions.", argname, ARR_NDIM(names)),
				 errdetail("%s is a one-dimensional array of column names.", argname)));
	deconstruct_array(names, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, n);
	result = palloc(sizeof(char *) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
	{
		if (nulls[i])
			ots_error(PARAMETER_INVALID, "Invalid column name: ''.");
		result[i] = TextDatumGetCString(elems[i]);
		names_check_column(result[i], strlen(result[i]));
	}
	return result;
}

/* a token: base64 of this tag and the column name (opaque to callers, as Tablestore's) */
#define REQUEST_TOKEN_TAG "ots-column:"

text *
request_token(const char *name, uint32 len)
{
	int			taglen = strlen(REQUEST_TOKEN_TAG);
	char	   *raw = palloc(taglen + len);
	int			enclen = pg_b64_enc_len(taglen + len);
	text	   *token = palloc(VARHDRSZ + enclen);
	int			n;

	memcpy(raw, REQUEST_TOKEN_TAG, taglen);
	memcpy(raw + taglen, name, len);
	n = pg_b64_encode(raw, taglen + len, VARDATA(token), enclen);
	if (n < 0)
		elog(ERROR, "could not encode an ots token");
	SET_VARSIZE(token, VARHDRSZ + n);
	return token;
}

void
request_token_column(text *token, const char **name, uint32 *len)
{
	int			taglen = strlen(REQUEST_TOKEN_TAG);
	int			declen = pg_b64_dec_len(VARSIZE_ANY_EXHDR(token));
	char	   *raw = palloc(declen + 1);
	int			n = pg_b64_decode(VARDATA_ANY(token), VARSIZE_ANY_EXHDR(token), raw, declen);

	if (n <= taglen || memcmp(raw, REQUEST_TOKEN_TAG, taglen) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OTS_PARAMETER_INVALID),
				 errmsg_internal("The token is invalid."),
				 errdetail("A token is the next_token of the page before, passed back unchanged.")));
	raw[n] = '\0';
	*name = raw + taglen;
	*len = n - taglen;
	names_check_column(*name, *len);
}
