/*-------------------------------------------------------------------------
 * src/utility_hook.h
 *	  What each of ots's ProcessUtility hooks (view/view_copy.c,
 *	  ddl/restore_utility.c) does with a statement it passes on.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_UTILITY_HOOK_H
#define OTS_UTILITY_HOOK_H

#include "tcop/utility.h"

/* utility_hook_next runs the ProcessUtility a hook wraps: prev, or PostgreSQL's own */
static inline void
utility_hook_next(ProcessUtility_hook_type prev, PlannedStmt *pstmt, const char *queryString,
				  bool readOnlyTree, ProcessUtilityContext context, ParamListInfo params,
				  QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	if (prev)
		prev(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv,
								dest, qc);
}

#endif							/* OTS_UTILITY_HOOK_H */
