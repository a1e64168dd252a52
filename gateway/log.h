/*-------------------------------------------------------------------------
 * gateway/log.h
 *	  otsd's log (log.c): one line per request and per event of the server.
 *-------------------------------------------------------------------------
 */
#ifndef OTSD_LOG_H
#define OTSD_LOG_H

#include <stdbool.h>

extern bool log_open(const char *path);
extern void log_write(const char *fmt,...) __attribute__((format(printf, 1, 2)));

#endif							/* OTSD_LOG_H */
