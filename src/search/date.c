/*-------------------------------------------------------------------------
 * src/search/date.c
 *	  The formats of a search index's DATE fields, and the instant a cell's
 *	  value means under them.
 *
 * Tablestore's DATE field takes an Integer column under an epoch format
 * (epoch_second, epoch_millis, epoch_micros, epoch_nanos) or a String
 * column under Java-style patterns such as "yyyy-MM-dd HH:mm:ss.SSS" and
 * keeps nanoseconds from 1970-01-01 to 2262-04-11 23:47:16.854775807 UTC.
 * ots reads the pattern letters y M d H m s S X and literals; a letter
 * repeated n times (n > 1) takes exactly n digits ("dd" refuses "6", as
 * Tablestore does), once, one or two (y: one to four); "yy" is 2000 to
 * 2099; S is the fraction, its count its digits; X is "Z", "+08", "+0800"
 * or "+08:00".  No zone means UTC.  A value no format reads is not kept:
 * the row stays in the index without it, as Tablestore keeps rows with a
 * field it calls dirty.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/int.h"

#include "errors.h"
#include "search/date.h"

static const struct
{
	const char *name;
	SearchDateUnit unit;
	int64		ns;				/* nanoseconds per unit */
}			epoch_units[] =
{
	{"epoch_second", SEARCH_EPOCH_SECOND, INT64CONST(1000000000)},
	{"epoch_millis", SEARCH_EPOCH_MILLIS, INT64CONST(1000000)},
	{"epoch_micros", SEARCH_EPOCH_MICROS, INT64CONST(1000)},
	{"epoch_nanos", SEARCH_EPOCH_NANOS, INT64CONST(1)},
};

#define DATE_LETTERS "yMdHmsSX"

void
search_date_format_read(const char *format, const char *field, SearchDateFormat *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < lengthof(epoch_units); i++)
		if (strcmp(format, epoch_units[i].name) == 0)
		{
			out->unit = epoch_units[i].unit;
			return;
		}
	if (*format == '\0')
		ots_parameter_invalid(psprintf("Invalid date format of field '%s': it is empty.", field),
							  "A date format is epoch_second, epoch_millis, epoch_micros, epoch_nanos or a pattern such as yyyy-MM-dd HH:mm:ss.SSS.");
	for (const char *p = format; *p != '\0'; p++)
	{
		if (*p == '\'')
		{
			const char *end = strchr(p + 1, '\'');

			if (end == NULL)
				ots_parameter_invalid(psprintf("Invalid date format of field '%s': '%s' has an unclosed quote.",
											   field, format),
									  "Quote literal letters: yyyy-MM-dd'T'HH:mm:ss.");
			p = end;
			continue;
		}
		if (((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) && strchr(DATE_LETTERS, *p) == NULL)
			ots_parameter_invalid(psprintf("Invalid date format of field '%s': ots does not read the letter '%c' of '%s'.",
										   field, *p, format),
								  "ots reads the pattern letters y, M, d, H, m, s, S (fraction) and X (zone); quote literal letters.");
		if (strchr(DATE_LETTERS, *p) != NULL && *p != '\0')
		{
			int			n = 1;

			while (p[n] == *p)
				n++;
			if (n > 9)
				ots_parameter_invalid(psprintf("Invalid date format of field '%s': the letter '%c' is repeated more than 9 times in '%s'.",
											   field, *p, format),
									  "A letter takes as many digits as it is repeated; a date keeps nanoseconds: S to SSSSSSSSS.");
			p += n - 1;
		}
	}
	out->unit = SEARCH_DATE_PATTERN;
	out->pattern = format;
}

const char *
search_date_format_name(const SearchDateFormat *f)
{
	for (int i = 0; i < lengthof(epoch_units); i++)
		if (epoch_units[i].unit == f->unit)
			return epoch_units[i].name;
	return f->pattern;
}

/* days_from_civil: days since 1970-01-01 of a proleptic Gregorian date */
static int64
days_from_civil(int64 y, int m, int d)
{
	int64		era;
	int64		yoe;
	int64		doy;
	int64		doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int
days_in_month(int64 y, int m)
{
	static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return days[m - 1];
}

/* read_digits: between min and max digits at *s (len left), their value */
static bool
read_digits(const char **s, int *len, int min, int max, int64 *out)
{
	int			n = 0;

	*out = 0;
	while (n < max && n < *len && (*s)[n] >= '0' && (*s)[n] <= '9')
	{
		*out = *out * 10 + ((*s)[n] - '0');
		n++;
	}
	if (n < min)
		return false;
	*s += n;
	*len -= n;
	return true;
}

/* parse_pattern: the instant s means under pattern, in nanoseconds (may be negative) */
static bool
parse_pattern(const char *pattern, const char *s, int len, int64 *ns)
{
	int64		year = 1970,
				month = 1,
				day = 1,
				hour = 0,
				minute = 0,
				second = 0,
				fraction = 0,
				zone_minutes = 0;
	int64		days;

	for (const char *p = pattern; *p != '\0'; p++)
	{
		int			count;
		int64		v;

		if (*p == '\'')
		{
			const char *end = strchr(p + 1, '\'');

			if (end == p + 1)
			{
				/* '' is a quote */
				if (len < 1 || *s != '\'')
					return false;
				s++, len--;
			}
			else
			{
				int			n = end - p - 1;

				if (len < n || memcmp(s, p + 1, n) != 0)
					return false;
				s += n, len -= n;
			}
			p = end;
			continue;
		}
		if (strchr(DATE_LETTERS, *p) == NULL)
		{
			if (len < 1 || *s != *p)
				return false;
			s++, len--;
			continue;
		}
		for (count = 1; p[count] == *p; count++)
			;
		switch (*p)
		{
			case 'y':
				if (!read_digits(&s, &len, count > 1 ? count : 1, count > 1 ? count : 4, &v))
					return false;
				year = count == 2 ? 2000 + v : v;
				break;
			case 'S':
				if (!read_digits(&s, &len, count, count, &v))
					return false;
				fraction = v;
				for (int i = count; i < 9; i++)
					fraction *= 10;
				break;
			case 'X':
				if (len >= 1 && *s == 'Z')
				{
					s++, len--;
					break;
				}
				else
				{
					int			sign;
					int64		hh;
					int64		mm = 0;

					if (len < 1 || (*s != '+' && *s != '-'))
						return false;
					sign = *s == '-' ? -1 : 1;
					s++, len--;
					if (!read_digits(&s, &len, 2, 2, &hh) || hh > 18)
						return false;
					if (len >= 1 && *s == ':')
					{
						s++, len--;
						if (!read_digits(&s, &len, 2, 2, &mm))
							return false;
					}
					else if (len >= 2 && s[0] >= '0' && s[0] <= '9')
					{
						if (!read_digits(&s, &len, 2, 2, &mm))
							return false;
					}
					if (mm > 59)
						return false;
					zone_minutes = sign * (hh * 60 + mm);
				}
				break;
			default:
				if (!read_digits(&s, &len, count > 1 ? count : 1, count > 1 ? count : 2, &v))
					return false;
				if (*p == 'M')
					month = v;
				else if (*p == 'd')
					day = v;
				else if (*p == 'H')
					hour = v;
				else if (*p == 'm')
					minute = v;
				else
					second = v;
				break;
		}
		p += count - 1;
	}
	if (len != 0)
		return false;
	if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) ||
		hour > 23 || minute > 59 || second > 59 || year > 2262)
		return false;
	days = days_from_civil(year, month, day);
	/* years up to 2262 keep this far inside int64 before the range check */
	*ns = ((days * 24 + hour) * 60 + minute - zone_minutes) * 60 + second;
	if (pg_mul_s64_overflow(*ns, INT64CONST(1000000000), ns) || pg_add_s64_overflow(*ns, fraction, ns))
		return false;
	return true;
}

bool
search_date_parse(int nformats, const SearchDateFormat *formats, bool is_integer, int64 integer,
				  const char *s, int len, int64 *ns)
{
	for (int i = 0; i < nformats; i++)
	{
		const SearchDateFormat *f = &formats[i];

		if (is_integer && f->unit != SEARCH_DATE_PATTERN)
		{
			for (int u = 0; u < lengthof(epoch_units); u++)
				if (epoch_units[u].unit == f->unit &&
					!pg_mul_s64_overflow(integer, epoch_units[u].ns, ns) && *ns >= 0)
					return true;
		}
		else if (!is_integer && f->unit == SEARCH_DATE_PATTERN &&
				 parse_pattern(f->pattern, s, len, ns) && *ns >= 0)
			return true;
	}
	return false;
}

static const SearchTimeUnit date_units[] = {
	{"YEAR", 0, 12}, {"QUARTER_YEAR", 0, 3}, {"MONTH", 0, 1},
	{"WEEK", 7 * 86400000L, 0}, {"DAY", 86400000L, 0}, {"HOUR", 3600000L, 0},
	{"MINUTE", 60000L, 0}, {"SECOND", 1000L, 0}, {"MILLISECOND", 1L, 0}};

const SearchTimeUnit *
search_time_unit(const char *name)
{
	for (int i = 0; i < lengthof(date_units); i++)
		if (strcmp(date_units[i].name, name) == 0)
			return &date_units[i];
	return NULL;
}
