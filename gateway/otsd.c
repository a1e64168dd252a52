/*-------------------------------------------------------------------------
 * gateway/otsd.c
 *	  otsd's main: the configuration, the HTTP server, the checks every
 *	  request passes before its action runs, and the log line.
 *
 *	  otsd -c <config file>
 *
 * A request is POST /<Action> with x-ots-* headers and a protobuf body.
 * Before the action runs: the framing (one way to read the body's length,
 * else 400 and the connection closed), the method, the body size, the
 * action's name, the required headers, the instance, the access key and
 * the signature together, the date (15 minutes) and the API version are
 * checked as the headers arrive, before the body is read; then the body's
 * size and MD5; each failure answered with Tablestore's code, status and
 * text.  Then the request reserves the memory it may decode in (memory.c)
 * and its action runs.  Every
 * answer carries x-ots-requestid, x-ots-date, x-ots-contentmd5 and
 * x-ots-contenttype; once the request's signature has been verified, also
 * "Authorization: OTS <key id>:<signature>", the response signature the
 * Java and Python SDKs verify (before that Tablestore sends none, and the
 * SDKs accept an error without one).
 *
 * libmicrohttpd serves each connection on a thread of its own, at most
 * `threads` connections at once (more are refused).  An action runs on its
 * connection's thread and blocks it on PostgreSQL, so a slow query or a
 * wait for a pooled connection delays only its own client: with a thread
 * pool, every connection sharing the thread waited too (8 clients, a mix of
 * calls and transactions: 320 s and 63 answers of 503 with a pool of 4
 * threads; 1.2 s and none with a thread per connection).
 *-------------------------------------------------------------------------
 */
#define _GNU_SOURCE				/* strcasecmp, strncasecmp */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "otsd.h"
#include "plainbuffer.h"

#define API_VERSION "2015-12-31"
/* Tablestore's limit on a request's body: 5 MB (TABLESTORE.md section 5) */
#define DEFAULT_MAX_BODY (5 * 1024 * 1024)
/* what requests decode in at once: room for one of 5 MB and many small ones (memory.c) */
#define DEFAULT_DECODE_MEMORY (256 * 1024 * 1024)
#define MAX_OTS_HEADERS 64

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
	size_t		max_body;
	size_t		decode_memory;
	char	   *log;
} Config;

static Config config;
static FILE *log_file;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

/* one request between libmicrohttpd's calls of the handler */
typedef struct Request
{
	Call		call;
	Buf			body;
	bool		body_too_large;
	bool		authenticated;	/* its signature checked: sign the answer */
	bool		close;			/* framed ambiguously: close after the answer */
	MemoryBound memory;			/* what its action may decode in */
	const Action *to_run;		/* its headers checked: the action to run */
	char		content_md5[64];	/* x-ots-contentmd5, checked on the body */
	char		request_id[37];
	char		action[64];
	struct timespec started;
} Request;

static void
die(const char *fmt,...)
{
	va_list		args;

	va_start(args, fmt);
	fputs("otsd: ", stderr);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	va_end(args);
	exit(1);
}

static char *
copy(const char *s)
{
	char	   *c = strdup(s);

	if (c == NULL)
		abort();
	return c;
}

/* otsd_log: one line to the log (libpq's multi-line messages made one line) */
void
otsd_log(const char *fmt,...)
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

/* ------------------------------------------------------------ configuration */

static char *
trim(char *s)
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
		die("%s:%d: %s must be a number in [%ld, %ld]", path, line_no, name, min, max);
	return n;
}

/* add_key: "access_key = <id> <secret> <role>" */
static void
add_key(const char *path, int line_no, char *value)
{
	char	   *id = strtok(value, " \t");
	char	   *secret = strtok(NULL, " \t");
	char	   *role = strtok(NULL, " \t");
	AccessKey  *key;

	if (id == NULL || secret == NULL || role == NULL || strtok(NULL, " \t") != NULL)
		die("%s:%d: access_key = <id> <secret> <role>", path, line_no);
	for (int i = 0; i < config.key_count; i++)
		if (strcmp(config.keys[i].id, id) == 0)
			die("%s:%d: access key %s given twice", path, line_no, id);
	config.keys = realloc(config.keys, (config.key_count + 1) * sizeof(AccessKey));
	if (config.keys == NULL)
		abort();
	key = &config.keys[config.key_count++];
	key->id = copy(id);
	key->secret = copy(secret);
	key->role = copy(role);
	key->pool = NULL;
}

/*
 * read_config: "key = value" lines; blank lines and lines starting with #
 * are skipped (no comments after a value: a secret may hold '#').
 */
static void
read_config(const char *path)
{
	FILE	   *f = fopen(path, "r");
	char		text[4096];
	int			line_no = 0;

	if (f == NULL)
		die("cannot read %s: %s", path, strerror(errno));
	config.listen = copy("127.0.0.1:8800");
	config.pool_size = 4;
	config.threads = 256;
	config.max_body = DEFAULT_MAX_BODY;
	config.decode_memory = DEFAULT_DECODE_MEMORY;
	config.log = copy("-");

	while (fgets(text, sizeof(text), f) != NULL)
	{
		char	   *line = trim(text);
		char	   *eq,
				   *name,
				   *value;

		line_no++;
		if (*line == '\0' || *line == '#')
			continue;
		eq = strchr(line, '=');
		if (eq == NULL)
			die("%s:%d: expected key = value", path, line_no);
		*eq = '\0';
		name = trim(line);
		value = trim(eq + 1);

		if (strcmp(name, "listen") == 0)
			free(config.listen), config.listen = copy(value);
		else if (strcmp(name, "database") == 0)
			free(config.database), config.database = copy(value);
		else if (strcmp(name, "instance") == 0)
			free(config.instance), config.instance = copy(value);
		else if (strcmp(name, "access_key") == 0)
			add_key(path, line_no, value);
		else if (strcmp(name, "pool_size") == 0)
			config.pool_size = parse_number(path, line_no, name, value, 1, 1000);
		else if (strcmp(name, "threads") == 0)
			config.threads = parse_number(path, line_no, name, value, 1, 100000);
		else if (strcmp(name, "search_path") == 0)
			free(config.search_path), config.search_path = copy(value);
		else if (strcmp(name, "max_body") == 0)
			config.max_body = parse_number(path, line_no, name, value, 1, INT_MAX);
		else if (strcmp(name, "decode_memory") == 0)
			config.decode_memory = parse_number(path, line_no, name, value, 1 << 20, LONG_MAX);
		else if (strcmp(name, "log") == 0)
			free(config.log), config.log = copy(value);
		else
			die("%s:%d: unknown setting %s", path, line_no, name);
	}
	fclose(f);
	if (config.database == NULL)
		die("%s: database = <libpq connection string> is missing", path);
	if (config.instance == NULL || config.instance[0] == '\0')
		die("%s: instance = <name> is missing", path);
	if (config.key_count == 0)
		die("%s: no access_key = <id> <secret> <role>", path);
}

/* listen_address: "host:port" or "[v6 host]:port" as a socket address */
static struct addrinfo *
listen_address(const char *listen)
{
	char		host[256];
	const char *colon = strrchr(listen, ':');
	struct addrinfo hints = {0};
	struct addrinfo *address;
	size_t		host_len;
	int			rc;

	if (colon == NULL || colon == listen || colon[1] == '\0')
		die("listen = %s: expected host:port", listen);
	host_len = colon - listen;
	if (listen[0] == '[' && colon[-1] == ']')
		listen++, host_len -= 2;
	if (host_len >= sizeof(host))
		die("listen = %s: host too long", listen);
	memcpy(host, listen, host_len);
	host[host_len] = '\0';
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	rc = getaddrinfo(host, colon + 1, &hints, &address);
	if (rc != 0)
		die("listen = %s: %s", listen, gai_strerror(rc));
	return address;
}

/* ------------------------------------------------------------ answering */

static void
iso_date(char *out, size_t size, const struct timespec *when)
{
	struct tm	tm;
	size_t		len;

	gmtime_r(&when->tv_sec, &tm);
	len = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + len, size - len, ".%03dZ", (int) (when->tv_nsec / 1000000));
}

static void
remote_address(struct MHD_Connection *connection, char *out, size_t size)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = info ? info->client_addr : NULL;

	snprintf(out, size, "-");
	if (sa == NULL)
		return;
	getnameinfo(sa, sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in),
				out, size, NULL, 0, NI_NUMERICHOST);
}

/*
 * answer: sends the call's reply with Tablestore's response headers (signed
 * when the request was authenticated) and logs the request's line.
 */
static enum MHD_Result
answer(struct MHD_Connection *connection, Request *req)
{
	Call	   *call = &req->call;
	struct MHD_Response *response;
	struct timespec now;
	char		date[40];
	char		md5[OTSD_MD5_BASE64_LEN + 1];
	char		remote[64];
	enum MHD_Result rc;
	long		usec;

	if (!call->replied)
		call_error(call, 500, "OTSInternalServerError", "Internal server error.");
	clock_gettime(CLOCK_REALTIME, &now);
	iso_date(date, sizeof(date), &now);
	auth_md5_base64(call->reply.data ? call->reply.data : (uint8_t *) "", call->reply.len, md5);

	response = MHD_create_response_from_buffer(call->reply.len, call->reply.data,
											   MHD_RESPMEM_MUST_COPY);
	if (response == NULL)
		return MHD_NO;
	MHD_add_response_header(response, "x-ots-contentmd5", md5);
	MHD_add_response_header(response, "x-ots-contenttype", "protocol buffer");
	MHD_add_response_header(response, "x-ots-date", date);
	MHD_add_response_header(response, "x-ots-requestid", req->request_id);
	if (req->close)
		MHD_add_response_header(response, MHD_HTTP_HEADER_CONNECTION, "close");
	if (req->authenticated)
	{
		Header		signed_headers[] = {
			{"x-ots-contentmd5", md5},
			{"x-ots-contenttype", "protocol buffer"},
			{"x-ots-date", date},
			{"x-ots-requestid", req->request_id},
		};
		char		signature[OTSD_SHA1_BASE64_LEN + 1];
		char		authorization[512];

		auth_sign_response(call->key, req->action, signed_headers, 4, signature);
		snprintf(authorization, sizeof(authorization), "OTS %s:%s", call->key->id, signature);
		MHD_add_response_header(response, "Authorization", authorization);
	}
	rc = MHD_queue_response(connection, call->status, response);
	MHD_destroy_response(response);

	remote_address(connection, remote, sizeof(remote));
	usec = (now.tv_sec - req->started.tv_sec) * 1000000L +
		(now.tv_nsec - req->started.tv_nsec) / 1000;
	otsd_log("%s %s %s %s %s %d %s %ldus in=%zu out=%zu",
			 date, req->request_id, remote,
			 call->key ? call->key->id : "-",
			 req->action[0] ? req->action : "-",
			 call->status, call->error_code[0] ? call->error_code : "-",
			 usec, req->body.len, call->reply.len);
	return rc;
}

/* ------------------------------------------------------------ the checks */

typedef struct HeaderSet
{
	Header		items[MAX_OTS_HEADERS];
	int			count;
	bool		too_many;
} HeaderSet;

/* collect_header: each x-ots-* request header, name lower-cased */
static enum MHD_Result
collect_header(void *cls, enum MHD_ValueKind kind, const char *name, const char *value)
{
	HeaderSet  *set = cls;
	Header	   *h;

	if (strncasecmp(name, "x-ots-", 6) != 0)
		return MHD_YES;
	if (set->count == MAX_OTS_HEADERS)
	{
		set->too_many = true;
		return MHD_NO;
	}
	h = &set->items[set->count++];
	h->name = copy(name);
	for (char *c = h->name; *c; c++)
		*c = tolower((unsigned char) *c);
	h->value = copy(value ? value : "");
	memmove(h->value, trim(h->value), strlen(trim(h->value)) + 1);
	return MHD_YES;
}

static const char *
header_value(const HeaderSet *set, const char *name)
{
	for (int i = 0; i < set->count; i++)
		if (strcmp(set->items[i].name, name) == 0)
			return set->items[i].value;
	return NULL;
}

static const Action *
find_action(const char *name)
{
	for (const Action *a = otsd_actions; a->name != NULL; a++)
		if (strcmp(a->name, name) == 0)
			return a;
	return NULL;
}

/*
 * Framing.  libmicrohttpd 0.9.75 frames a body by the first Content-Length
 * and keeps "Content-Length : 5" as a header of another name (so no
 * length at all); a proxy in front that reads the other length sends the
 * rest of the bytes as this request's body, and otsd runs them as a second
 * request the proxy never saw (request smuggling).  So a request whose
 * headers could frame it two ways is refused, and its connection closed.
 */
typedef struct Framing
{
	int			content_lengths;
	int			transfer_encodings;
	bool		chunked;
	const char *bad_name;		/* a header name that is not an HTTP token */
} Framing;

/* header_name_token: an HTTP token (RFC 9110 5.1, 5.6.2): no blank, no separator */
static bool
header_name_token(const char *name)
{
	if (*name == '\0')
		return false;
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char) *c) && strchr("!#$%&'*+-.^_`|~", *c) == NULL)
			return false;
	return true;
}

static enum MHD_Result
collect_framing(void *cls, enum MHD_ValueKind kind, const char *name, const char *value)
{
	Framing    *framing = cls;

	if (!header_name_token(name))
		framing->bad_name = framing->bad_name ? framing->bad_name : name;
	else if (strcasecmp(name, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0)
		framing->content_lengths++;
	else if (strcasecmp(name, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0)
	{
		framing->transfer_encodings++;
		framing->chunked = value != NULL && strcasecmp(value, "chunked") == 0;
	}
	return MHD_YES;
}

/*
 * check_framing: false, after replying 400 and marking the connection to
 * close, when the request's length is ambiguous: Content-Length twice, a
 * Transfer-Encoding beside it, twice or other than chunked, or a header
 * name with a blank or a separator in it.
 */
static bool
check_framing(struct MHD_Connection *connection, Request *req)
{
	Framing		framing = {0};
	const char *why = NULL;

	MHD_get_connection_values(connection, MHD_HEADER_KIND, collect_framing, &framing);
	if (framing.bad_name != NULL)
		why = "a header name is not a token";
	else if (framing.content_lengths > 1)
		why = "Content-Length is given more than once";
	else if (framing.transfer_encodings > 0 && framing.content_lengths > 0)
		why = "Transfer-Encoding is given with Content-Length";
	else if (framing.transfer_encodings > 1 || (framing.transfer_encodings == 1 && !framing.chunked))
		why = "Transfer-Encoding is not one chunked";
	if (why == NULL)
		return true;
	req->close = true;
	call_parameter_invalid(&req->call, "The request's length is ambiguous: %s.", why);
	return false;
}

/*
 * check_headers: the checks of a request's headers, run when they arrive,
 * before its body is read (a client that has proved nothing gets no memory
 * and no wait), in the order that tells an unauthenticated client the least;
 * false after replying.  Sets req->to_run and keeps x-ots-contentmd5 for
 * the body's check.  Codes and texts are Tablestore's (the Python SDK's
 * error message tests and Tablestore's error code page).
 */
static bool
check_headers(struct MHD_Connection *connection, Request *req, const char *url)
{
	static const char *const required[] = {
		"x-ots-date", "x-ots-signature", "x-ots-accesskeyid",
		"x-ots-instancename", "x-ots-apiversion", "x-ots-contentmd5", NULL
	};
	Call	   *call = &req->call;
	HeaderSet	headers = {0};
	const char *value;
	bool		ok = false;

	req->to_run = url[0] == '/' ? find_action(url + 1) : NULL;
	if (req->to_run == NULL)
	{
		call_error(call, 400, "OTSUnsupportOperation", "Unsupported operation: '%s'.",
				   url[0] == '/' ? url + 1 : url);
		return false;
	}

	MHD_get_connection_values(connection, MHD_HEADER_KIND, collect_header, &headers);
	if (headers.too_many)
	{
		call_parameter_invalid(call, "Too many x-ots-* headers.");
		goto done;
	}
	for (int i = 0; required[i] != NULL; i++)
		if (header_value(&headers, required[i]) == NULL)
		{
			call_error(call, 400, "OTSMissingHeader", "Missing header: '%s'.", required[i]);
			goto done;
		}
	if (strcmp(header_value(&headers, "x-ots-instancename"), config.instance) != 0)
	{
		call_error(call, 403, "OTSAuthFailed", "The instance is not found.");
		goto done;
	}
	/*
	 * an unknown key id is answered as a wrong signature is, after the same
	 * work (auth.c): key ids may name a shared otsd's tenants
	 */
	call->key = auth_find_key(config.keys, config.key_count,
							  header_value(&headers, "x-ots-accesskeyid"));
	value = header_value(&headers, "x-ots-signature");
	if (!auth_check_signature(call, url, headers.items, headers.count, value))
		goto done;
	/* from here on the client holds the key's secret: sign what we answer */
	req->authenticated = true;
	if (!auth_check_date(call, header_value(&headers, "x-ots-date")))
		goto done;
	snprintf(req->content_md5, sizeof(req->content_md5), "%s",
			 header_value(&headers, "x-ots-contentmd5"));
	value = header_value(&headers, "x-ots-apiversion");
	if (strcmp(value, API_VERSION) != 0)
	{
		call_parameter_invalid(call, "Unsupported API version: '%s'.", value);
		goto done;
	}
	ok = true;
done:
	for (int i = 0; i < headers.count; i++)
	{
		free(headers.items[i].name);
		free(headers.items[i].value);
	}
	return ok;
}

/* ------------------------------------------------------------ the handler */

static void
format_request_id(char out[37])
{
	char		hex[33];

	auth_random_hex(hex, 16);
	snprintf(out, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16, hex + 20);
}

/* action_of: the action a path names, for the log and the response signature */
static void
action_of(const char *url, char *out, size_t size)
{
	size_t		len = 0;

	if (*url == '/')
		url++;
	for (; *url && len + 1 < size; url++)
		out[len++] = isalnum((unsigned char) *url) ? *url : '?';
	out[len] = '\0';
}

/*
 * handle: libmicrohttpd calls it once with the headers, then with each piece
 * of the body, then once more with none: the request then runs.
 */
static enum MHD_Result
handle(void *cls, struct MHD_Connection *connection, const char *url,
	   const char *method, const char *version, const char *upload_data,
	   size_t *upload_data_size, void **state)
{
	Request    *req = *state;

	if (req == NULL)
	{
		const char *length;

		req = calloc(1, sizeof(Request));
		if (req == NULL)
			return MHD_NO;
		*state = req;
		clock_gettime(CLOCK_REALTIME, &req->started);
		format_request_id(req->request_id);
		req->call.request_id = req->request_id;
		action_of(url, req->action, sizeof(req->action));
		if (!check_framing(connection, req))
			return answer(connection, req);
		if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
		{
			call_error(&req->call, 405, "OTSMethodNotAllowed",
					   "Only POST method for requests is supported.");
			return answer(connection, req);
		}
		length = MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
											 MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (length != NULL && strtoull(length, NULL, 10) > config.max_body)
		{
			/* answered before the body arrives; the connection then closes */
			call_error(&req->call, 413, "OTSRequestBodyTooLarge",
					   "The size of POST data is too large.");
			return answer(connection, req);
		}
		if (!check_headers(connection, req, url))
			return answer(connection, req);
		return MHD_YES;
	}
	if (req->call.replied)
	{
		*upload_data_size = 0;	/* answered already: drop the rest */
		return MHD_YES;
	}
	if (*upload_data_size > 0)
	{
		if (req->body.len + *upload_data_size > config.max_body)
			req->body_too_large = true;
		if (!req->body_too_large)
			buf_put(&req->body, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}

	req->call.body = req->body.data ? req->body.data : (const uint8_t *) "";
	req->call.body_len = req->body.len;
	if (req->body_too_large)
		call_error(&req->call, 413, "OTSRequestBodyTooLarge", "The size of POST data is too large.");
	else if (auth_check_md5(&req->call, req->content_md5) &&
			 memory_reserve(&req->call, &req->memory, req->body.len))
	{
		req->call.action = req->to_run->name;
		req->to_run->fn(&req->call);
		call_end(&req->call);
		memory_release(&req->memory);
	}
	return answer(connection, req);
}

static void
request_completed(void *cls, struct MHD_Connection *connection, void **state,
				  enum MHD_RequestTerminationCode toe)
{
	Request    *req = *state;

	if (req == NULL)
		return;
	call_end(&req->call);		/* in case the connection broke mid-call */
	memory_release(&req->memory);
	buf_free(&req->body);
	buf_free(&req->call.reply);
	free(req);
	*state = NULL;
}

int
main(int argc, char **argv)
{
	const char *config_path = NULL;
	struct addrinfo *address;
	struct MHD_Daemon *daemon;
	sigset_t	stop_signals;
	unsigned int flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD |
		MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG;
	int			opt,
				signal_number;

	while ((opt = getopt(argc, argv, "c:h")) != -1)
	{
		if (opt == 'c')
			config_path = optarg;
		else
		{
			fprintf(stderr, "usage: otsd -c <config file>\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (config_path == NULL || optind != argc)
	{
		fprintf(stderr, "usage: otsd -c <config file>\n");
		return 2;
	}
	read_config(config_path);
	if (strcmp(config.log, "-") == 0)
		log_file = stderr;
	else if ((log_file = fopen(config.log, "a")) == NULL)
		die("cannot open log %s: %s", config.log, strerror(errno));
	address = listen_address(config.listen);
	if (address->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;

	/* the threads started from here on leave these signals to main */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

	memory_start(config.decode_memory);
	pb_stop_decoding = memory_exceeded;
	pb_allocator = &memory_protobuf;
	pool_start(config.keys, config.key_count, config.database, config.search_path,
			   config.pool_size);
	daemon = MHD_start_daemon(flags, 0, NULL, NULL, handle, NULL,
							  MHD_OPTION_SOCK_ADDR, address->ai_addr,
							  MHD_OPTION_CONNECTION_LIMIT, (unsigned int) config.threads,
							  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) 120,
							  MHD_OPTION_NOTIFY_COMPLETED, request_completed, NULL,
							  MHD_OPTION_END);
	if (daemon == NULL)
		die("cannot listen on %s", config.listen);
	freeaddrinfo(address);
	otsd_log("otsd: listening on %s, instance %s, %d access key(s), pool_size %d, threads %d, "
			 "decode_memory %zu",
			 config.listen, config.instance, config.key_count, config.pool_size, config.threads,
			 config.decode_memory);

	sigwait(&stop_signals, &signal_number);
	otsd_log("otsd: %s received, stopping", strsignal(signal_number));
	MHD_stop_daemon(daemon);
	pool_stop(config.keys, config.key_count);
	otsd_log("otsd: stopped");
	return 0;
}
