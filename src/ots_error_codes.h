/*-------------------------------------------------------------------------
 * src/ots_error_codes.h
 *	  The list of Tablestore error codes and their SQLSTATEs (class "OT"),
 *	  on its own so that programs outside the server (otsd) read the same
 *	  list: it includes no PostgreSQL header.  src/errors.h makes the
 *	  extension's ERRCODE_OTS_* of it; gateway/errors.c the gateway's
 *	  SQLSTATE-to-code table.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ERROR_CODES_H
#define OTS_ERROR_CODES_H

/* X(sqlstate characters, C name, Tablestore error code) */
#define OTS_ERROR_CODES(X) \
	X('O','T','0','0','1', PARAMETER_INVALID,        "OTSParameterInvalid") \
	X('O','T','0','0','2', INVALID_PK,               "OTSInvalidPK") \
	X('O','T','0','0','3', CONDITION_CHECK_FAIL,     "OTSConditionCheckFail") \
	X('O','T','0','0','4', OBJECT_NOT_EXIST,         "OTSObjectNotExist") \
	X('O','T','0','0','5', OBJECT_ALREADY_EXIST,     "OTSObjectAlreadyExist") \
	X('O','T','0','0','6', DATA_OUT_OF_RANGE,        "OTSDataOutOfRange") \
	X('O','T','0','0','7', QUOTA_EXHAUSTED,          "OTSQuotaExhausted") \
	X('O','T','0','0','8', ROW_OPERATION_CONFLICT,   "OTSRowOperationConflict") \
	X('O','T','0','0','9', OUT_OF_COLUMN_COUNT_LIMIT, "OTSOutOfColumnCountLimit") \
	X('O','T','0','1','0', OUT_OF_ROW_SIZE_LIMIT,    "OTSOutOfRowSizeLimit") \
	X('O','T','0','1','1', INTERNAL_SERVER_ERROR,    "OTSInternalServerError") \
	X('O','T','0','1','2', TRIMMED_DATA_ACCESS,      "OTSTrimmedDataAccess") \
	X('O','T','0','1','3', PARTITION_UNAVAILABLE,    "OTSPartitionUnavailable")

#endif							/* OTS_ERROR_CODES_H */
