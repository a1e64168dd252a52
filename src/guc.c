/*-------------------------------------------------------------------------
 * src/guc.c
 *	  Defines every ots.* configuration parameter, alphabetically, and
 *	  reserves the "ots." prefix.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"
#include "utils/guc.h"

#include "guc.h"

void
guc_init(void)
{
	MarkGUCPrefixReserved("ots");
}
