/*-------------------------------------------------------------------------
 * src/ddl/dropped.h
 *	  The owners of the relations a transaction dropped (src/ddl/dropped.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_DROPPED_H
#define OTS_DROPPED_H

extern void dropped_init(void);

#endif							/* OTS_DROPPED_H */
