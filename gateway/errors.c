/*-------------------------------------------------------------------------
 * gateway/errors.c
 *	  Replies: a serialized response, or Tablestore's Error{code, message}
 *	  with its HTTP status; SQLSTATEs of failed SQL mapped to both.
 *
 * ots raises each Tablestore error with its own SQLSTATE (OT001..OT012,
 * src/errors.h) and Tablestore's message text, so a failed call of the ots
 * API becomes Tablestore's error with PostgreSQL's primary message as is.
 * PostgreSQL's own errors that an application can act on (privileges,
 * serialization failures, timeouts, a lost server) get the Tablestore code
 * that means the same; anything else is OTSInternalServerError with
 * PostgreSQL's message.  The statuses are Tablestore's (its error code
 * page and the SDKs' retry tables, see TABLESTORE.md section 4).
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otsd.h"

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

/*
 * ots's private SQLSTATEs; the list is owned by src/errors.h
 * (OTS_ERROR_CODES) and must follow it.
 */
static const char *const ots_sqlstates[][2] = {
	{"OT001", "OTSParameterInvalid"},
	{"OT002", "OTSInvalidPK"},
	{"OT003", "OTSConditionCheckFail"},
	{"OT004", "OTSObjectNotExist"},
	{"OT005", "OTSObjectAlreadyExist"},
	{"OT006", "OTSDataOutOfRange"},
	{"OT007", "OTSQuotaExhausted"},
	{"OT008", "OTSRowOperationConflict"},
	{"OT009", "OTSOutOfColumnCountLimit"},
	{"OT010", "OTSOutOfRowSizeLimit"},
	{"OT011", "OTSInternalServerError"},
	{"OT012", "OTSTrimmedDataAccess"},
	{NULL, NULL}
};

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
		otsd_log("otsd: request %s: database: %s", call->request_id, message);
		call_error(call, status, code, "Server is not available.");
	}
	else
		call_error(call, status, code, "%s", message);
}
