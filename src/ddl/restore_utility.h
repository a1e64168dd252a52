/*-------------------------------------------------------------------------
 * src/ddl/restore_utility.h
 *	  The statements of a dump's script that ots answers itself
 *	  (src/ddl/restore_utility.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_RESTORE_UTILITY_H
#define OTS_RESTORE_UTILITY_H

/* restore_utility_init installs the ProcessUtility hook; from _PG_init */
extern void restore_utility_init(void);

#endif							/* OTS_RESTORE_UTILITY_H */
