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
 * chunk relation (t has indexes or defined columns)?  Yes when no row of
 * that key is stored: the transaction must then store the row's head
 * before it commits.
 */
extern bool chunk_first_allowed(const OtsTable *t, const PkInput *pk);

#endif							/* OTS_CHUNK_FIRST_H */
