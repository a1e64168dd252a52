/*-------------------------------------------------------------------------
 * src/writepoint/chunk_first.h
 *	  A split row copied by plain SQL, chunks first (src/writepoint/chunk_first.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_CHUNK_FIRST_H
#define OTS_CHUNK_FIRST_H

#include "postgres.h"

#include "executor/tuptable.h"
#include "utils/relcache.h"

#include "meta/catalog.h"

/*
 * chunk_first_allowed: may plain SQL insert a chunk of t's row pk into t's
 * chunk relation (t has indexes, defined columns or a stream)?  Yes when
 * no row of that key is stored: the transaction must then store the row's
 * head, by plain SQL, before it commits.
 */
extern bool chunk_first_allowed(const OtsTable *t, const PkInput *pk);

/*
 * chunk_first_waiting: did plain SQL bring chunks of t's row pk in this
 * transaction, which only a head plain SQL inserts may take (ots's row
 * code would store the row over them, and its indexes and stream would
 * miss their cells)?
 */
extern bool chunk_first_waiting(const OtsTable *t, const PkInput *pk);

/* chunk_first_any: are chunks of any row waiting for their head in this transaction? */
extern bool chunk_first_any(void);

#endif							/* OTS_CHUNK_FIRST_H */
