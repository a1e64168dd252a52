/*-------------------------------------------------------------------------
 * src/stream/stream_record.h
 *	  A stream record's format (stream_record.c): made by the write point,
 *	  returned by readers and sent to logical decoding in Tablestore's shape.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_STREAM_RECORD_H
#define OTS_STREAM_RECORD_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "meta/catalog.h"
#include "format/cells.h"
#include "format/codec.h"
#include "stream/stream.h"

/* the key of a stored PUT_ROW's cells */
#define STREAM_RECORD_CELLS "$cells"
/* the key of a record's original columns (stream_record.c) */
#define STREAM_RECORD_ORIGINAL "original_columns"

/* stream_action_name: Tablestore's name of an action */
extern const char *stream_action_name(StreamAction action);

/*
 * stream_record_make makes the record of a change of a row (key pk) of t:
 * an UpdateRow's operations as written (ops), or the differences of its
 * cells before and after, or a PutRow's new cells (after, as read from
 * new_cells), with the original columns read from original (the row
 * before, its split row's columns loaded; NULL: it did not exist);
 * as_stored makes a PUT_ROW the stored form (its cells), else the record
 * is in Tablestore's shape
 */
extern Jsonb *stream_record_make(const OtsTable *t, const PkInput *pk, StreamAction action,
								 const StreamUpdateOps *ops, const CellsReader *before,
								 const CellsReader *original, const CellsReader *after,
								 const struct varlena *new_cells, bool as_stored);

/*
 * stream_record_push pushes a stored record's "action_type", "primary_key",
 * "columns" (made from its cells for a PUT_ROW) and "original_columns"
 * (when it has them) into an object being
 * built, whose values then point into record until the result is made;
 * returns about how many bytes they take in the result
 */
extern Size stream_record_push(JsonbParseState **state, JsonbContainer *record);

/*
 * stream_record_check raises data_corrupted naming the first way a stored
 * record of t is not what the write point stores, and reads its primary
 * key into pk (ots.verify)
 */
extern void stream_record_check(const OtsTable *t, Jsonb *record, PkInput *pk);

#endif							/* OTS_STREAM_RECORD_H */
