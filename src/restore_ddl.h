/*-------------------------------------------------------------------------
 * src/restore_ddl.h
 *	  The statements of a restore over ots tables that ots answers itself
 *	  (src/restore_ddl.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_RESTORE_DDL_H
#define OTS_RESTORE_DDL_H

extern void restore_ddl_init(void);

#endif							/* OTS_RESTORE_DDL_H */
