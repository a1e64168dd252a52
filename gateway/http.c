/*-------------------------------------------------------------------------
 * gateway/http.c
 *	  otsd's HTTP server: a request from its first header to its answer,
 *	  with Tablestore's response headers and signature, and its log line.
 *
 * A request is POST /<Action> with x-ots-* headers and a protobuf body.
 * Before the action runs: the framing (one way to read the body's length,
 * else 400 and the connection closed), the method, the body size, the
 * action's name, the required headers, the instance, the access key and
 * the signature together, the date (15 minutes) and the API version
 * (headers.c) are checked as the headers arrive, before the body is read;
 * then the body's size and MD5; each failure answered with Tablestore's
 * code, status and text.  Then the request reserves the memory it may
 * decode in (memory.c) and its action runs.  Every answer carries
 * x-ots-requestid, x-ots-date, x-ots-contentmd5 and x-ots-contenttype;
 * once the request's signature has been verified, also "Authorization:
 * OTS <key id>:<signature>", the response signature the Java and Python
 * SDKs verify (before that Tablestore sends none, and the SDKs accept an
 * error without one).
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
#define _GNU_SOURCE				/* strcasecmp */
#include <ctype.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>
#include <zlib.h>

#include "config.h"
#include "headers.h"
#include "http.h"
#include "log.h"
#include "otsd.h"

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

/* deflate_reply: the reply deflated into *out, its size as text into raw_size; false if it failed */
static bool
deflate_reply(Call *call, Buf *out, char raw_size[24])
{
	uLongf		size = compressBound(call->reply.len);

	buf_reserve(out, size);
	if (compress2(out->data, &size, call->reply.data, call->reply.len, Z_DEFAULT_COMPRESSION) != Z_OK)
		return false;
	out->len = size;
	snprintf(raw_size, 24, "%zu", call->reply.len);
	return true;
}

/*
 * inflate_body: a deflated body (x-ots-request-compress-type, whose MD5 the
 * client took of the deflated bytes) as the action reads it, of exactly the
 * declared size; false after replying
 */
static bool
inflate_body(Request *req)
{
	uLongf		size = req->inflated_size;

	if (req->inflated_size == 0)
		return true;
	buf_reserve(&req->inflated, req->inflated_size);
	if (uncompress(req->inflated.data, &size, req->call.body, req->call.body_len) != Z_OK ||
		size != req->inflated_size)
	{
		call_parameter_invalid(&req->call, "The request body is not deflated data of %zu bytes.",
							   req->inflated_size);
		return false;
	}
	req->inflated.len = size;
	req->call.body = req->inflated.data;
	req->call.body_len = size;
	return true;
}

/*
 * answer: sends the call's reply with Tablestore's response headers (signed
 * when the request was authenticated) and logs the request's line.  A
 * client that asked for a deflated reply gets one: x-ots-contentmd5 is the
 * MD5 of the reply before deflating, which the SDKs check after inflating.
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
	char		raw_size[24];
	Buf			sent = {0};
	bool		deflated;
	enum MHD_Result rc;
	long		usec;

	if (!call->replied)
		call_error(call, 500, "OTSInternalServerError", "Internal server error.");
	clock_gettime(CLOCK_REALTIME, &now);
	iso_date(date, sizeof(date), &now);
	auth_md5_base64(call->reply.data ? call->reply.data : (uint8_t *) "", call->reply.len, md5);
	deflated = req->deflate_reply && call->reply.len > 0 && deflate_reply(call, &sent, raw_size);

	response = MHD_create_response_from_buffer(deflated ? sent.len : call->reply.len,
											   deflated ? sent.data : call->reply.data,
											   MHD_RESPMEM_MUST_COPY);
	buf_free(&sent);
	if (response == NULL)
		return MHD_NO;
	MHD_add_response_header(response, "x-ots-contentmd5", md5);
	MHD_add_response_header(response, "x-ots-contenttype", "protocol buffer");
	MHD_add_response_header(response, "x-ots-date", date);
	MHD_add_response_header(response, "x-ots-requestid", req->request_id);
	if (deflated)
	{
		MHD_add_response_header(response, "x-ots-response-compress-size", raw_size);
		MHD_add_response_header(response, "x-ots-response-compress-type", "deflate");
	}
	if (req->close)
		MHD_add_response_header(response, MHD_HTTP_HEADER_CONNECTION, "close");
	if (req->authenticated)
	{
		/* every x-ots- header of the answer, by name */
		Header		signed_headers[] = {
			{"x-ots-contentmd5", md5},
			{"x-ots-contenttype", "protocol buffer"},
			{"x-ots-date", date},
			{"x-ots-requestid", req->request_id},
			{"x-ots-response-compress-size", raw_size},
			{"x-ots-response-compress-type", "deflate"},
		};
		char		signature[OTSD_SHA1_BASE64_LEN + 1];
		char		authorization[512];

		if (req->v4_key[0] != '\0')
			auth_sign_response_v4(req->v4_key, req->action, signed_headers, deflated ? 6 : 4, signature);
		else
			auth_sign_response(call->key, req->action, signed_headers, deflated ? 6 : 4, signature);
		snprintf(authorization, sizeof(authorization), "OTS %s:%s", call->key->id, signature);
		MHD_add_response_header(response, "Authorization", authorization);
	}
	rc = MHD_queue_response(connection, call->status, response);
	MHD_destroy_response(response);

	remote_address(connection, remote, sizeof(remote));
	usec = (now.tv_sec - req->started.tv_sec) * 1000000L +
		(now.tv_nsec - req->started.tv_nsec) / 1000;
	log_write("%s %s %s %s %s %d %s %ldus in=%zu out=%zu",
			  date, req->request_id, remote,
			  call->key ? call->key->id : "-",
			  req->action[0] ? req->action : "-",
			  call->status, call->error_code[0] ? call->error_code : "-",
			  usec, req->body.len, call->reply.len);
	return rc;
}

/* ------------------------------------------------------------ framing */

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

/* ------------------------------------------------------------ the handler */

/*
 * format_request_id: a fresh random id in the UUID shape the SDKs show.  Ids
 * need to be unique, not secret (a transaction id, which is a capability,
 * comes from RAND_bytes): each thread draws them from splitmix64 over a
 * seed from RAND_bytes, cheaper per request than asking OpenSSL.
 */
static __thread uint64_t request_id_state;
static __thread bool request_id_seeded;

static uint64_t
request_id_next(void)
{
	uint64_t	z;

	if (!request_id_seeded)
	{
		char		hex[17];

		auth_random_hex(hex, 8);
		request_id_state = strtoull(hex, NULL, 16);
		request_id_seeded = true;
	}
	z = (request_id_state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static void
format_request_id(char out[37])
{
	static const char digits[] = "0123456789abcdef";
	uint64_t	half[2] = {request_id_next(), request_id_next()};
	int			n = 0;

	for (int i = 0; i < 32; i++)
	{
		if (i == 8 || i == 12 || i == 16 || i == 20)
			out[n++] = '-';
		out[n++] = digits[(half[i / 16] >> (4 * (i % 16))) & 0xf];
	}
	out[n] = '\0';
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
		/*
		 * A refusal by the headers is answered now, before a body is read
		 * for a client that proved nothing; with Content-Length 0, at the
		 * request's end, as any other answer (answered early, its
		 * connection would close, which a client could see as a reset
		 * before the answer)
		 */
		if (!headers_check(connection, req, url) &&
			(length == NULL || strtoull(length, NULL, 10) > 0))
			return answer(connection, req);
		return MHD_YES;
	}
	if (req->call.replied)
	{
		if (*upload_data_size == 0)
			return answer(connection, req);
		*upload_data_size = 0;	/* refused already: drop the rest */
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
			 memory_reserve(&req->call, &req->memory,
							req->inflated_size > 0 ? req->inflated_size : req->body.len) &&
			 inflate_body(req))
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
	buf_free(&req->inflated);
	explicit_bzero(req->v4_key, sizeof(req->v4_key));
	buf_free(&req->call.reply);
	free(req);
	*state = NULL;
}

/*
 * http_start: the server listening on address, a thread per connection, at
 * most config.threads of them at once; NULL when it cannot listen
 */
struct MHD_Daemon *
http_start(const struct addrinfo *address)
{
	unsigned int flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD |
		MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG;

	if (address->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	return MHD_start_daemon(flags, 0, NULL, NULL, handle, NULL,
							MHD_OPTION_SOCK_ADDR, address->ai_addr,
							MHD_OPTION_CONNECTION_LIMIT, (unsigned int) config.threads,
							MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) 120,
							MHD_OPTION_NOTIFY_COMPLETED, request_completed, NULL,
							MHD_OPTION_END);
}

/* http_stop: the server stops, its connections closed */
void
http_stop(struct MHD_Daemon *daemon)
{
	MHD_stop_daemon(daemon);
}
