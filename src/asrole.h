/*-------------------------------------------------------------------------
 * src/asrole.h
 *	  Running code as another role (a table's owner, the owner of ots's
 *	  catalog) safely: the one place that switches the user id.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ASROLE_H
#define OTS_ASROLE_H

#include "postgres.h"

/* what asrole_enter saved, for asrole_leave */
typedef struct AsRole
{
	Oid			save_userid;
	int			save_sec_context;
	int			save_nestlevel; /* the GUC nest level asrole_leave closes */
} AsRole;

extern void asrole_enter(Oid role, AsRole *saved);
extern void asrole_leave(const AsRole *saved);
extern Oid	asrole_owner(Oid relid);
extern Oid	asrole_catalog_owner(void);

#endif							/* OTS_ASROLE_H */
