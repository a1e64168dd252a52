/*-------------------------------------------------------------------------
 * src/errors.h
 *	  Tablestore error codes as PostgreSQL SQLSTATEs, and the ereport helpers.
 *
 * Every OTS error code has its own SQLSTATE in the private class "OT", so
 * PL/pgSQL can catch each one by name (EXCEPTION WHEN SQLSTATE 'OT003').
 * The message text of an OTS error is Tablestore's own text, verbatim, so
 * clients can match on it; context goes to errdetail/errhint.  This header
 * is the only place the mapping lives: ots.error_code() is generated from
 * OTS_ERROR_CODES (in ots_error_codes.h, which otsd reads too), and
 * docs/reference.md's error table lists it.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ERRORS_H
#define OTS_ERRORS_H

#include "utils/elog.h"

#include "ots_error_codes.h"

#define OTS_ERRCODE_ENUM(a,b,c,d,e, name, ots) \
	ERRCODE_OTS_##name = MAKE_SQLSTATE(a,b,c,d,e),
enum
{
	OTS_ERROR_CODES(OTS_ERRCODE_ENUM)
};
#undef OTS_ERRCODE_ENUM

/*
 * ots_error raises an OTS error whose message is Tablestore's text.
 * Usage: ots_error(PARAMETER_INVALID, "Invalid table name: '%s'.", name);
 */
#define ots_error(name, ...) \
	ereport(ERROR, (errcode(ERRCODE_OTS_##name), errmsg_internal(__VA_ARGS__)))

/* ots_parameter_invalid raises OTSParameterInvalid: a message and a detail sentence */
extern void ots_parameter_invalid(const char *message, const char *detail) pg_attribute_noreturn();

/* ots_error_code_name returns "OTSParameterInvalid" etc. for an OT SQLSTATE, or NULL */
extern const char *ots_error_code_name(int sqlerrcode);

#endif							/* OTS_ERRORS_H */
