/*-------------------------------------------------------------------------
 * gateway/headers.c
 *	  The checks of a request's Tablestore headers, run as they arrive,
 *	  before its body is read: the action it names, the required x-ots-*
 *	  headers, the instance, the access key and the signature together, the
 *	  date (15 minutes) and the API version, each failure answered with
 *	  Tablestore's code, status and text.
 *-------------------------------------------------------------------------
 */
#define _GNU_SOURCE				/* strncasecmp */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <microhttpd.h>

#include "config.h"
#include "headers.h"
#include "otsd.h"

#define API_VERSION "2015-12-31"
#define MAX_OTS_HEADERS 64

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
	h->name = config_copy(name);
	for (char *c = h->name; *c; c++)
		*c = tolower((unsigned char) *c);
	h->value = config_copy(value ? value : "");
	memmove(h->value, config_trim(h->value), strlen(config_trim(h->value)) + 1);
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

/*
 * sign_date_near: is a V4 signing date (yyyyMMdd) today's, yesterday's or
 * tomorrow's (UTC)?  A client near midnight may have either.
 */
static bool
sign_date_near(const char *date)
{
	time_t		now = time(NULL);

	if (strlen(date) != 8 || strspn(date, "0123456789") != 8)
		return false;
	for (int day = -1; day <= 1; day++)
	{
		time_t		t = now + day * 86400;
		struct tm	tm;
		char		text[16];

		gmtime_r(&t, &tm);
		strftime(text, sizeof(text), "%Y%m%d", &tm);
		if (strcmp(text, date) == 0)
			return true;
	}
	return false;
}

/*
 * headers_check: the checks of a request's headers, run when they arrive,
 * before its body is read (a client that has proved nothing gets no memory
 * and no wait), in the order that tells an unauthenticated client the least;
 * false after replying.  Sets req->to_run and keeps x-ots-contentmd5 for
 * the body's check.  Codes and texts are Tablestore's (the Python SDK's
 * error message tests and Tablestore's error code page).
 */
bool
headers_check(struct MHD_Connection *connection, Request *req, const char *url)
{
	static const char *const required[] = {
		"x-ots-date", "x-ots-signature", "x-ots-accesskeyid",
		"x-ots-instancename", "x-ots-apiversion", "x-ots-contentmd5", NULL
	};
	Call	   *call = &req->call;
	HeaderSet	headers = {0};
	const char *value;
	bool		v4;
	bool		ok = false;

	req->to_run = url[0] == '/' ? actions_find(url + 1) : NULL;
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
	v4 = header_value(&headers, "x-ots-signaturev4") != NULL;
	for (int i = 0; required[i] != NULL; i++)
		if (header_value(&headers, required[i]) == NULL &&
			!(v4 && strcmp(required[i], "x-ots-signature") == 0))
		{
			call_error(call, 400, "OTSMissingHeader", "Missing header: '%s'.", required[i]);
			goto done;
		}
	if (v4 && (header_value(&headers, "x-ots-signdate") == NULL ||
			   header_value(&headers, "x-ots-signregion") == NULL ||
			   header_value(&headers, "x-ots-signregion")[0] == '\0'))
	{
		call_error(call, 400, "OTSMissingHeader", "Missing header: '%s'.",
				   header_value(&headers, "x-ots-signdate") == NULL ? "x-ots-signdate" : "x-ots-signregion");
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
	if (v4)
	{
		/* the V4 signature (the Java SDK's option): a key derived for the day and region */
		const char *sign_date = header_value(&headers, "x-ots-signdate");

		if (!sign_date_near(sign_date))
		{
			call_error(call, 403, "OTSAuthFailed", "Invalid x-ots-signdate: '%s'.", sign_date);
			goto done;
		}
		if (!auth_check_signature_v4(call, url, headers.items, headers.count,
									 header_value(&headers, "x-ots-signaturev4"), sign_date,
									 header_value(&headers, "x-ots-signregion"), req->v4_key))
			goto done;
	}
	else if (!auth_check_signature(call, url, headers.items, headers.count,
								   header_value(&headers, "x-ots-signature")))
		goto done;
	/* from here on the client holds the key's secret: sign what we answer */
	req->authenticated = true;
	/* temporary (STS) credentials: only as configured (the signature covers the token) */
	if (!auth_sts_token_ok(call->key, header_value(&headers, "x-ots-ststoken")))
	{
		call_error(call, 403, "OTSAuthFailed",
				   call->key->sts_token == NULL ?
				   "STS tokens are not accepted for this access key: sign with a key of otsd's configuration." :
				   "The STS token is missing or does not match the access key's.");
		goto done;
	}
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
	/* compressed bodies, the Java SDK's options: zlib's deflate, the only type */
	if ((value = header_value(&headers, "x-ots-request-compress-type")) != NULL)
	{
		const char *size = header_value(&headers, "x-ots-request-compress-size");
		char	   *end = NULL;
		unsigned long long n = size ? strtoull(size, &end, 10) : 0;

		if (strcasecmp(value, "deflate") != 0)
		{
			call_parameter_invalid(call, "Unsupported compress type: '%s'.", value);
			goto done;
		}
		if (size == NULL || size[0] < '0' || size[0] > '9' || *end != '\0' || n == 0 ||
			n > config.max_body)
		{
			call_parameter_invalid(call, "Invalid x-ots-request-compress-size: '%s'.", size ? size : "");
			goto done;
		}
		req->inflated_size = (size_t) n;
	}
	if ((value = header_value(&headers, "x-ots-response-compress-type")) != NULL)
	{
		if (strcasecmp(value, "deflate") != 0)
		{
			call_parameter_invalid(call, "Unsupported compress type: '%s'.", value);
			goto done;
		}
		req->deflate_reply = true;
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
