/*-------------------------------------------------------------------------
 * src/view/view_write.h
 *	  Writes through an ots table's view: the INSTEAD OF trigger
 *	  (view_write.c), what it learns of its statement (view_statement.c)
 *	  and COPY's batches (view_copy.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_VIEW_WRITE_H
#define OTS_VIEW_WRITE_H

#include "postgres.h"
#include "nodes/nodes.h"
#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"
#include "utils/jsonb.h"

#include "format/codec.h"

/* a ModifyTable on a view of a running statement, as the trigger needs it */
typedef struct ViewStatement
{
	struct ViewStatement *next;
	void	   *estate;			/* the statement's EState; NULL: a COPY */
	Oid			view_oid;
	CmdType		operation;
	bool		returning;
	OnConflictAction on_conflict;
	List	   *merge_attnos;	/* ON CONFLICT DO UPDATE: the columns SET */
	Oid			checked_role;	/* the role whose privileges on the storage it checked */
	AclMode		checked;		/* those privileges; 0: none (EXPLAIN, not an ots view) */
} ViewStatement;

/*
 * view_statement_find: the innermost running statement writing view_oid
 * with operation, or NULL when the innermost write is a COPY (plain INSERT
 * semantics)
 */
extern ViewStatement *view_statement_find(Oid view_oid, CmdType operation);

/* view_statement_copy_begin/end bracket a COPY FROM (view_copy.c) */
extern void view_statement_copy_begin(ViewStatement *marker);
extern void view_statement_copy_end(ViewStatement *marker);

/* view_copy_active: a COPY FROM runs, whose rows into views go in batches */
extern bool view_copy_active(void);

/*
 * view_copy_hold keeps one row of a COPY into a view: its PutRow's key as
 * values (npk: the table's key columns), its typed cells and its
 * attributes map (NULL: none)
 */
extern void view_copy_hold(Oid view_oid, int npk, const PkInput *key, const CellInput *cells,
						   int ncells, Jsonb *attributes);

/* the hooks: the executor's (view_statement.c) and ProcessUtility (view_copy.c) */
extern void view_statement_init(void);
extern void view_copy_init(void);

#endif							/* OTS_VIEW_WRITE_H */
