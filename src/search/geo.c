/*-------------------------------------------------------------------------
 * src/search/geo.c
 *	  GEO_POINT fields: a point's text ("latitude,longitude"), the
 *	  great-circle distance between two points, and the box a circle fits
 *	  in, which finds a geo_distance_query's candidates through the field's
 *	  GiST index before the distance decides.
 *
 * Distances are haversine on a sphere of radius 6,371,008.7714 m (the
 * Earth's mean radius, as Tablestore's engine uses).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/float.h"

#include "search/geo.h"

#define EARTH_RADIUS_M 6371008.7714

PG_FUNCTION_INFO_V1(ots_search_geo_distance);
PG_FUNCTION_INFO_V1(ots_search_geohash);

/* geo_number: a decimal number, spaces around it allowed; false if s is none or not finite */
static bool
geo_number(const char *s, double *out)
{
	char	   *end;

	while (*s == ' ')
		s++;
	if (*s == '\0')
		return false;
	errno = 0;
	*out = strtod(s, &end);
	if (end == s || errno != 0 || isnan(*out) || isinf(*out))
		return false;
	while (*end == ' ')
		end++;
	return *end == '\0';
}

bool
search_geo_point(const char *s, int len, Point *p)
{
	char	   *str;
	char	   *comma;
	double		lat;
	double		lon;

	if (memchr(s, '\0', len) != NULL)
		return false;
	str = pnstrdup(s, len);
	comma = strchr(str, ',');
	if (comma == NULL || strpbrk(str, "xXpPiInN") != NULL)
		return false;			/* no hex floats, infinities or NaNs */
	*comma = '\0';
	if (!geo_number(str, &lat) || !geo_number(comma + 1, &lon) ||
		lat < -90 || lat > 90 || lon < -180 || lon > 180)
		return false;
	p->x = lon;
	p->y = lat;
	return true;
}

double
search_geo_meters(const Point *a, const Point *b)
{
	double		lat1 = a->y * M_PI / 180;
	double		lat2 = b->y * M_PI / 180;
	double		dlat = lat2 - lat1;
	double		dlon = (b->x - a->x) * M_PI / 180;
	double		h = sin(dlat / 2) * sin(dlat / 2) + cos(lat1) * cos(lat2) * sin(dlon / 2) * sin(dlon / 2);

	return 2 * EARTH_RADIUS_M * asin(Min(1.0, sqrt(h)));
}

void
search_geo_box(const Point *center, double meters, BOX *box)
{
	double		dlat = meters / EARTH_RADIUS_M * 180 / M_PI;
	double		south = center->y - dlat;
	double		north = center->y + dlat;
	double		coslat = Min(cos(south * M_PI / 180), cos(north * M_PI / 180));
	double		dlon;

	box->low.y = Max(-90, south);
	box->high.y = Min(90, north);
	/* near a pole, or wider than the globe: every longitude */
	if (south <= -90 || north >= 90 || coslat <= 0 ||
		(dlon = meters / (EARTH_RADIUS_M * coslat) * 180 / M_PI) >= 180 ||
		center->x - dlon < -180 || center->x + dlon > 180)
	{
		box->low.x = -180;
		box->high.x = 180;
		return;
	}
	/* a small margin: the box only finds candidates, the distance decides */
	box->low.x = center->x - dlon * 1.0001;
	box->high.x = center->x + dlon * 1.0001;
	box->low.y = Max(-90, south - dlat * 0.0001);
	box->high.y = Min(90, north + dlat * 0.0001);
}

/*
 * ots_search_geo_distance is ots.search_geo_distance(a point, b point):
 * the great-circle distance in meters between two points kept as a search
 * index keeps them (x longitude, y latitude)
 */
Datum
ots_search_geo_distance(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(search_geo_meters(PG_GETARG_POINT_P(0), PG_GETARG_POINT_P(1)));
}

/* the geohash alphabet: base 32 without a, i, l, o */
static const char geohash_digits[] = "0123456789bcdefghjkmnpqrstuvwxyz";

void
search_geohash(const Point *p, int precision, char *out)
{
	double		lat[2] = {-90, 90};
	double		lon[2] = {-180, 180};
	bool		even = true;	/* bits alternate, longitude first */
	int			bit = 0;
	int			digit = 0;
	int			n = 0;

	Assert(precision >= 1 && precision <= SEARCH_GEOHASH_MAX);
	while (n < precision)
	{
		double	   *range = even ? lon : lat;
		double		v = even ? p->x : p->y;
		double		mid = (range[0] + range[1]) / 2;

		digit <<= 1;
		if (v >= mid)
		{
			digit |= 1;
			range[0] = mid;
		}
		else
			range[1] = mid;
		even = !even;
		if (++bit == 5)
		{
			out[n++] = geohash_digits[digit];
			bit = 0;
			digit = 0;
		}
	}
	out[n] = '\0';
}

bool
search_geohash_box(const char *hash, BOX *box)
{
	double		lat[2] = {-90, 90};
	double		lon[2] = {-180, 180};
	bool		even = true;

	if (*hash == '\0' || strlen(hash) > SEARCH_GEOHASH_MAX)
		return false;
	for (const char *c = hash; *c; c++)
	{
		const char *d = strchr(geohash_digits, *c);

		if (d == NULL)
			return false;
		for (int b = 4; b >= 0; b--)
		{
			double	   *range = even ? lon : lat;
			double		mid = (range[0] + range[1]) / 2;

			range[((d - geohash_digits) >> b) & 1 ? 0 : 1] = mid;
			even = !even;
		}
	}
	box->low.x = lon[0];
	box->high.x = lon[1];
	box->low.y = lat[0];
	box->high.y = lat[1];
	return true;
}

/*
 * ots_search_geohash is ots.search_geohash(p point, precision integer): the
 * geohash of precision characters of a point kept as a search index keeps it
 */
Datum
ots_search_geohash(PG_FUNCTION_ARGS)
{
	int32		precision = PG_GETARG_INT32(1);
	char		hash[SEARCH_GEOHASH_MAX + 1];

	if (precision < 1 || precision > SEARCH_GEOHASH_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a geohash has 1 to %d characters, not %d", SEARCH_GEOHASH_MAX, precision)));
	search_geohash(PG_GETARG_POINT_P(0), precision, hash);
	PG_RETURN_TEXT_P(cstring_to_text(hash));
}
