/*
 * range_key.h: ots's stored key order in the proxy (ots_proxy.so), over
 * the rows of get_range pages as the shards send them (jsonb).
 * range_key.c owns it; range_rows.c and range_merge.c merge with it.
 */
#ifndef OTS_PROXY_RANGE_KEY_H
#define OTS_PROXY_RANGE_KEY_H

#include "postgres.h"

#include "access/htup.h"
#include "utils/jsonb.h"

/* the key columns of a table, from an ots_cluster.table_entry */
typedef struct RangeKeyDef
{
	int			ncols;
	char	  **names;			/* key column names, in order */
	int		   *namelens;
	char	   *types;			/* 'S' String, 'I' Integer, 'B' Binary */
	int			hash_prefix;	/* hex digits of MD5 stored first; 0: none */
	bool		backward;		/* BACKWARD: the order reversed */
} RangeKeyDef;

/* one key column's value, typed as ots stores it */
typedef struct RangeKeyValue
{
	int64		i;				/* Integer */
	const char *s;				/* String or Binary bytes */
	int			len;
} RangeKeyValue;

/* a row of a page: the row's jsonb and its key, parsed once */
typedef struct RangeRow
{
	JsonbValue	row;			/* {primary_key, attributes}, in its page */
	JsonbValue	pk;				/* its primary_key */
	JsonbValue	attrs;			/* its attributes */
	bool		has_pk;			/* (SQL NULL when absent) */
	bool		has_attrs;
	int64		prefix;			/* the hash prefix as ots stores it */
	RangeKeyValue *v;			/* one per key column */
} RangeRow;

extern void range_key_def(RangeKeyDef *def, HeapTupleHeader table, bool backward);
extern void range_key_parse(const RangeKeyDef *def, JsonbContainer *pk, RangeRow *r);
extern int	range_key_cmp(const RangeKeyDef *def, const RangeRow *a, const RangeRow *b);
extern RangeRow *range_page_rows(const RangeKeyDef *def, Jsonb *page, int *nrows);
extern int64 range_row_size(const RangeKeyDef *def, const RangeRow *r);
extern bool range_is_upper(text *direction, const char *word);

#endif
