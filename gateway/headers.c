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
