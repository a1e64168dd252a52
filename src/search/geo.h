/*-------------------------------------------------------------------------
 * src/search/geo.h
 *	  GEO_POINT fields (geo.c): a point's text, the distance between two
 *	  points on the Earth, the box a circle fits in, geohashes.
 *
 * A point is kept as PostgreSQL's point with x the longitude and y the
 * latitude, in degrees.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_SEARCH_GEO_H
#define OTS_SEARCH_GEO_H

#include "postgres.h"
#include "utils/geo_decls.h"

/* search_geo_point: "latitude,longitude" (s, len bytes) as a point; false if it is none */
extern bool search_geo_point(const char *s, int len, Point *p);

/* search_geo_meters: the great-circle distance between two points, in meters */
extern double search_geo_meters(const Point *a, const Point *b);

/* search_geo_box: a box holding every point within meters of center (the whole globe's width near a pole) */
extern void search_geo_box(const Point *center, double meters, BOX *box);

/*
 * search_geohash: the geohash of p, precision (1 to SEARCH_GEOHASH_MAX)
 * characters, into out (precision + 1 bytes); search_geohash_box: the cell
 * a geohash names (false when it is none)
 */
#define SEARCH_GEOHASH_MAX 12
extern void search_geohash(const Point *p, int precision, char *out);
extern bool search_geohash_box(const char *hash, BOX *box);

#endif							/* OTS_SEARCH_GEO_H */
