/*-------------------------------------------------------------------------
 * src/admin/upgrade.c
 *	  What ots's upgrade scripts (sql/upgrade/) need from C: reading a
 *	  table as its owner.
 *
 * ALTER EXTENSION ots UPDATE runs as a superuser, and the tables an
 * upgrade script reads carry their owners' code: the planner evaluates
 * an index's expressions and predicate, a partition's CHECK constraints
 * and extended statistics' expressions when they are immutable calls of
 * constants, whoever plans the query.  So a script never plans a query on
 * a table as itself: ots.upgrade_count_as_owner runs it as the table's
 * owner, in a security-restricted operation (asrole), with GUC changes
 * undone afterwards, as PostgreSQL's own maintenance commands run index
 * code.  A script creates the SQL function for its run and drops it at
 * its end (docs/development.md, Releases); the C symbol stays for every
 * script that names it.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "asrole.h"

PG_FUNCTION_INFO_V1(ots_upgrade_count_as_owner);

/*
 * ots_upgrade_count_as_owner is ots.upgrade_count_as_owner(relation,
 * query): the one bigint that query (a read-only statement returning at
 * most one row of one bigint column) returns when run as the owner of
 * relation, in a security-restricted operation with search_path pinned to
 * pg_catalog, ots; NULL for no row.  Settings the query's code changes are
 * undone when it ends.  The caller must have the privileges of that owner,
 * so the query never runs with rights its caller lacks.
 */
Datum
ots_upgrade_count_as_owner(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(1));
	Oid			owner = asrole_owner(relid);
	AsRole		saved;
	int			ret;
	bool		isnull = true;
	int64		count = 0;

	if (!OidIsValid(owner))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (!has_privs_of_role(GetUserId(), owner))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must have the privileges of the owner of relation %s",
						quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
												   get_rel_name(relid)))));

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	asrole_enter(owner, &saved);
	ret = SPI_execute(query, true, 2);
	if (ret != SPI_OK_SELECT || SPI_processed > 1 || SPI_tuptable->tupdesc->natts != 1 ||
		SPI_gettypeid(SPI_tuptable->tupdesc, 1) != INT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ots.upgrade_count_as_owner needs a query that returns at most one bigint")));
	if (SPI_processed == 1)
		count = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	asrole_leave(&saved);
	SPI_finish();

	if (isnull)
		PG_RETURN_NULL();
	PG_RETURN_INT64(count);
}
