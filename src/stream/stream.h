/*-------------------------------------------------------------------------
 * src/stream/stream.h
 *	  Stream: Tablestore's change data capture.  Every change of a row of a
 *	  table with a stream becomes a record (PUT_ROW, UPDATE_ROW, DELETE_ROW
 *	  with its column operations) at the write point, in the writing
 *	  transaction; at commit each shard the transaction wrote gets its
 *	  place in the shard's commit order.  Consumers read the records shard
 *	  by shard with iterators (stream_read.c), or through logical decoding.
 *
 * How the records are stored and ordered is stream_storage.h's.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_STREAM_H
#define OTS_STREAM_H

#include "postgres.h"

#include "meta/catalog.h"
#include "format/codec.h"

/* what a record says happened to its row (Tablestore's action types) */
typedef enum StreamAction
{
	STREAM_PUT_ROW = 'P',
	STREAM_UPDATE_ROW = 'U',
	STREAM_DELETE_ROW = 'D'
} StreamAction;

/* one DELETE_ONE_VERSION operation of an UpdateRow */
typedef struct VersionDelete
{
	const char *name;
	uint32		namelen;
	int64		ts;
} VersionDelete;

/*
 * the column operations of an UpdateRow as its request wrote them, in the
 * order they apply: delete_all, delete one version, put (cells without a
 * timestamp get stamp), increment (its new value is the row's)
 */
typedef struct StreamUpdateOps
{
	const char **delete_all;
	int			ndelete_all;
	const VersionDelete *deletes;
	int			ndeletes;
	const CellInput *puts;
	int			nputs;
	const CellInput *increments;
	int			nincrements;
	int64		stamp;
} StreamUpdateOps;

/*
 * What ots's row code says a row write of its own is, announced with it to
 * the write point: without it, an insert is a PUT_ROW, a delete a
 * DELETE_ROW, and an update an UPDATE_ROW of what changed.
 */
typedef struct StreamChange
{
	StreamAction action;
	const StreamUpdateOps *update;	/* UPDATE_ROW: the operations */
} StreamChange;

struct StorageWrite;

extern void stream_init(void);

/*
 * stream_write_change records a change the write point saw of a table with
 * a stream, whose leaf keeps the stored key columns at key_attnos
 */
extern void stream_write_change(const struct StorageWrite *w, const AttrNumber *key_attnos);

#endif							/* OTS_STREAM_H */
