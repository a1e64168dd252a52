/*-------------------------------------------------------------------------
 * src/search/date.h
 *	  The DATE fields of a search index: their formats, read and checked,
 *	  and a cell's value as nanoseconds since 1970-01-01 UTC (date.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_SEARCH_DATE_H
#define OTS_SEARCH_DATE_H

#include "postgres.h"

#include "search/schema.h"

/*
 * search_date_format_read reads one of a DATE field's formats (field: its
 * path, for the error): epoch_second, epoch_millis, epoch_micros,
 * epoch_nanos, or a pattern of y M d H m s S (fraction) X (zone) and
 * literals ('quoted', or any other character but a letter);
 * OTSParameterInvalid for anything else
 */
extern void search_date_format_read(const char *format, const char *field, SearchDateFormat *out);

/* search_date_format_name: the format as given */
extern const char *search_date_format_name(const SearchDateFormat *f);

/*
 * search_date_parse: the instant a value in one of the formats means, in
 * nanoseconds since 1970-01-01 UTC; false when no format reads it or it is
 * outside [1970-01-01, 2262-04-11 23:47:16.854775807], Tablestore's DATE
 * range.  Integers take the epoch formats, strings the patterns.
 */
extern bool search_date_parse(int nformats, const SearchDateFormat *formats, bool is_integer,
							  int64 integer, const char *s, int len, int64 *ns);

/*
 * A unit of time of a DateTimeValue ({"value", "unit"}: a date histogram's
 * interval, a decay function's scale): a fixed length, or a number of
 * calendar months; search_date_unit finds one by name, NULL when none
 */
typedef struct SearchTimeUnit
{
	const char *name;
	int64		ms;				/* a fixed unit's length */
	int			months;			/* a calendar unit's months */
} SearchTimeUnit;

extern const SearchTimeUnit *search_time_unit(const char *name);

#endif							/* OTS_SEARCH_DATE_H */
