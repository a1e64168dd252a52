/*-------------------------------------------------------------------------
 * gateway/errors.c
 *	  Replies: a serialized response, or Tablestore's Error{code, message}
 *	  with its HTTP status; SQLSTATEs of failed SQL mapped to both.
 *
 * ots raises each Tablestore error with its own SQLSTATE (OT001..OT013,
 * src/errors.h) and Tablestore's message text, so a failed call of the ots
 * API becomes Tablestore's error with PostgreSQL's primary message as is.
 * PostgreSQL's own errors that an application can act on (privileges,
 * serialization failures, timeouts, a lost server) get the Tablestore code
 * that means the same; anything else is OTSInternalServerError with
 * PostgreSQL's message.  The statuses are Tablestore's (its error code
 * page and the SDKs' retry tables; the table in docs/gateway.md, Errors).
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "otsd.h"
#include "../src/ots_error_codes.h"

/* Tablestore's error codes and their HTTP statuses */
typedef struct ErrorStatus
{
	const char *code;
	int			status;
} ErrorStatus;

static const ErrorStatus error_statuses[] = {
	{"OTSParameterInvalid", 400},
	{"OTSInvalidPK", 400},
	{"OTSDataOutOfRange", 400},
	{"OTSOutOfColumnCountLimit", 400},
	{"OTSOutOfRowSizeLimit", 400},
	{"OTSTrimmedDataAccess", 400},
	{"OTSConditionCheckFail", 403},
	{"OTSQuotaExhausted", 403},
	{"OTSAuthFailed", 403},
	{"OTSNoPermissionAccess", 403},
	{"OTSCapacityUnitExhausted", 403},
	{"OTSNotEnoughCapacityUnit", 403},
	{"OTSTooFrequentReservedThroughputAdjustment", 403},
	{"OTSObjectNotExist", 404},
	{"OTSTableNotReady", 404},
	{"OTSSessionNotExist", 404},
	{"OTSMethodNotAllowed", 405},
	{"OTSRequestTimeout", 408},
	{"OTSObjectAlreadyExist", 409},
	{"OTSRowOperationConflict", 409},
	{"OTSRequestBodyTooLarge", 413},
	{"OTSFlowControl", 429},
	{"OTSInternalServerError", 500},
	{"OTSServerBusy", 503},
	{"OTSPartitionUnavailable", 503},
	{"OTSTimeout", 503},
	{"OTSServerUnavailable", 503},
	{NULL, 0}
};

/* ots's private SQLSTATEs and their codes, from the extension's own list */
#define OTSD_SQLSTATE(a, b, c, d, e, name, ots) {(const char[]) {a, b, c, d, e, '\0'}, ots},
static const char *const ots_sqlstates[][2] = {
	OTS_ERROR_CODES(OTSD_SQLSTATE)
	{NULL, NULL}
};
#undef OTSD_SQLSTATE

/* otsd_error_status: the HTTP status of a Tablestore error code (500 if unknown) */
int
otsd_error_status(const char *code)
{
	for (const ErrorStatus *e = error_statuses; e->code != NULL; e++)
	{
		if (strcmp(e->code, code) == 0)
			return e->status;
	}
	return 500;
}

/*
 * otsd_error_code: the Tablestore error code of a SQLSTATE: ots's own
 * OTnnn one to one, PostgreSQL's by meaning, OTSInternalServerError for the
 * rest (and for NULL, an error without SQLSTATE: libpq's own).
 */
const char *
otsd_error_code(const char *sqlstate)
{
	if (sqlstate == NULL)
		return "OTSServerUnavailable";
	for (int i = 0; ots_sqlstates[i][0] != NULL; i++)
	{
		if (strcmp(ots_sqlstates[i][0], sqlstate) == 0)
			return ots_sqlstates[i][1];
	}
	/* insufficient_privilege, also a row-level security policy's refusal */
	if (strcmp(sqlstate, "42501") == 0)
		return "OTSNoPermissionAccess";
	/* serialization_failure, deadlock_detected, lock_not_available */
	if (strcmp(sqlstate, "40001") == 0 || strcmp(sqlstate, "40P01") == 0 ||
		strcmp(sqlstate, "55P03") == 0)
		return "OTSRowOperationConflict";
	/* query_canceled: statement_timeout, lock_timeout */
	if (strcmp(sqlstate, "57014") == 0)
		return "OTSTimeout";
	/* connection_exception, operator_intervention (shutdown), cannot_connect_now */
	if (strncmp(sqlstate, "08", 2) == 0 || strncmp(sqlstate, "57P", 3) == 0)
		return "OTSServerUnavailable";
	/* insufficient_resources (too many connections, out of memory or disk) */
	if (strncmp(sqlstate, "53", 2) == 0)
		return "OTSServerBusy";
	return "OTSInternalServerError";
}

/* set_reply: the reply of this call is message, packed, with this status */
static void
set_reply(Call *call, int status, const ProtobufCMessage *message)
{
	size_t		size = protobuf_c_message_get_packed_size(message);
	uint8_t    *packed = malloc(size > 0 ? size : 1);

	if (packed == NULL)
		abort();
	protobuf_c_message_pack(message, packed);
	call->reply.len = 0;
	buf_put(&call->reply, packed, size);
	free(packed);
	call->status = status;
	call->replied = true;
}

/* call_reply: the call succeeded with this response (HTTP 200) */
void
call_reply(Call *call, const ProtobufCMessage *response)
{
	if (call->replied)
		return;					/* the first reply stands */
	set_reply(call, 200, response);
}

/*
 * utf8_char_len: the bytes of the UTF-8 character at c (RFC 3629: no
 * overlong forms, surrogates or code points past U+10FFFF), 0 where c holds
 * none (an invalid byte, or the NUL that ends the text)
 */
size_t
utf8_char_len(const char *c)
{
	const unsigned char *u = (const unsigned char *) c;
	size_t		n;
	unsigned int lo = 0x80,
				hi = 0xBF;

	if (u[0] == 0)
		return 0;
	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xC2 && u[0] <= 0xDF)
		n = 2;
	else if (u[0] >= 0xE0 && u[0] <= 0xEF)
	{
		n = 3;
		if (u[0] == 0xE0)
			lo = 0xA0;
		else if (u[0] == 0xED)
			hi = 0x9F;
	}
	else if (u[0] >= 0xF0 && u[0] <= 0xF4)
	{
		n = 4;
		if (u[0] == 0xF0)
			lo = 0x90;
		else if (u[0] == 0xF4)
			hi = 0x8F;
	}
	else
		return 0;
	for (size_t i = 1; i < n; i++)
	{
		if (u[i] < lo || u[i] > hi)
			return 0;
		lo = 0x80, hi = 0xBF;
	}
	return n;
}

/* call_error: the call failed with Tablestore's error code and a message */
void
call_error(Call *call, int http_status, const char *code, const char *fmt,...)
{
	Otsp__Error error = OTSP__ERROR__INIT;
	char		message[2048];
	va_list		args;

	if (call->replied)
		return;
	va_start(args, fmt);
	vsnprintf(message, sizeof(message), fmt, args);
	va_end(args);
	/*
	 * Error.message is a protobuf string, which must be UTF-8 (the Python
	 * SDK refuses the reply otherwise): a message quoting the client's bytes
	 * (a name, the path) shows each invalid byte as '?'
	 */
	for (char *c = message; *c;)
	{
		size_t		n = utf8_char_len(c);

		if (n == 0)
			*c++ = '?';
		else
			c += n;
	}
	error.code = (char *) code;
	error.message = message;
	set_reply(call, http_status, &error.base);
	snprintf(call->error_code, sizeof(call->error_code), "%s", code);
}

/*
 * call_pg_error: the call failed with this PGresult (NULL when libpq had no
 * result to give).  ots's errors carry Tablestore's text as their primary
 * message; PostgreSQL's keep theirs, behind Tablestore's text where it has one.
 */
void
call_pg_error(Call *call, const PGresult *res)
{
	const char *sqlstate = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *message = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	const char *code = otsd_error_code(sqlstate);
	int			status = otsd_error_status(code);

	if (message == NULL && res != NULL)
		message = PQresultErrorMessage(res);
	if (message == NULL || message[0] == '\0')
		message = "no message";

	if (sqlstate != NULL && strncmp(sqlstate, "OT", 2) == 0)
		call_error(call, status, code, "%s", message);
	else if (strcmp(code, "OTSNoPermissionAccess") == 0)
		call_error(call, status, code,
				   "You have no permission to access the requested resource, please contact the resource owner (%s)",
				   message);
	else if (strcmp(code, "OTSRowOperationConflict") == 0)
		call_error(call, status, code, "Data is being modified by the other request.");
	else if (strcmp(code, "OTSTimeout") == 0)
		call_error(call, status, code, "Operation timeout.");
	else if (strcmp(code, "OTSServerBusy") == 0)
		call_error(call, status, code, "Server is busy.");
	else if (strcmp(code, "OTSServerUnavailable") == 0)
	{
		log_write("otsd: request %s: database: %s", call->request_id, message);
		call_error(call, status, code, "Server is not available.");
	}
	else
		call_error(call, status, code, "%s", message);
}
