/*-------------------------------------------------------------------------
 * src/api/row_write_internal.h
 *	  What the files of the single-row writes share: the write being
 *	  applied (RowWrite), the table entry of each kind of write
 *	  (RowWriteOp), and row_write.c's rules, stamps and compare-and-swap,
 *	  which row_write_ops.c (PutRow, DeleteRow, the entry point) and
 *	  row_update.c (UpdateRow) build on.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ROW_WRITE_INTERNAL_H
#define OTS_ROW_WRITE_INTERNAL_H

#include "postgres.h"

#include "format/cells.h"
#include "format/codec.h"
#include "api/filter.h"
#include "api/read_select.h"
#include "api/row_ops.h"
#include "store/rowstore.h"
#include "stream/stream.h"

/* the parsed operations of one update_row */
typedef struct RowUpdate
{
	CellInput  *puts;
	int			nputs;
	VersionDelete *deletes;
	int			ndeletes;
	const char **delete_all;
	int			ndelete_all;
	CellInput  *increments;		/* value holds the Integer delta */
	int			nincrements;
	const char **return_columns;
	int			nreturn_columns;
	bool		has_return_columns; /* false: every incremented column */
} RowUpdate;

typedef struct RowWriteOp RowWriteOp;

/* one write being applied: its request, parsed, and what it produced */
typedef struct RowWrite
{
	const RowWriteOp *op;
	const RowWriteRequest *req;
	OtsTable   *t;
	PkInput		pk;
	RowKey		key;
	RowExistence existence;
	Filter	   *condition;
	ReturnType	return_type;
	int64		now_ms;
	ReadSelect	visible;		/* the table's rules: what conditions see */
	uint32		pk_size;
	bool		reads;			/* reads the row before writing it */
	CellInput  *cells;			/* PutRow: the cells */
	int			ncells;
	RowUpdate	update;			/* UpdateRow: the operations */
	Jsonb	   *after;			/* UpdateRow: the RT_AFTER_MODIFY attributes */
	bool		existing;		/* PutRow found the row it expected not to (on_existing) */
	bool		generated;		/* the key's AUTO_INCREMENT value was generated */
	struct varlena *row;		/* the row's cells as the write left them; NULL: none */
	StreamChange change;		/* what the write is, for a table with a stream */
	StreamUpdateOps stream_ops; /* UpdateRow: its operations, for the stream */
} RowWrite;

/* what a write does in place of the row version read */
typedef enum RowChange
{
	ROW_CHANGE_NONE,			/* nothing */
	ROW_CHANGE_STORE,			/* store new cells */
	ROW_CHANGE_REMOVE			/* delete the row */
} RowChange;

/*
 * RowWriteDecide is a write's decision function: given the row version
 * read (NULL when there is none; exists: whether it is visible) it says
 * what to write, setting *cells and their "$oldest_ts" for ROW_CHANGE_STORE.
 * It may run more than once (again after a concurrent writer), and may
 * raise errors.
 */
typedef RowChange (*RowWriteDecide) (RowWrite *w, const CellsReader *old, bool exists,
									 struct varlena **cells, int64 *oldest_ts);

/* one kind of single-row write */
struct RowWriteOp
{
	const char *operation;		/* "ots.put_row", for read-only errors */
	const char *request;		/* "PutRow", for request errors */
	AclMode		mode;			/* privileges on the storage */
	/* validates the arguments after the key, in Tablestore's order; sets reads */
	void		(*parse) (RowWrite *w);
	RowWriteDecide decide;
	/* sets the capacity units; returns the rows written, for the statistics */
	int			(*account) (const RowWrite *w, bool found, Consumed *consumed);
};

/* row_write_parse_condition reads the condition, column_condition and return_type arguments */
extern void row_write_parse_condition(RowWrite *w);

/* row_write_has_conditions: does the write check the row's existence or a column condition? */
extern bool row_write_has_conditions(const RowWrite *w);

/*
 * row_write_check_size applies the 4 MB request limit to a single-row
 * write: its key, puts with their typed cells, increments and deletes
 */
extern void row_write_check_size(const RowWrite *w, Jsonb *puts, const CellInput *typed,
								 int ntyped, Jsonb *increments, Jsonb *deletes);

/* row_write_has_auto_increment: does the pk carry the AUTO_INCREMENT placeholder? */
extern bool row_write_has_auto_increment(const RowWrite *w);

/* row_write_check_auto_increment applies Tablestore's rules for writes that generate a key */
extern void row_write_check_auto_increment(const RowWrite *w);

/*
 * row_write_check_timestamps rejects the whole write when an explicit cell
 * timestamp lies outside [max(now - max_version_offset, now - TTL),
 * now + max_version_offset).
 */
extern void row_write_check_timestamps(const OtsTable *t, int64 now_ms,
									   const CellInput *cells, int n);

/*
 * row_write_put_cells encodes the cells of a PutRow: cells without a
 * timestamp get stamp, and each column keeps its newest max_versions;
 * *oldest_ts gets the encoded row's "$oldest_ts".
 */
extern struct varlena *row_write_put_cells(const OtsTable *t, const CellInput *cells, int n,
										   int64 stamp, int64 *oldest_ts);

/* row_write_cells_size: written data size of cells (names + values), for capacity units */
extern uint32 row_write_cells_size(const CellInput *cells, int n);

/* row_write_finish encodes the row a write stores (max_versions kept) and its "$oldest_ts" */
extern struct varlena *row_write_finish(CellsBuilder *b, const OtsTable *t, int64 *oldest_ts);

/* row_write_after: the millisecond after ts, a server stamp (the timestamp error past the last) */
extern int64 row_write_after(int64 ts);

/* row_write_stamp: this write's server timestamp over the row version old */
extern int64 row_write_stamp(const RowWrite *w, const CellsReader *old);

/* row_write_run applies one single-row write of op's kind (row_write) */
extern void row_write_run(const RowWriteOp *op, const RowWriteRequest *req, RowResult *res);

#endif							/* OTS_ROW_WRITE_INTERNAL_H */
