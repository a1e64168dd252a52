/*-------------------------------------------------------------------------
 * gateway/log.c
 *	  otsd's log: one line per request (http.c) and per event of the
 *	  server (start and stop, connections, transactions rolled back,
 *	  database errors), to the log file or stderr, whole lines from any
 *	  thread.
 *
 * A line is one write(2), without a lock: appends to a log file (opened
 * with O_APPEND, on a local file system) do not interleave, nor do writes
 * of at most PIPE_BUF bytes to a pipe, and a line is shorter.  stderr
 * (`log = -`) is whatever otsd was given: Linux keeps such a write whole on
 * a terminal or journald's socket too, but a file opened without O_APPEND
 * (`2>`, not `2>>`) may interleave.  A line cut short by a full disk goes
 * out in a second write.  A mutex around stdio, as before, was where
 * otsd's threads queued for each other: two futex calls per request under
 * load.
 *
 * Every part of otsd may log; this file calls none of them.
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

/* a line and its newline: at most PIPE_BUF bytes, written whole to a pipe too */
#define LOG_LINE_MAX PIPE_BUF

static int	log_fd = -1;

/*
 * log_open: where log_write writes from now on: the file at path, appended
 * to, or stderr for "-"; false (errno says why) when it cannot be opened
 */
bool
log_open(const char *path)
{
	if (strcmp(path, "-") == 0)
		log_fd = STDERR_FILENO;
	else
		log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	return log_fd >= 0;
}

/* log_write: one line to the log (libpq's multi-line messages made one line) */
void
log_write(const char *fmt,...)
{
	char		line[LOG_LINE_MAX];
	va_list		args;
	size_t		len;
	size_t		done = 0;

	va_start(args, fmt);
	vsnprintf(line, sizeof(line) - 1, fmt, args);
	va_end(args);
	len = strlen(line);
	while (len > 0 && isspace((unsigned char) line[len - 1]))
		line[--len] = '\0';
	for (char *c = line; *c; c++)
		if (*c == '\n' || *c == '\r' || *c == '\t')
			*c = ' ';
	line[len++] = '\n';
	while (done < len)
	{
		ssize_t		n = write(log_fd, line + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;				/* a full disk or a closed stderr: the line is lost, not the request */
		done += (size_t) n;
	}
}
