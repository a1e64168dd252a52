/*-------------------------------------------------------------------------
 * gateway/http.h
 *	  otsd's HTTP server (http.c): a request between libmicrohttpd's calls
 *	  of the handler, and the server's start and stop.
 *-------------------------------------------------------------------------
 */
#ifndef OTSD_HTTP_H
#define OTSD_HTTP_H

#include <time.h>

#include "otsd.h"

struct addrinfo;
struct MHD_Daemon;

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
	size_t		inflated_size;	/* a deflated body's size inflated (x-ots-request-compress-size); 0: not deflated */
	bool		deflate_reply;	/* x-ots-response-compress-type: deflate */
	Buf			inflated;		/* the body inflated */
	char		v4_key[OTSD_V4_KEY_LEN + 1];	/* a V4-signed request's signing key: signs the answer */
	char		request_id[37];
	char		action[64];
	struct timespec started;
} Request;

extern struct MHD_Daemon *http_start(const struct addrinfo *address);
extern void http_stop(struct MHD_Daemon *daemon);

#endif							/* OTSD_HTTP_H */
