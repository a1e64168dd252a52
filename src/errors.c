/*-------------------------------------------------------------------------
 * src/errors.c
 *	  Maps ots SQLSTATEs back to Tablestore error code names, for per-row
 *	  batch results and ots.error_code(); raises the invalid-parameter
 *	  error of request shapes.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"
#include "fmgr.h"
#include "utils/builtins.h"

#include "errors.h"

typedef struct OtsErrorName
{
	int			sqlerrcode;
	const char *name;
} OtsErrorName;

#define OTS_ERRNAME_ROW(a,b,c,d,e, name, ots) {MAKE_SQLSTATE(a,b,c,d,e), ots},
static const OtsErrorName ots_error_names[] = {
	OTS_ERROR_CODES(OTS_ERRNAME_ROW)
};
#undef OTS_ERRNAME_ROW

const char *
ots_error_code_name(int sqlerrcode)
{
	for (int i = 0; i < lengthof(ots_error_names); i++)
		if (ots_error_names[i].sqlerrcode == sqlerrcode)
			return ots_error_names[i].name;
	return NULL;
}

/*
 * ots_parameter_invalid raises OTSParameterInvalid with Tablestore's
 * message and a sentence of detail saying what the request should hold.
 */
void
ots_parameter_invalid(const char *message, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_OTS_PARAMETER_INVALID),
			 errmsg_internal("%s", message),
			 errdetail_internal("%s", detail)));
	pg_unreachable();
}

PG_FUNCTION_INFO_V1(ots_error_code);

/*
 * ots_error_code returns the Tablestore error code of a five-character
 * SQLSTATE, or NULL when it is not one of ots's.
 */
Datum
ots_error_code(PG_FUNCTION_ARGS)
{
	char	   *state = text_to_cstring(PG_GETARG_TEXT_PP(0));
	const char *name;

	if (strlen(state) != 5)
		PG_RETURN_NULL();
	name = ots_error_code_name(MAKE_SQLSTATE(state[0], state[1], state[2],
											 state[3], state[4]));
	if (name == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(name));
}
