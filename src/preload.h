/*-------------------------------------------------------------------------
 * src/preload.h
 *	  ots needs shared_preload_libraries: whether it was loaded so, and the
 *	  refusal of what needs it.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_PRELOAD_H
#define OTS_PRELOAD_H

/* preload_init records how ots is being loaded; first thing in _PG_init */
extern void preload_init(void);

/* preload_require raises the refusal (detail: what needed it) unless ots was preloaded */
extern void preload_require(const char *detail);

/* the detail of a write through a view refused */
#define PRELOAD_VIEW_WRITE_DETAIL \
	"A write through an ots table's view needs ots's planner and executor hooks from a " \
	"session's first statement, and this server did not load ots at its start."

#endif							/* OTS_PRELOAD_H */
