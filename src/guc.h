/*-------------------------------------------------------------------------
 * src/guc.h
 *	  ots.* configuration parameters.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_GUC_H
#define OTS_GUC_H

extern void guc_init(void);

#endif							/* OTS_GUC_H */
