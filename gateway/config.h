/*-------------------------------------------------------------------------
 * gateway/config.h
 *	  otsd's configuration (config.c): read once before the server starts,
 *	  only read after.
 *-------------------------------------------------------------------------
 */
#ifndef OTSD_CONFIG_H
#define OTSD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "otsd.h"

struct addrinfo;

typedef struct Config
{
	char	   *listen;
	char	   *database;
	char	   *instance;
	AccessKey  *keys;
	int			key_count;
	int			pool_size;
	int			threads;
	char	   *search_path;
	int			partitions;		/* of a table CreateTable makes; 0: ots's default */
	bool		wire;			/* call the ots.wire_* functions where the database has them */
	size_t		max_body;
	size_t		decode_memory;
	char	   *log;
} Config;

/* the configuration, filled by config_read */
extern Config config;

extern void config_read(const char *path);
extern struct addrinfo *config_listen_address(const char *listen);
extern void config_die(const char *fmt,...) __attribute__((format(printf, 1, 2), noreturn));
extern char *config_copy(const char *s);
extern char *config_trim(char *s);

#endif							/* OTSD_CONFIG_H */
