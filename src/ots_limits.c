/*-------------------------------------------------------------------------
 * src/ots_limits.c
 *	  The SQL face of ots_limits.h: ots.limit, for the install script's
 *	  PL/pgSQL.
 *
 * SQL code (create_table, the table options' checks) needs the same limits
 * as C.  Rather than spell them again, it asks C for them by name, from the
 * table below, which the compiler fills from ots_limits.h, so a limit
 * changes in one place for both languages (the name rule likewise:
 * ots.check_column_name, src/format/names.c).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "ots_limits.h"

PG_FUNCTION_INFO_V1(ots_limit);

/* the limits SQL reads, by their ots_limits.h name without OTS_, lowercase */
static const struct
{
	const char *name;
	int64		value;
}			ots_limits[] =
{
	{"max_name_len", OTS_MAX_NAME_LEN},
	{"min_pk_columns", OTS_MIN_PK_COLUMNS},
	{"max_pk_columns", OTS_MAX_PK_COLUMNS},
	{"max_defined_columns", OTS_MAX_DEFINED_COLUMNS},
	{"max_indexes", OTS_MAX_INDEXES},
	{"max_index_pk_columns", OTS_MAX_INDEX_PK_COLUMNS},
	{"max_index_attr_columns", OTS_MAX_INDEX_ATTR_COLUMNS},
	{"max_time_to_live", OTS_MAX_TIME_TO_LIVE},
	{"max_version_offset", OTS_MAX_VERSION_OFFSET},
	{"max_hash_prefix_len", OTS_MAX_HASH_PREFIX_LEN},
	{"max_partitions", OTS_MAX_PARTITIONS},
	{"max_stream_expiration_hours", OTS_MAX_STREAM_EXPIRATION_HOURS},
	{"max_stream_original_columns", OTS_MAX_STREAM_ORIGINAL_COLUMNS},
	{"max_stream_original_bytes", OTS_MAX_STREAM_ORIGINAL_BYTES},
	{"max_range_rows", OTS_MAX_RANGE_ROWS},	/* ots_proxy's get_range merge caps its pages with the shards' own */
	{"max_range_bytes", OTS_MAX_RANGE_BYTES},
	{"max_search_indexes", OTS_MAX_SEARCH_INDEXES},
	{"min_search_time_to_live", OTS_MIN_SEARCH_TIME_TO_LIVE},
};

/*
 * ots_limit is ots.limit(name): the value of the limit OTS_<NAME> of
 * ots_limits.h; an unknown name is an error.
 */
Datum
ots_limit(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));

	for (int i = 0; i < lengthof(ots_limits); i++)
		if (strcmp(ots_limits[i].name, name) == 0)
			PG_RETURN_INT64(ots_limits[i].value);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown ots limit \"%s\"", name)));
	PG_RETURN_NULL();			/* keep compiler quiet */
}

