/*-------------------------------------------------------------------------
 * src/api/row_ops.h
 *	  The single-row operations of the row API as C calls: a request struct
 *	  in, a result struct out.
 *
 * ots.get_row, ots.put_row, ots.update_row and ots.delete_row are thin
 * shims that unpack their SQL arguments into these requests; batch_get_row
 * and batch_write_row build the same requests straight from their jsonb
 * and call the same functions, so a row behaves alike either way (same
 * validation order, errors, results and capacity units).  A NULL pointer
 * in a request is an absent argument (SQL NULL); the operation applies the
 * argument's default or reports it missing, as the SQL function does.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ROW_OPS_H
#define OTS_ROW_OPS_H

#include "postgres.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/jsonb.h"

#include "format/codec.h"
#include "api/request.h"
#include "api/row_read.h"

/* what a row operation returns: the fields of ots.row_result */
typedef struct RowResult
{
	Jsonb	   *primary_key;	/* NULL: none */
	Jsonb	   *attributes;		/* NULL: none */
	Consumed	consumed;
	bool		skipped;		/* ROW_EXISTING_SKIP: the row existed, nothing written */
	/* a write's, when its request says keep_row */
	PkInput		key;			/* the key written, a generated value filled in */
	struct varlena *row;		/* the row's cells as the write left them; NULL: none */
} RowResult;

/* a GetRow: ots.get_row's arguments */
typedef struct RowGetRequest
{
	text	   *table_name;
	Jsonb	   *primary_key;
	ReadArgs	read;			/* columns_to_get, max_versions, ..., end_column */
	StringInfo	plainbuffer;	/* not NULL: the row is appended here as PlainBuffer, with
								 * timestamps (RowResult.attributes stays NULL) */
} RowGetRequest;

/* the single-row writes; each is one entry of row_write_ops.c's operation table */
typedef enum RowWriteKind
{
	ROW_WRITE_PUT,
	ROW_WRITE_UPDATE,
	ROW_WRITE_DELETE
} RowWriteKind;

/*
 * what a PutRow with condition EXPECT_NOT_EXIST does when the row exists:
 * the API's OTSConditionCheckFail, or for INSERT on a table's view
 * (view_write.c) a unique violation, nothing (ON CONFLICT DO NOTHING), or
 * the request's UpdateRow operations (put, delete_all) applied to the row
 * instead (ON CONFLICT DO UPDATE)
 */
typedef enum RowOnExisting
{
	ROW_EXISTING_CONDITION = 0,
	ROW_EXISTING_UNIQUE,
	ROW_EXISTING_SKIP,
	ROW_EXISTING_UPDATE
} RowOnExisting;

/*
 * a PutRow, UpdateRow or DeleteRow: the arguments of ots.put_row,
 * ots.update_row or ots.delete_row (kind says which; the fields another
 * kind takes stay NULL).  A view's row (view_write.c) gives its values
 * typed instead: the key as values, and cells already read from its typed
 * columns, which the write takes with the attributes or put map (their
 * names in jsonb's key order, codec_parse_attributes_with); they get the
 * checks and errors the same values would get in the jsonb.
 */
typedef struct RowWriteRequest
{
	RowWriteKind kind;
	/* every write */
	text	   *table_name;
	Oid			view_oid;		/* instead of table_name: the table of this view (a statement on it) */
	AclMode		privileges_checked; /* on the storage, for the current role, by the view's
									 * statement (view_statement.c): not checked again */
	Jsonb	   *primary_key;
	const PkInput *key;			/* instead of primary_key: the key as values */
	const char *condition;		/* row existence; NULL: IGNORE */
	Jsonb	   *column_condition;
	const char *return_type;	/* NULL: RT_NONE */
	bool		keep_row;		/* hand back the key and the row written (RowResult) */
	/* PutRow */
	Jsonb	   *attributes;
	const CellInput *typed_cells;	/* with attributes: typed cells */
	int			ntyped_cells;
	RowOnExisting on_existing;
	/* UpdateRow */
	Jsonb	   *put;
	const CellInput *typed_put; /* with put: typed cells */
	int			ntyped_put;
	Jsonb	   *deletes;
	ArrayType  *delete_all;
	const char **delete_all_names;	/* instead of delete_all: the names */
	int			ndelete_all_names;
	Jsonb	   *increment;
	ArrayType  *return_columns;
} RowWriteRequest;

/* row_get reads one row (ots.get_row) */
extern void row_get(const RowGetRequest *req, RowResult *res);

/* row_write applies one single-row write (ots.put_row, ots.update_row, ots.delete_row) */
extern void row_write(const RowWriteRequest *req, RowResult *res);

/* row_write_privileges: the privileges a write of this kind needs on the storage */
extern AclMode row_write_privileges(RowWriteKind kind);

/* row_write_names: a write's SQL function ("ots.put_row") and request ("PutRow"), for messages */
extern void row_write_names(RowWriteKind kind, const char **operation, const char **request);

#endif							/* OTS_ROW_OPS_H */
