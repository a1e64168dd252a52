/*-------------------------------------------------------------------------
 * src/subxact.h
 *	  Running a piece of work in its own subtransaction, as a PL/pgSQL
 *	  EXCEPTION block does: batches use it so one row's error undoes only
 *	  that row.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_SUBXACT_H
#define OTS_SUBXACT_H

#include "postgres.h"

/* work to run: returns true to keep its effects, false to undo them */
typedef bool (*SubxactWork) (void *arg);

/*
 * subxact_run runs work(arg) in a subtransaction and commits or rolls it
 * back as work says.  When work raises an error, the subtransaction is
 * rolled back and the error is returned if catch(sqlerrcode) accepts it,
 * re-raised otherwise.  Returns NULL when work returned normally.  Memory
 * allocated by work in the caller's context survives either way.
 */
extern ErrorData *subxact_run(SubxactWork work, void *arg, bool (*catch) (int sqlerrcode),
							  bool *kept);

/* subxact_catch_ots accepts the errors with an OTS error code */
extern bool subxact_catch_ots(int sqlerrcode);

#endif							/* OTS_SUBXACT_H */
