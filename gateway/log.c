/*-------------------------------------------------------------------------
 * gateway/log.c
 *	  otsd's log: one line per request (http.c) and per event of the
 *	  server (start and stop, connections, transactions rolled back,
 *	  database errors), to the log file or stderr, whole lines from any
 *	  thread.
 *
 * Every part of otsd may log; this file calls none of them.
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

static FILE *log_file;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * log_open: where log_write writes from now on: the file at path, appended
 * to, or stderr for "-"; false (errno says why) when it cannot be opened
 */
bool
log_open(const char *path)
{
	if (strcmp(path, "-") == 0)
		log_file = stderr;
	else
		log_file = fopen(path, "a");
	return log_file != NULL;
}

/* log_write: one line to the log (libpq's multi-line messages made one line) */
void
log_write(const char *fmt,...)
{
	char		line[4096];
	va_list		args;
	size_t		len;

	va_start(args, fmt);
	vsnprintf(line, sizeof(line), fmt, args);
	va_end(args);
	len = strlen(line);
	while (len > 0 && isspace((unsigned char) line[len - 1]))
		line[--len] = '\0';
	for (char *c = line; *c; c++)
		if (*c == '\n' || *c == '\r' || *c == '\t')
			*c = ' ';
	pthread_mutex_lock(&log_lock);
	fprintf(log_file, "%s\n", line);
	fflush(log_file);
	pthread_mutex_unlock(&log_lock);
}
