/*-------------------------------------------------------------------------
 * src/writepoint/restore.h
 *	  What ots knows of restores (src/writepoint/restore.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_RESTORE_H
#define OTS_RESTORE_H

/*
 * restore_running_dump: does this session run a dump's script (pg_restore,
 * psql running pg_dump's output), as pg_dump's preamble sets it up?
 */
extern bool restore_running_dump(void);

/*
 * restore_loading: are the rows being written now into relation relid
 * loaded by a statement of a dump's script, run as a role that may act as
 * the relation's owner?
 */
extern bool restore_loading(Oid relid);

/*
 * restore_cleaning: is leaf a partition of ots storage (or a chunk
 * relation) whose primary key this session's dump script dropped
 * (pg_restore --clean, before it drops the relation and then its table)?
 */
extern bool restore_cleaning(Oid leaf);

/*
 * restore_note_key_dropped: a dump's script dropped the primary key of
 * relid, a leaf or chunk relation (restore_utility.c)
 */
extern void restore_note_key_dropped(Oid relid);

#endif							/* OTS_RESTORE_H */
