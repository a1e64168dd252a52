/*-------------------------------------------------------------------------
 * src/ddl/guard_access.h
 *	  A chunk relation's grants and row security are its storage's
 *	  (src/ddl/guard_access.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_GUARD_ACCESS_H
#define OTS_GUARD_ACCESS_H

#include "postgres.h"

#include "nodes/parsenodes.h"

/*
 * guard_access_check_grant: GRANT or REVOKE may not name a chunk relation
 * (its privileges are its storage's), but in a dump's script
 */
extern void guard_access_check_grant(GrantStmt *stmt);

/* guard_access_differs: are chunk's privileges or row security not storage's? (ots.verify) */
extern bool guard_access_differs(Oid storage, Oid chunk);

#endif							/* OTS_GUARD_ACCESS_H */
