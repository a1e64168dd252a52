/*-------------------------------------------------------------------------
 * src/restore.h
 *	  What ots knows of restores (src/restore.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_RESTORE_H
#define OTS_RESTORE_H

/*
 * restore_running_dump: does this session run a dump's script (pg_restore,
 * psql running pg_dump's output), as pg_dump's preamble sets it up?
 */
extern bool restore_running_dump(void);

extern void restore_init(void);

#endif							/* OTS_RESTORE_H */
