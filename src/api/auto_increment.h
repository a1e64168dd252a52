/*-------------------------------------------------------------------------
 * src/api/auto_increment.h
 *	  Generated values of an AUTO_INCREMENT key column: taken from the
 *	  table's sequence, and past the stored rows of the partition key when
 *	  the sequence is behind them.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_AUTO_INCREMENT_H
#define OTS_AUTO_INCREMENT_H

#include "postgres.h"

#include "meta/catalog.h"
#include "format/codec.h"

/* auto_increment_next: a new value of t's AUTO_INCREMENT column (its sequence's next) */
extern int64 auto_increment_next(const OtsTable *t);

/*
 * auto_increment_past: the generated key pk is a stored row's: a value past
 * every one stored under pk's leading key columns (t's sequence is left
 * alone); OTSDataOutOfRange when the largest Integer is stored there
 */
extern int64 auto_increment_past(const OtsTable *t, const PkInput *pk);

#endif							/* OTS_AUTO_INCREMENT_H */
