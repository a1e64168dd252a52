/*-------------------------------------------------------------------------
 * gateway/config.c
 *	  otsd's configuration: the file otsd -c names ("key = value" lines,
 *	  docs/gateway.md, Configuration) and the listen address it gives.
 *
 * Read once, before the server starts; a setting otsd cannot run with ends
 * it there (config_die), naming the file's line.
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "config.h"

/* Tablestore's limit on a request's body: 5 MB (docs/gateway.md, Configuration) */
#define DEFAULT_MAX_BODY (5 * 1024 * 1024)
/* what requests decode in at once: room for one of 5 MB and many small ones (memory.c) */
#define DEFAULT_DECODE_MEMORY (256 * 1024 * 1024)

Config		config;

/* config_die: a setting otsd cannot run with: the message on stderr, exit 1 */
void
config_die(const char *fmt,...)
{
	va_list		args;

	va_start(args, fmt);
	fputs("otsd: ", stderr);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	va_end(args);
	exit(1);
}

/* config_copy: a copy of s (running out of memory ends otsd, as in buf.c) */
char *
config_copy(const char *s)
{
	char	   *c = strdup(s);

	if (c == NULL)
		abort();
	return c;
}

/* config_trim: s without its leading and trailing blanks (cut in place) */
char *
config_trim(char *s)
{
	char	   *end;

	while (isspace((unsigned char) *s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char) end[-1]))
		*--end = '\0';
	return s;
}

static long
parse_number(const char *path, int line_no, const char *name, const char *value,
			 long min, long max)
{
	char	   *end;
	long		n;

	errno = 0;
	n = strtol(value, &end, 10);
	if (errno != 0 || end == value || *end != '\0' || n < min || n > max)
		config_die("%s:%d: %s must be a number in [%ld, %ld]", path, line_no, name, min, max);
	return n;
}

/* parse_switch: on or off */
static bool
parse_switch(const char *path, int line_no, const char *name, const char *value)
{
	if (strcmp(value, "on") == 0)
		return true;
	if (strcmp(value, "off") == 0)
		return false;
	config_die("%s:%d: %s must be on or off", path, line_no, name);
}

/* add_key: "access_key = <id> <secret> <role> [<STS token>]" */
static void
add_key(const char *path, int line_no, char *value)
{
	char	   *id = strtok(value, " \t");
	char	   *secret = strtok(NULL, " \t");
	char	   *role = strtok(NULL, " \t");
	char	   *token = role ? strtok(NULL, " \t") : NULL;
	AccessKey  *key;

	if (id == NULL || secret == NULL || role == NULL || (token && strtok(NULL, " \t") != NULL))
		config_die("%s:%d: access_key = <id> <secret> <role> [<STS token>]", path, line_no);
	if (strlen(id) > OTSD_KEY_ID_MAX)
		config_die("%s:%d: an access key id is at most %d bytes", path, line_no, OTSD_KEY_ID_MAX);
	for (int i = 0; i < config.key_count; i++)
		if (strcmp(config.keys[i].id, id) == 0)
			config_die("%s:%d: access key %s given twice", path, line_no, id);
	config.keys = realloc(config.keys, (config.key_count + 1) * sizeof(AccessKey));
	if (config.keys == NULL)
		abort();
	key = &config.keys[config.key_count++];
	key->id = config_copy(id);
	key->secret = config_copy(secret);
	key->role = config_copy(role);
	key->sts_token = token ? config_copy(token) : NULL;
	key->pool = NULL;
}

/*
 * config_read: "key = value" lines; blank lines and lines starting with #
 * are skipped (no comments after a value: a secret may hold '#').
 */
void
config_read(const char *path)
{
	FILE	   *f = fopen(path, "r");
	char		text[4096];
	int			line_no = 0;

	if (f == NULL)
		config_die("cannot read %s: %s", path, strerror(errno));
	config.listen = config_copy("127.0.0.1:8800");
	config.pool_size = 4;
	config.threads = 256;
	config.max_body = DEFAULT_MAX_BODY;
	config.decode_memory = DEFAULT_DECODE_MEMORY;
	config.log = config_copy("-");
	config.wire = true;

	while (fgets(text, sizeof(text), f) != NULL)
	{
		char	   *line = config_trim(text);
		char	   *eq,
				   *name,
				   *value;

		line_no++;
		if (*line == '\0' || *line == '#')
			continue;
		eq = strchr(line, '=');
		if (eq == NULL)
			config_die("%s:%d: expected key = value", path, line_no);
		*eq = '\0';
		name = config_trim(line);
		value = config_trim(eq + 1);

		if (strcmp(name, "listen") == 0)
			free(config.listen), config.listen = config_copy(value);
		else if (strcmp(name, "database") == 0)
			free(config.database), config.database = config_copy(value);
		else if (strcmp(name, "instance") == 0)
			free(config.instance), config.instance = config_copy(value);
		else if (strcmp(name, "access_key") == 0)
			add_key(path, line_no, value);
		else if (strcmp(name, "pool_size") == 0)
			config.pool_size = parse_number(path, line_no, name, value, 1, 1000);
		else if (strcmp(name, "threads") == 0)
			config.threads = parse_number(path, line_no, name, value, 1, 100000);
		else if (strcmp(name, "search_path") == 0)
			free(config.search_path), config.search_path = config_copy(value);
		else if (strcmp(name, "partitions") == 0)
			config.partitions = parse_number(path, line_no, name, value, 1, 1024);
		else if (strcmp(name, "wire") == 0)
			config.wire = parse_switch(path, line_no, name, value);
		else if (strcmp(name, "max_body") == 0)
			config.max_body = parse_number(path, line_no, name, value, 1, INT_MAX);
		else if (strcmp(name, "decode_memory") == 0)
			config.decode_memory = parse_number(path, line_no, name, value, 1 << 20, LONG_MAX);
		else if (strcmp(name, "log") == 0)
			free(config.log), config.log = config_copy(value);
		else
			config_die("%s:%d: unknown setting %s", path, line_no, name);
	}
	fclose(f);
	if (config.database == NULL)
		config_die("%s: database = <libpq connection string> is missing", path);
	if (config.instance == NULL || config.instance[0] == '\0')
		config_die("%s: instance = <name> is missing", path);
	if (config.key_count == 0)
		config_die("%s: no access_key = <id> <secret> <role>", path);
}

/* config_listen_address: "host:port" or "[v6 host]:port" as a socket address */
struct addrinfo *
config_listen_address(const char *listen)
{
	char		host[256];
	const char *colon = strrchr(listen, ':');
	struct addrinfo hints = {0};
	struct addrinfo *address;
	size_t		host_len;
	int			rc;

	if (colon == NULL || colon == listen || colon[1] == '\0')
		config_die("listen = %s: expected host:port", listen);
	host_len = colon - listen;
	if (listen[0] == '[' && colon[-1] == ']')
		listen++, host_len -= 2;
	if (host_len >= sizeof(host))
		config_die("listen = %s: host too long", listen);
	memcpy(host, listen, host_len);
	host[host_len] = '\0';
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	rc = getaddrinfo(host, colon + 1, &hints, &address);
	if (rc != 0)
		config_die("listen = %s: %s", listen, gai_strerror(rc));
	return address;
}
