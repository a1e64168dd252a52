/*-------------------------------------------------------------------------
 * src/api/request.h
 *	  Arguments and results shared by the row API: row-existence
 *	  conditions, return types, capacity units and the ots.row_result
 *	  tuple every row function returns.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_REQUEST_H
#define OTS_REQUEST_H

#include "postgres.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/jsonb.h"

typedef enum RowExistence
{
	ROW_IGNORE,
	ROW_EXPECT_EXIST,
	ROW_EXPECT_NOT_EXIST
} RowExistence;

typedef enum ReturnType
{
	RT_NONE,
	RT_PK,
	RT_AFTER_MODIFY
} ReturnType;

typedef struct Consumed
{
	int32		read;
	int32		write;
} Consumed;

/* request_row_existence parses 'IGNORE' | 'EXPECT_EXIST' | 'EXPECT_NOT_EXIST' (NULL: IGNORE) */
extern RowExistence request_row_existence(const char *condition);
extern const char *request_row_existence_name(RowExistence e);

/* request_return_type parses 'RT_NONE' | 'RT_PK' | 'RT_AFTER_MODIFY' (NULL: RT_NONE) */
extern ReturnType request_return_type(const char *return_type);

/*
 * request_check_data_size refuses a write request ("PutRow", "UpdateRow",
 * "DeleteRow", "BatchWriteRow") whose data size (codec_pk_data_size,
 * codec_cells_data_size) exceeds Tablestore's 4 MB, with its message
 */
extern void request_check_data_size(const char *request, uint64 size);

/* request_cu: capacity units for a data size, rounded up to 4 KB units */
extern int32 request_cu(uint64 bytes);

/* request_consumed_jsonb renders {"read": r, "write": w} (read-only: may be shared) */
extern Jsonb *request_consumed_jsonb(Consumed c);

/* request_result builds an ots.row_result datum; NULL pointers become SQL NULLs */
extern Datum request_result(FunctionCallInfo fcinfo, Jsonb *primary_key,
							Jsonb *attributes, Consumed consumed);

/* request_text_arg is the text argument n, or NULL when SQL NULL */
#define request_text_arg(n) (PG_ARGISNULL(n) ? NULL : PG_GETARG_TEXT_PP(n))
#define request_jsonb_arg(n) (PG_ARGISNULL(n) ? NULL : PG_GETARG_JSONB_P(n))
#define request_array_arg(n) (PG_ARGISNULL(n) ? NULL : PG_GETARG_ARRAYTYPE_P(n))
/* request_cstring_arg is the text argument n as a C string (utils/builtins.h), or NULL */
#define request_cstring_arg(n) (PG_ARGISNULL(n) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(n)))

/* request_column_names reads a one-dimensional text[] of valid column names */
extern const char **request_column_names(ArrayType *names, const char *argname, int *n);

/* request_require raises OTSParameterInvalid when a required argument is NULL */
/*
 * request_token is the next_token of a get_range page that ended inside a
 * row, before its column name[0..len); request_token_column reads a
 * token back (OTSParameterInvalid when it is none of them)
 */
extern text *request_token(const char *name, uint32 len);
extern void request_token_column(text *token, const char **name, uint32 *len);

extern void request_require(FunctionCallInfo fcinfo, int argno, const char *name);

/* request_require_given is request_require for an argument of a request struct */
extern void request_require_given(const void *arg, const char *name);

#endif							/* OTS_REQUEST_H */
