/*-------------------------------------------------------------------------
 * src/api/row_bulk.h
 *	  The bulk path of the row API: many plain writes of one table at
 *	  once, each validated as its single-row write, written straight into
 *	  their leaves.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ROW_BULK_H
#define OTS_ROW_BULK_H

#include "postgres.h"
#include "utils/elog.h"
#include "utils/jsonb.h"

#include "meta/catalog.h"
#include "api/request.h"
#include "api/row_ops.h"

/*
 * one row of a bulk write: a PutRow or DeleteRow that reads nothing first
 * and returns nothing, and what came of it
 */
typedef struct RowBulkRow
{
	RowWriteKind kind;			/* ROW_WRITE_PUT or ROW_WRITE_DELETE */
	Jsonb	   *primary_key;
	const PkInput *key;			/* instead of primary_key: the key as values */
	Jsonb	   *attributes;		/* a PutRow's; NULL: none */
	const CellInput *typed_cells;	/* with attributes: typed cells (RowWriteRequest's) */
	int			ntyped_cells;
	ErrorData  *error;			/* set: its OTS error (ROW_BULK_EACH); NULL: none */
	Consumed	consumed;		/* set: its capacity units, when written */
} RowBulkRow;

/* how a bulk write takes its rows */
typedef enum RowBulkMode
{
	/*
	 * batch_write_row's plain rows (condition IGNORE): a row's OTS error
	 * becomes its own and the others are written
	 */
	ROW_BULK_EACH,
	/*
	 * PutRows of new rows (condition EXPECT_NOT_EXIST): all written as new,
	 * or none when a key is stored, live or not
	 */
	ROW_BULK_NEW
} RowBulkMode;

/* row_bulk_takes: may t's rows take the bulk path (no generated keys, not an index)? */
extern bool row_bulk_takes(const OtsTable *t);

/*
 * row_bulk_write writes n rows of t with distinct keys in bulk (operation:
 * the SQL function, for read-only errors); false, having written nothing,
 * when a ROW_BULK_NEW key is stored
 */
extern bool row_bulk_write(const OtsTable *t, RowBulkRow *rows, int n, RowBulkMode mode,
						   const char *operation);

/*
 * row_bulk_put_new writes n rows that must be new (PutRows, their key as
 * values, their cells typed and as a map): PutRows with condition
 * EXPECT_NOT_EXIST whose existing row is a unique violation (an INSERT on
 * a table's view), in bulk when every key is new, else one by one
 */
extern void row_bulk_put_new(Oid view_oid, RowBulkRow *rows, int n);

#endif							/* OTS_ROW_BULK_H */
