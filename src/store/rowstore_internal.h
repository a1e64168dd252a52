/*-------------------------------------------------------------------------
 * src/store/rowstore_internal.h
 *	  What rowstore.c (one row) and rowstore_bulk.c (many rows) share: the
 *	  per-leaf cache and direct access to a leaf's columns and indexes.
 *	  Only those two files include it.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ROWSTORE_INTERNAL_H
#define OTS_ROWSTORE_INTERNAL_H

#include "postgres.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "utils/rel.h"

#include "asrole.h"
#include "store/rowstore.h"

/* what rowstore knows of one leaf partition, per backend */
typedef struct LeafCache
{
	Oid			leaf_oid;		/* hash key */
	/* the leaf's attribute numbers, for direct access; cells_attno 0 = not looked up */
	AttrNumber	cells_attno;
	AttrNumber	oldest_attno;
	AttrNumber	key_attnos[OTS_MAX_KEY_COLUMNS + 1];
	/* the last insert of a key not known to be new found it existing */
	bool		keys_exist;
	/* the leaf's indexes and their IndexInfo, built once (rowstore_open_indexes) */
	MemoryContext index_cxt;
	List	   *index_oids;
	IndexInfo **index_info;
	bool		index_info_shared;	/* false: an index keeps per-call state in it */
} LeafCache;

/* rowstore_leaf: the leaf's cache entry, created empty */
extern LeafCache *rowstore_leaf(Oid leaf_oid);

/* rowstore_attnums looks up, once per leaf, where its columns are */
extern void rowstore_attnums(const OtsTable *t, Oid leaf_oid, LeafCache *lp);

/* rowstore_open_indexes and rowstore_close_indexes: the leaf's indexes in rri, as ExecOpenIndices does */
extern void rowstore_open_indexes(Relation leaf, LeafCache *lp, ResultRelInfo *rri);
extern void rowstore_close_indexes(ResultRelInfo *rri);

/* rowstore_index_code_begin/end: run the code of the leaf's indexes as the table's owner */
extern bool rowstore_index_code_begin(const OtsTable *t, const LeafCache *lp, AsRole *saved);
extern void rowstore_index_code_end(bool switched, const AsRole *saved);

/* rowstore_key_slot: a virtual slot of the leaf holding a new row version */
extern TupleTableSlot *rowstore_key_slot(Relation leaf, const LeafCache *lp, int nkeys,
										 const Datum *key, TupleTableSlot *base,
										 struct varlena *cells, int64 oldest_ts);
/* rowstore_fill_slot: the same stored in a virtual slot of the leaf the caller made */
extern TupleTableSlot *rowstore_fill_slot(TupleTableSlot *slot, const LeafCache *lp, int nkeys,
										  const Datum *key, TupleTableSlot *base,
										  struct varlena *cells, int64 oldest_ts);

#endif							/* OTS_ROWSTORE_INTERNAL_H */
