/*-------------------------------------------------------------------------
 * gateway/auth.c
 *	  Request signatures, response signatures, Content-MD5 and x-ots-date.
 *
 * A request is signed (HMAC-SHA1 with the key's secret, base64) over
 *	  "/" Action "\nPOST\n\n" then, sorted by lower-cased name, every x-ots-*
 *	  header but x-ots-signature as "name:value\n"
 * which is what the Node (lib/signer.js), Java (V2SignatureMaker) and Python
 * (SignV2) SDKs compute.  A response is signed over its x-ots-* headers the
 * same way, followed by "/" Action and no method line (Java's
 * OTSValidationResponseHandler, Python's make_response_signature), and sent
 * as "Authorization: OTS <key id>:<signature>".  Failures reply with
 * Tablestore's codes and texts (its error code page; the Python SDK's
 * error message tests), but for one: an unknown key id is answered as a
 * wrong signature is ("Signature mismatch."), after the same work (the
 * key looked up in time independent of which key matches, the signature
 * computed with a secret no client knows), so that a client without a
 * secret cannot tell which key ids exist: in a shared otsd they may name
 * its tenants.  Tablestore says "The AccessKeyID does not exist.".
 *-------------------------------------------------------------------------
 */
#define _GNU_SOURCE				/* strptime, timegm */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "otsd.h"

/* how far x-ots-date may be from our clock, as Tablestore allows */
#define OTSD_MAX_CLOCK_SKEW_SECONDS (15 * 60)

/*
 * The digests, fetched once: OpenSSL 3 looks an algorithm up by name on
 * every EVP_md5() / HMAC() call that does not name a fetched one, a sixth
 * of otsd's work per request before this.
 */
static EVP_MD *md5_md;
static EVP_MD *sha1_md;
static EVP_MD *sha256_md;		/* V4 signatures */
static pthread_once_t digests_once = PTHREAD_ONCE_INIT;

static void
digests_fetch(void)
{
	md5_md = EVP_MD_fetch(NULL, "MD5", NULL);
	sha1_md = EVP_MD_fetch(NULL, "SHA1", NULL);
	sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
	if (md5_md == NULL || sha1_md == NULL || sha256_md == NULL)
		abort();
}

/*
 * Each thread keeps two digest contexts (one for digests, one for HMAC),
 * freed when the thread ends: libmicrohttpd gives every client connection a
 * thread of its own
 */
static pthread_key_t digest_key;
static pthread_key_t hmac_key;
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

static void
ctx_free(void *ctx)
{
	EVP_MD_CTX_free(ctx);
}

static void
keys_create(void)
{
	if (pthread_key_create(&digest_key, ctx_free) != 0 || pthread_key_create(&hmac_key, ctx_free) != 0)
		abort();
}

/* thread_ctx: the calling thread's context under key */
static EVP_MD_CTX *
thread_ctx(pthread_key_t *key)
{
	EVP_MD_CTX *ctx;

	pthread_once(&keys_once, keys_create);
	if ((ctx = pthread_getspecific(*key)) == NULL)
	{
		if ((ctx = EVP_MD_CTX_new()) == NULL || pthread_setspecific(*key, ctx) != 0)
			abort();
	}
	return ctx;
}

/* digest: data's digest with md into out (EVP_MAX_MD_SIZE), its length */
static unsigned int
digest(EVP_MD *const *md, const void *data, size_t len, unsigned char *out)
{
	unsigned int out_len = 0;
	EVP_MD_CTX *digest_ctx = thread_ctx(&digest_key);

	pthread_once(&digests_once, digests_fetch);
	if (!EVP_DigestInit_ex(digest_ctx, *md, NULL) ||
		!EVP_DigestUpdate(digest_ctx, data, len) ||
		!EVP_DigestFinal_ex(digest_ctx, out, &out_len))
		abort();
	return out_len;
}

/* auth_md5_base64: base64 of the MD5 digest of data, NUL-terminated */
void
auth_md5_base64(const void *data, size_t len, char out[OTSD_MD5_BASE64_LEN + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int md_len = digest(&md5_md, data, len, md);

	EVP_EncodeBlock((unsigned char *) out, md, (int) md_len);
}

/*
 * HMAC-SHA1 (RFC 2104) from a key's two padded blocks, hashed once when
 * the key is prepared: a request then costs the four SHA-1 compressions of
 * its text and no allocation (each thread keeps one context).
 */
#define SHA1_BLOCK 64

struct HmacKey
{
	EVP_MD_CTX *inner;			/* SHA-1 after (key XOR ipad) */
	EVP_MD_CTX *outer;			/* SHA-1 after (key XOR opad) */
};

static HmacKey *
hmac_key_new(const char *secret)
{
	HmacKey    *k = calloc(1, sizeof(HmacKey));
	unsigned char block[SHA1_BLOCK] = {0};
	unsigned char pad[SHA1_BLOCK];
	size_t		len = strlen(secret);

	if (k == NULL || (k->inner = EVP_MD_CTX_new()) == NULL || (k->outer = EVP_MD_CTX_new()) == NULL)
		abort();
	if (len > SHA1_BLOCK)
		digest(&sha1_md, secret, len, block);	/* a long key is its digest */
	else
		memcpy(block, secret, len);
	pthread_once(&digests_once, digests_fetch);
	for (int i = 0; i < SHA1_BLOCK; i++)
		pad[i] = block[i] ^ 0x36;
	if (!EVP_DigestInit_ex(k->inner, sha1_md, NULL) || !EVP_DigestUpdate(k->inner, pad, SHA1_BLOCK))
		abort();
	for (int i = 0; i < SHA1_BLOCK; i++)
		pad[i] = block[i] ^ 0x5c;
	if (!EVP_DigestInit_ex(k->outer, sha1_md, NULL) || !EVP_DigestUpdate(k->outer, pad, SHA1_BLOCK))
		abort();
	OPENSSL_cleanse(block, sizeof(block));
	OPENSSL_cleanse(pad, sizeof(pad));
	return k;
}

/* hmac_sha1_base64: base64 of HMAC-SHA1(key, text) */
static void
hmac_sha1_base64(const HmacKey *key, const uint8_t *text, size_t len,
				 char out[OTSD_SHA1_BASE64_LEN + 1])
{
	unsigned char inner[EVP_MAX_MD_SIZE];
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int inner_len = 0,
				mac_len = 0;
	EVP_MD_CTX *hmac_ctx = thread_ctx(&hmac_key);

	if (!EVP_MD_CTX_copy_ex(hmac_ctx, key->inner) ||
		!EVP_DigestUpdate(hmac_ctx, text, len) ||
		!EVP_DigestFinal_ex(hmac_ctx, inner, &inner_len) ||
		!EVP_MD_CTX_copy_ex(hmac_ctx, key->outer) ||
		!EVP_DigestUpdate(hmac_ctx, inner, inner_len) ||
		!EVP_DigestFinal_ex(hmac_ctx, mac, &mac_len))
		abort();
	EVP_EncodeBlock((unsigned char *) out, mac, (int) mac_len);
}

/* same_text: constant-time comparison, so timing tells nothing of a secret */
static bool
same_text(const char *a, const char *b)
{
	size_t		len = strlen(a);

	return len == strlen(b) && CRYPTO_memcmp(a, b, len) == 0;
}

/*
 * auth_sts_token_ok: a key configured with an STS token takes only requests
 * that bring it, and a key without one only requests without one: otsd
 * cannot ask an STS service, so temporary credentials are those its
 * configuration names
 */
bool
auth_sts_token_ok(const AccessKey *key, const char *token)
{
	if (key->sts_token == NULL || token == NULL)
		return key->sts_token == NULL && token == NULL;
	return same_text(key->sts_token, token);
}

static int
header_order(const void *a, const void *b)
{
	return strcmp(((const Header *) a)->name, ((const Header *) b)->name);
}

/* add_canonical_headers: the sorted x-ots-* headers, "name:value\n" each */
static void
add_canonical_headers(Buf *text, Header *headers, int header_count)
{
	qsort(headers, header_count, sizeof(Header), header_order);
	for (int i = 0; i < header_count; i++)
	{
		if (strncmp(headers[i].name, "x-ots-", 6) != 0 ||
			strcmp(headers[i].name, "x-ots-signature") == 0 ||
			strcmp(headers[i].name, "x-ots-signaturev4") == 0)
			continue;
		buf_put(text, headers[i].name, strlen(headers[i].name));
		buf_byte(text, ':');
		buf_put(text, headers[i].value, strlen(headers[i].value));
		buf_byte(text, '\n');
	}
}

/*
 * key_id_padded: a key id in a fixed-size block, zero-padded, so that ids
 * compare in constant time whatever their lengths; an id too long for the
 * block (the configuration refuses such keys) fills it with 0xff, which no
 * padded id equals
 */
static void
key_id_padded(const char *id, unsigned char out[OTSD_KEY_ID_MAX + 1])
{
	size_t		len = strlen(id);

	memset(out, 0, OTSD_KEY_ID_MAX + 1);
	if (len > OTSD_KEY_ID_MAX)
		memset(out, 0xff, OTSD_KEY_ID_MAX + 1);
	else
		memcpy(out, id, len);
}

/*
 * auth_find_key: the key of this id, or NULL; every key is compared, in
 * constant time, whichever matches
 */
const AccessKey *
auth_find_key(const AccessKey *keys, int key_count, const char *id)
{
	unsigned char wanted[OTSD_KEY_ID_MAX + 1];
	const AccessKey *found = NULL;

	key_id_padded(id, wanted);
	for (int i = 0; i < key_count; i++)
	{
		int			differ = CRYPTO_memcmp(wanted, keys[i].id_padded, sizeof(wanted));

		found = differ == 0 ? &keys[i] : found;
	}
	return found;
}

/* auth_prepare_keys: what each key's checks use, computed once at start */
void
auth_prepare_keys(AccessKey *keys, int key_count)
{
	for (int i = 0; i < key_count; i++)
	{
		key_id_padded(keys[i].id, keys[i].id_padded);
		keys[i].hmac = hmac_key_new(keys[i].secret);
	}
}

/* decoy: what an unknown key's signature is checked against */
static HmacKey *decoy;
static pthread_once_t decoy_once = PTHREAD_ONCE_INIT;

static void
decoy_init(void)
{
	char		secret[41];

	auth_random_hex(secret, 20);
	decoy = hmac_key_new(secret);
}

/*
 * auth_check_signature: true when signature is the request's signature
 * under call->key; else replies 403 OTSAuthFailed "Signature mismatch.",
 * also when call->key is NULL (an unknown key id, checked against a decoy
 * secret so that it takes the same work).  path is the request's path
 * ("/PutRow"); headers are reordered.
 */
bool
auth_check_signature(Call *call, const char *path, Header *headers,
					 int header_count, const char *signature)
{
	Buf			text = {0};
	char		expected[OTSD_SHA1_BASE64_LEN + 1];
	bool		ok;

	buf_put(&text, path, strlen(path));
	buf_put(&text, "\nPOST\n\n", 7);
	add_canonical_headers(&text, headers, header_count);
	pthread_once(&decoy_once, decoy_init);
	hmac_sha1_base64(call->key ? call->key->hmac : decoy, text.data, text.len, expected);
	buf_free(&text);

	ok = same_text(expected, signature) && call->key != NULL;
	if (!ok)
		call_error(call, 403, "OTSAuthFailed", "Signature mismatch.");
	return ok;
}

/* hmac_sha256: HMAC-SHA256(key, text) into out (32 bytes) */
static void
hmac_sha256(const void *key, size_t key_len, const void *text, size_t len, unsigned char out[32])
{
	unsigned int out_len = 0;

	pthread_once(&digests_once, digests_fetch);
	if (HMAC(sha256_md, key, (int) key_len, text, len, out, &out_len) == NULL || out_len != 32)
		abort();
}

/*
 * auth_check_signature_v4: the V4 signature (x-ots-signaturev4, the Java
 * SDK's V4SignatureMaker): a signing key derived from the secret for the
 * day and region, HMAC-SHA256 of "aliyun_v4" + secret over sign_date, then
 * region, "ots" and "aliyun_v4_request", whose base64 text keys the
 * HMAC-SHA256 of the V2 text (without a signature header) followed by
 * "ots".  True when it matches; then v4_key holds the signing key's text,
 * with which the response is signed (HMAC-SHA1, as the SDK checks it).
 * Else replies 403 as auth_check_signature does, an unknown key id after
 * the same work.
 */
bool
auth_check_signature_v4(Call *call, const char *path, Header *headers, int header_count,
						const char *signature, const char *sign_date, const char *region,
						char v4_key[OTSD_V4_KEY_LEN + 1])
{
	static const char decoy_secret[] = "no client knows this secret";
	const char *secret = call->key ? call->key->secret : decoy_secret;
	Buf			first = {0};
	Buf			text = {0};
	unsigned char key[32];
	unsigned char mac[32];
	char		expected[OTSD_V4_KEY_LEN + 1];
	bool		ok;

	buf_put(&first, "aliyun_v4", 9);
	buf_put(&first, secret, strlen(secret));
	hmac_sha256(first.data, first.len, sign_date, strlen(sign_date), key);
	OPENSSL_cleanse(first.data, first.len);
	buf_free(&first);
	hmac_sha256(key, sizeof(key), region, strlen(region), key);
	hmac_sha256(key, sizeof(key), "ots", 3, key);
	hmac_sha256(key, sizeof(key), "aliyun_v4_request", 17, key);
	EVP_EncodeBlock((unsigned char *) v4_key, key, sizeof(key));
	OPENSSL_cleanse(key, sizeof(key));

	buf_put(&text, path, strlen(path));
	buf_put(&text, "\nPOST\n\n", 7);
	add_canonical_headers(&text, headers, header_count);
	buf_put(&text, "ots", 3);
	hmac_sha256(v4_key, strlen(v4_key), text.data, text.len, mac);
	buf_free(&text);
	EVP_EncodeBlock((unsigned char *) expected, mac, sizeof(mac));

	ok = same_text(expected, signature) && call->key != NULL;
	if (!ok)
	{
		OPENSSL_cleanse(v4_key, OTSD_V4_KEY_LEN + 1);
		call_error(call, 403, "OTSAuthFailed", "Signature mismatch.");
	}
	return ok;
}

/* auth_sign_response_v4: auth_sign_response for a V4-signed request: keyed with its signing key */
void
auth_sign_response_v4(const char *v4_key, const char *action, Header *headers, int header_count,
					  char out[OTSD_SHA1_BASE64_LEN + 1])
{
	Buf			text = {0};
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int mac_len = 0;

	add_canonical_headers(&text, headers, header_count);
	buf_byte(&text, '/');
	buf_put(&text, action, strlen(action));
	pthread_once(&digests_once, digests_fetch);
	if (HMAC(sha1_md, v4_key, (int) strlen(v4_key), text.data, text.len, mac, &mac_len) == NULL)
		abort();
	buf_free(&text);
	EVP_EncodeBlock((unsigned char *) out, mac, (int) mac_len);
}

/*
 * auth_sign_response: the signature of a response to action with these
 * x-ots-* headers (reordered), for "Authorization: OTS <id>:<signature>".
 */
void
auth_sign_response(const AccessKey *key, const char *action,
				   Header *headers, int header_count,
				   char out[OTSD_SHA1_BASE64_LEN + 1])
{
	Buf			text = {0};

	add_canonical_headers(&text, headers, header_count);
	buf_byte(&text, '/');
	buf_put(&text, action, strlen(action));
	hmac_sha1_base64(key->hmac, text.data, text.len, out);
	buf_free(&text);
}

/*
 * auth_check_md5: true when content_md5 (x-ots-contentmd5) is the body's;
 * else replies 403 OTSAuthFailed.
 */
bool
auth_check_md5(Call *call, const char *content_md5)
{
	char		actual[OTSD_MD5_BASE64_LEN + 1];

	auth_md5_base64(call->body, call->body_len, actual);
	if (same_text(actual, content_md5))
		return true;
	call_error(call, 403, "OTSAuthFailed",
			   "Mismatch between MD5 value of request body and x-ots-contentmd5 in header.");
	return false;
}

/*
 * parse_date: x-ots-date as the SDKs send it, ISO 8601 in UTC
 * ("2024-05-01T08:00:00.000Z", fraction optional: Node, Java, Python) or
 * RFC 822 ("Sat, 07 Jun 2014 14:25:40 GMT": older SDKs).  False when it is
 * neither.
 */
static bool
parse_date(const char *date, time_t *when)
{
	struct tm	tm;
	const char *rest;

	memset(&tm, 0, sizeof(tm));
	rest = strptime(date, "%Y-%m-%dT%H:%M:%S", &tm);
	if (rest != NULL)
	{
		if (*rest == '.')
		{
			rest++;
			if (*rest < '0' || *rest > '9')
				return false;
			while (*rest >= '0' && *rest <= '9')
				rest++;
		}
		if (strcmp(rest, "Z") != 0)
			return false;
	}
	else
	{
		memset(&tm, 0, sizeof(tm));
		rest = strptime(date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
		if (rest == NULL || *rest != '\0')
			return false;
	}
	*when = timegm(&tm);
	return *when != (time_t) -1;
}

/*
 * auth_check_date: true when x-ots-date is a date within 15 minutes of our
 * clock; else replies 400 (not a date) or 403 (too far).
 */
bool
auth_check_date(Call *call, const char *date)
{
	time_t		when;
	time_t		now = time(NULL);

	if (!parse_date(date, &when))
	{
		call_parameter_invalid(call, "Invalid date format: %s.", date);
		return false;
	}
	if (when < now - OTSD_MAX_CLOCK_SKEW_SECONDS || when > now + OTSD_MAX_CLOCK_SKEW_SECONDS)
	{
		call_error(call, 403, "OTSAuthFailed",
				   "Mismatch between system time and x-ots-date: %s.", date);
		return false;
	}
	return true;
}

/* auth_random_hex: bytes random bytes as 2 * bytes hex digits and a NUL */
void
auth_random_hex(char *out, size_t bytes)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char random[64];

	if (bytes > sizeof(random) || RAND_bytes(random, (int) bytes) != 1)
		abort();
	for (size_t i = 0; i < bytes; i++)
	{
		out[2 * i] = digits[random[i] >> 4];
		out[2 * i + 1] = digits[random[i] & 0x0f];
	}
	out[2 * bytes] = '\0';
}
