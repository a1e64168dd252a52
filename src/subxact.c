/*-------------------------------------------------------------------------
 * src/subxact.c
 *	  Runs work in a subtransaction and turns chosen errors into values.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "errors.h"
#include "subxact.h"

ErrorData *
subxact_run(SubxactWork work, void *arg, bool (*catch) (int sqlerrcode), bool *kept)
{
	MemoryContext callerctx = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	ErrorData  *volatile error = NULL;

	*kept = false;
	BeginInternalSubTransaction(NULL);
	/* work allocates its results in the caller's context, not the subtransaction's */
	MemoryContextSwitchTo(callerctx);
	PG_TRY();
	{
		bool		keep = work(arg);

		if (keep)
			ReleaseCurrentSubTransaction();
		else
			RollbackAndReleaseCurrentSubTransaction();
		*kept = keep;
		MemoryContextSwitchTo(callerctx);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(callerctx);
		error = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(callerctx);
		CurrentResourceOwner = owner;
		if (!catch(error->sqlerrcode))
			ReThrowError(error);
	}
	PG_END_TRY();
	return error;
}

bool
subxact_catch_ots(int sqlerrcode)
{
	return ots_error_code_name(sqlerrcode) != NULL;
}
