/*-------------------------------------------------------------------------
 * src/api/batch.h
 *	  batch_write_row's run, for its SQL function (batch.c) and its wire
 *	  form (wire_batch.c): one result per row, in request order.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_BATCH_H
#define OTS_BATCH_H

#include "postgres.h"
#include "utils/jsonb.h"

#include "api/request.h"

/* one row's outcome */
typedef struct BatchResult
{
	const char *table_name;
	int			index;			/* position within its table's list, from 0 */
	bool		is_ok;
	const char *error_code;
	const char *error_message;
	Datum		primary_key;
	Datum		attributes;
	Consumed	consumed;		/* nothing when it failed */
	bool		has_row;
} BatchResult;

/* batch_result_values: a result's first five columns (table_name, index, is_ok, error_code, error_message) */
extern void batch_result_values(const BatchResult *r, Datum *values, bool *nulls);

/* batch_write_rows applies a batch_write_row request; its results, *n of them */
extern BatchResult *batch_write_rows(Jsonb *request, bool is_atomic, int *n);

#endif							/* OTS_BATCH_H */
