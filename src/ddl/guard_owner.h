/*-------------------------------------------------------------------------
 * src/ddl/guard_owner.h
 *	  OWNER TO on the parts of an ots table (src/ddl/guard_owner.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_GUARD_OWNER_H
#define OTS_GUARD_OWNER_H

#include "postgres.h"

#include "nodes/parsenodes.h"

#include "ddl/guard.h"

/*
 * guard_owner_change: OWNER TO on the storage carries its parts along; on a
 * part alone it may only give the storage's owner
 */
extern const char *guard_owner_change(AlterTableCmd *cmd, Oid relid, GuardKind kind);

#endif							/* OTS_GUARD_OWNER_H */
