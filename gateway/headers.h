/*-------------------------------------------------------------------------
 * gateway/headers.h
 *	  The checks of a request's Tablestore headers (headers.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTSD_HEADERS_H
#define OTSD_HEADERS_H

#include <stdbool.h>

#include "http.h"

struct MHD_Connection;

extern bool headers_check(struct MHD_Connection *connection, Request *req, const char *url);

#endif							/* OTSD_HEADERS_H */
