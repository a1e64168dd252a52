/*-------------------------------------------------------------------------
 * src/format/names.c
 *	  Tablestore's rule for table and column names: a letter or '_', then
 *	  letters, digits and '_', at most OTS_MAX_NAME_LEN bytes; a table name
 *	  also at most NAMES_MAX_TABLE_LEN, as it names PostgreSQL relations.
 *
 * The request parsers apply it to the names a request gives, the catalog
 * to the names ots.tables holds, and the install script's PL/pgSQL asks it
 * through ots.check_column_name, so SQL spells no name rule of its own.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"

#include "errors.h"
#include "format/names.h"
#include "ots_limits.h"

bool
names_valid(const char *name, int len, int maxlen)
{
	if (len < 1 || len > maxlen)
		return false;
	if (!((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z') ||
		  name[0] == '_'))
		return false;
	for (int i = 1; i < len; i++)
	{
		char		c = name[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			  (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

void
names_check_table(const char *name, int len)
{
	if (names_valid(name, len, OTS_MAX_NAME_LEN) && len > NAMES_MAX_TABLE_LEN)
		ereport(ERROR,
				(errcode(ERRCODE_OTS_PARAMETER_INVALID),
				 errmsg_internal("Invalid table name: '%s'.", pnstrdup(name, len)),
				 errdetail("ots table names are limited to %d bytes, as PostgreSQL names are.",
						   NAMES_MAX_TABLE_LEN)));
	if (!names_valid(name, len, OTS_MAX_NAME_LEN))
		ots_error(PARAMETER_INVALID, "Invalid table name: '%s'.", pnstrdup(name, len));
}

void
names_check_column(const char *name, int len)
{
	if (!names_valid(name, len, OTS_MAX_NAME_LEN))
		ots_error(PARAMETER_INVALID, "Invalid column name: '%s'.", pnstrdup(name, len));
}

PG_FUNCTION_INFO_V1(ots_check_column_name);

/*
 * ots_check_column_name is ots.check_column_name(name): raises
 * OTSParameterInvalid ("Invalid column name: '...'.") unless name follows
 * Tablestore's rule for column names.
 */
Datum
ots_check_column_name(PG_FUNCTION_ARGS)
{
	text	   *name = PG_GETARG_TEXT_PP(0);

	names_check_column(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name));
	PG_RETURN_VOID();
}
