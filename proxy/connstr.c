/*
 * connstr.c: the shard connstrs of the proxy's map, read with libpq's own
 * parser (PQconninfoParse), the one PL/Proxy's libpq applies to them.
 *
 * Every role that may call the ots API can read the map's connstrs:
 * PL/Proxy reads them as the calling role, through
 * plproxy.get_cluster_partitions (docs/cluster.md, Security).  So a
 * connstr may hold no secret and no user.  The secrets are the keywords
 * libpq itself marks as such (PQconninfoOption.dispchar "*": password and
 * sslpassword in libpq 15), asked of the libpq linked, so a keyword a
 * later libpq adds is refused too.  A user is refused because PL/Proxy
 * appends user=<calling role> only to a connstr without "user=" anywhere
 * in its text: with one, every call would connect as that user.  A URI is
 * refused because PL/Proxy appends key=value pairs to the string.
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "libpq-fe.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(ots_proxy_check_connstr);
PG_FUNCTION_INFO_V1(ots_proxy_connstr_sets);

/*
 * connstr_parse is PQconninfoParse of connstr, or an error with libpq's
 * reason; the caller frees the result with PQconninfoFree
 */
static PQconninfoOption *
connstr_parse(const char *connstr)
{
	char	   *err = NULL;
	PQconninfoOption *opts = PQconninfoParse(connstr, &err);
	char	   *reason;

	if (opts != NULL)
		return opts;
	reason = pstrdup(err != NULL ? err : "out of memory");
	if (err != NULL)
		PQfreemem(err);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid shard connstr: %s", pchomp(reason))));
	return NULL;
}

/* connstr_is_secret: does libpq mark this option as a secret? */
static bool
connstr_is_secret(const PQconninfoOption *o)
{
	return o->dispchar != NULL && strchr(o->dispchar, '*') != NULL;
}

/*
 * connstr_shown: the options a connstr sets, as key=value in libpq's
 * order (a value quoted where libpq needs it), each secret's value masked:
 * fit for a message
 */
static char *
connstr_shown(const PQconninfoOption *opts)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (const PQconninfoOption *o = opts; o->keyword != NULL; o++)
	{
		const char *v = connstr_is_secret(o) ? "********" : o->val;

		if (o->val == NULL)
			continue;
		appendStringInfo(&buf, "%s%s=", buf.len > 0 ? " " : "", o->keyword);
		if (*v != '\0' && strpbrk(v, " \t\n\r\f\v'\\") == NULL)
		{
			appendStringInfoString(&buf, v);
			continue;
		}
		appendStringInfoChar(&buf, '\'');
		for (; *v != '\0'; v++)
		{
			if (*v == '\'' || *v == '\\')
				appendStringInfoChar(&buf, '\\');
			appendStringInfoChar(&buf, *v);
		}
		appendStringInfoChar(&buf, '\'');
	}
	return buf.data;
}

/*
 * ots_proxy_check_connstr is ots_cluster.check_connstr(connstr): the
 * connstr when the map may hold it, else an error saying why (22004 for
 * NULL, 22023 otherwise; the connstr shown with its secrets masked).
 */
Datum
ots_proxy_check_connstr(PG_FUNCTION_ARGS)
{
	char	   *connstr;
	const char *start;
	PQconninfoOption *opts;
	StringInfoData secrets;
	bool		user = false;
	char	   *shown;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("a partition's connstr cannot be NULL")));
	connstr = text_to_cstring(PG_GETARG_TEXT_PP(0));
	for (start = connstr; *start == ' ' || *start == '\t' || *start == '\n' || *start == '\r'; start++)
		;
	if (pg_strncasecmp(start, "postgresql://", 13) == 0 || pg_strncasecmp(start, "postgres://", 11) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a shard connstr must be key=value pairs, not a URI"),
				 errdetail("PL/Proxy appends key=value pairs (user=, options=) to the connstr.")));

	opts = connstr_parse(connstr);
	initStringInfo(&secrets);
	for (const PQconninfoOption *o = opts; o->keyword != NULL; o++)
	{
		if (o->val == NULL)
			continue;
		if (connstr_is_secret(o))
			appendStringInfo(&secrets, "%s%s", secrets.len > 0 ? ", " : "", o->keyword);
		if (strcmp(o->keyword, "user") == 0)
			user = true;
	}
	shown = connstr_shown(opts);
	PQconninfoFree(opts);

	if (secrets.len > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a shard connstr cannot hold a secret (%s): %s", secrets.data, shown),
				 errdetail("Every role that calls the ots API can read the connstrs PL/Proxy connects with."),
				 errhint("Put the password in the ~/.pgpass of the proxy's server user (docs/cluster.md, Security).")));
	/* PL/Proxy's own test: "user=" anywhere, a value's text too */
	if (user || strstr(connstr, "user=") != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a shard connstr cannot name a user: %s", shown),
				 errdetail("PL/Proxy connects to the shards as the calling role; with a user in the connstr every call would connect as that user.")));
	PG_RETURN_TEXT_P(PG_GETARG_TEXT_PP(0));
}

/*
 * ots_proxy_connstr_sets is ots_cluster.connstr_sets(connstr, keyword):
 * whether the connstr gives that libpq keyword a value
 */
Datum
ots_proxy_connstr_sets(PG_FUNCTION_ARGS)
{
	char	   *keyword = text_to_cstring(PG_GETARG_TEXT_PP(1));
	PQconninfoOption *opts = connstr_parse(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	bool		sets = false;

	for (const PQconninfoOption *o = opts; o->keyword != NULL; o++)
		if (strcmp(o->keyword, keyword) == 0)
			sets = o->val != NULL;
	PQconninfoFree(opts);
	PG_RETURN_BOOL(sets);
}
