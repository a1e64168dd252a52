/*-------------------------------------------------------------------------
 * bench/gateway/load.c
 *	  bench/gateway.sh's C load generator: keeps CONNS requests of one
 *	  Tablestore action outstanding against otsd, one per keep-alive
 *	  connection, for SECONDS, and prints one JSON line with what it counted.
 *
 *	  load HOST PORT ACTION SECONDS CONNS START_AT_MS TAG
 *
 * ACTION and the rows it touches are bench/gateway/client.js's, so that the
 * C client and the Node SDK send the same requests:
 *	  put     PutRow of a new key (pk1 "c<TAG>_<conn>", pk2 counting up), the
 *	          5 attributes of bench/run.sh, condition IGNORE
 *	  get     GetRow of a random existing row, max_versions 1
 *	  update  UpdateRow of a random existing row: a2 put, condition IGNORE
 *	  range   GetRange of one random partition key's 100 rows, limit 100
 *	  batch   BatchWriteRow of 200 PutRows of new keys
 *	  hop     ListSearchIndex of every table, empty body: otsd answers it
 *	          (the empty list) without PostgreSQL, so its CPU is the HTTP hop's
 * Requests are built and signed as the SDKs build them (protobuf body,
 * PlainBuffer rows, Content-MD5, the V2 HMAC-SHA1 signature), each as it is
 * sent; the client is cheap next to the server, which is what the bench
 * measures.  A reply that is not 200 is an error, counted and its first
 * printed to stderr.  Environment: OTS_INSTANCE, OTS_KEY_ID,
 * OTS_KEY_SECRET, BENCH_ROWS.
 *-------------------------------------------------------------------------
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "format/plainbuffer_wire.h"

#define MAX_CONNS 256

typedef struct Buf
{
	uint8_t    *data;
	size_t		len,
				cap;
} Buf;

static void
put(Buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap)
	{
		b->cap = (b->len + n) * 2 + 64;
		if ((b->data = realloc(b->data, b->cap)) == NULL)
			abort();
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void
byte(Buf *b, uint8_t c)
{
	put(b, &c, 1);
}

static void
le32(Buf *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		byte(b, (uint8_t) (v >> (8 * i)));
}

static void
le64(Buf *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		byte(b, (uint8_t) (v >> (8 * i)));
}

/* --------------------------- PlainBuffer (its format: src/format/plainbuffer_wire.h) */

enum
{
	VT_INTEGER = PB_VT_INTEGER, VT_DOUBLE = PB_VT_DOUBLE, VT_BOOLEAN = PB_VT_BOOLEAN,
	VT_STRING = PB_VT_STRING, VT_INF_MIN = PB_VT_INF_MIN, VT_INF_MAX = PB_VT_INF_MAX
};

typedef struct Val
{
	int			type;
	int64_t		i;
	double		d;
	const char *s;
} Val;

/* one cell: name, value, checksum; *row_crc folds the cell's */
static void
cell(Buf *b, const char *name, Val v, uint8_t *row_crc)
{
	size_t		start,
				n = strlen(name);
	uint8_t		c = 0;
	uint64_t	bits = 0;

	byte(b, PB_TAG_CELL);
	byte(b, PB_TAG_CELL_NAME);
	le32(b, (uint32_t) n);
	put(b, name, n);
	c = pb_crc8(c, (const uint8_t *) name, n);
	byte(b, PB_TAG_CELL_VALUE);
	start = b->len;
	switch (v.type)
	{
		case VT_INTEGER:
		case VT_DOUBLE:
			if (v.type == VT_INTEGER)
				bits = (uint64_t) v.i;
			else
				memcpy(&bits, &v.d, 8);
			le32(b, 9);
			byte(b, (uint8_t) v.type);
			le64(b, bits);
			break;
		case VT_BOOLEAN:
			le32(b, 2);
			byte(b, VT_BOOLEAN);
			byte(b, v.i ? 1 : 0);
			break;
		case VT_STRING:
			le32(b, (uint32_t) (5 + strlen(v.s)));
			byte(b, VT_STRING);
			le32(b, (uint32_t) strlen(v.s));
			put(b, v.s, strlen(v.s));
			break;
		default:
			le32(b, 1);
			byte(b, (uint8_t) v.type);
	}
	c = pb_crc8(c, b->data + start + 4, b->len - start - 4);
	byte(b, PB_TAG_CELL_CHECKSUM);
	byte(b, c);
	*row_crc = pb_crc8_byte(*row_crc, c);
}

static void
row_end(Buf *b, uint8_t row_crc)
{
	byte(b, PB_TAG_ROW_CHECKSUM);
	byte(b, pb_crc8_byte(row_crc, 0));	/* no delete marker */
}

/* a PlainBuffer row: key (pk1, pk2), then nattrs attributes (may be 0) */
static void
pb_row(Buf *b, const char *pk1, Val pk2, const char *const *names, const Val *attrs, int nattrs)
{
	uint8_t		row_crc = 0;

	le32(b, PB_HEADER);
	byte(b, PB_TAG_ROW_PK);
	cell(b, "pk1", (Val) {.type = VT_STRING,.s = pk1}, &row_crc);
	cell(b, "pk2", pk2, &row_crc);
	if (nattrs > 0)
	{
		byte(b, PB_TAG_ROW_DATA);
		for (int i = 0; i < nattrs; i++)
			cell(b, names[i], attrs[i], &row_crc);
	}
	row_end(b, row_crc);
}

/* --------------------------------------------------------------- protobuf */

static void
varint(Buf *b, uint64_t v)
{
	while (v >= 0x80)
	{
		byte(b, (uint8_t) (v | 0x80));
		v >>= 7;
	}
	byte(b, (uint8_t) v);
}

static void
field_varint(Buf *b, int field, uint64_t v)
{
	varint(b, (uint64_t) field << 3);
	varint(b, v);
}

static void
field_bytes(Buf *b, int field, const void *p, size_t n)
{
	varint(b, (uint64_t) field << 3 | 2);
	varint(b, n);
	put(b, p, n);
}

/* Condition { row_existence: IGNORE } */
static void
field_condition_ignore(Buf *b, int field)
{
	uint8_t		c[2] = {0x08, 0x00};

	field_bytes(b, field, c, 2);
}

/* ---------------------------------------------------------------- requests */

static const char *const attr_names[5] = {"a1", "a2", "a3", "a4", "a5"};
static const char *action;
static const char *tag;
static long rows;
static uint64_t counters[MAX_CONNS];

static void
attrs_of(Val out[5], int64_t n)
{
	out[0] = (Val) {.type = VT_STRING,.s = "abcdefghijklmnopqrst"};
	out[1] = (Val) {.type = VT_INTEGER,.i = n};
	out[2] = (Val) {.type = VT_DOUBLE,.d = 1.5};
	out[3] = (Val) {.type = VT_BOOLEAN,.i = 1};
	out[4] = (Val) {.type = VT_STRING,.s = "ABCDEFGHIJKLMNOPQRST"};
}

static void
partition_key(char *out, long i)
{
	sprintf(out, "p%ld", 10000 + i / 100);
}

/* the body of one request of the action, from connection conn; its path */
static const char *
body_of(Buf *body, int conn)
{
	Buf			row = {0};
	char		pk1[64];
	Val			attrs[5];
	long		i = random() % rows;

	body->len = 0;
	if (strcmp(action, "hop") == 0)
		return "/ListSearchIndex";	/* of every table: otsd answers it without PostgreSQL */
	if (strcmp(action, "get") == 0)
	{
		partition_key(pk1, i);
		pb_row(&row, pk1, (Val) {.type = VT_INTEGER,.i = i % 100}, NULL, NULL, 0);
		field_bytes(body, 1, "bench_t", 7);
		field_bytes(body, 2, row.data, row.len);
		field_varint(body, 5, 1);
		free(row.data);
		return "/GetRow";
	}
	if (strcmp(action, "update") == 0)
	{
		Val			a2 = {.type = VT_INTEGER,.i = (int64_t) counters[conn]++};

		partition_key(pk1, i);
		pb_row(&row, pk1, (Val) {.type = VT_INTEGER,.i = i % 100}, &attr_names[1], &a2, 1);
		field_bytes(body, 1, "bench_t", 7);
		field_bytes(body, 2, row.data, row.len);
		field_condition_ignore(body, 3);
		free(row.data);
		return "/UpdateRow";
	}
	if (strcmp(action, "range") == 0)
	{
		Buf			end = {0};

		partition_key(pk1, i);
		pb_row(&row, pk1, (Val) {.type = VT_INF_MIN}, NULL, NULL, 0);
		pb_row(&end, pk1, (Val) {.type = VT_INF_MAX}, NULL, NULL, 0);
		field_bytes(body, 1, "bench_t", 7);
		field_varint(body, 2, 0);
		field_varint(body, 5, 1);
		field_varint(body, 6, 100);
		field_bytes(body, 7, row.data, row.len);
		field_bytes(body, 8, end.data, end.len);
		free(row.data);
		free(end.data);
		return "/GetRange";
	}
	snprintf(pk1, sizeof(pk1), "c%s_%d", tag, conn);
	if (strcmp(action, "put") == 0)
	{
		int64_t		n = (int64_t) counters[conn]++;

		attrs_of(attrs, n);
		pb_row(&row, pk1, (Val) {.type = VT_INTEGER,.i = n}, attr_names, attrs, 5);
		field_bytes(body, 1, "bench_t", 7);
		field_bytes(body, 2, row.data, row.len);
		field_condition_ignore(body, 3);
		free(row.data);
		return "/PutRow";
	}
	/* batch: one table entry of 200 PutRows */
	{
		Buf			table = {0},
					entry = {0};

		field_bytes(&table, 1, "bench_t", 7);
		for (int r = 0; r < 200; r++)
		{
			int64_t		n = (int64_t) counters[conn]++;

			attrs_of(attrs, n);
			row.len = 0;
			pb_row(&row, pk1, (Val) {.type = VT_INTEGER,.i = n}, attr_names, attrs, 5);
			entry.len = 0;
			field_varint(&entry, 1, 1);
			field_bytes(&entry, 2, row.data, row.len);
			field_condition_ignore(&entry, 3);
			field_bytes(&table, 2, entry.data, entry.len);
		}
		field_bytes(body, 1, table.data, table.len);
		free(row.data);
		free(table.data);
		free(entry.data);
		return "/BatchWriteRow";
	}
}

static void
base64(const unsigned char *in, int n, char *out)
{
	EVP_EncodeBlock((unsigned char *) out, in, n);
}

/* one whole HTTP request of the action into out */
static void
request_of(Buf *out, int conn)
{
	static Buf	body;
	const char *instance = getenv("OTS_INSTANCE");
	const char *id = getenv("OTS_KEY_ID");
	const char *secret = getenv("OTS_KEY_SECRET");
	const char *path = body_of(&body, conn);
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int dlen = 0;
	char		md5[32],
				date[40],
				sig[40],
				sign[1024],
				head[2048];
	struct timespec now;
	struct tm	tm;
	int			n;

	EVP_Digest(body.data, body.len, digest, &dlen, EVP_md5(), NULL);
	base64(digest, (int) dlen, md5);
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	n = (int) strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(date + n, sizeof(date) - n, ".%03ldZ", now.tv_nsec / 1000000);
	n = snprintf(sign, sizeof(sign),
				 "%s\nPOST\n\nx-ots-accesskeyid:%s\nx-ots-apiversion:2015-12-31\n"
				 "x-ots-contentmd5:%s\nx-ots-date:%s\nx-ots-instancename:%s\n",
				 path, id, md5, date, instance);
	HMAC(EVP_sha1(), secret, (int) strlen(secret), (unsigned char *) sign, (size_t) n, digest, &dlen);
	base64(digest, (int) dlen, sig);
	n = snprintf(head, sizeof(head),
				 "POST %s HTTP/1.1\r\nHost: otsd\r\nContent-Type: application/x.pb2\r\n"
				 "Content-Length: %zu\r\nx-ots-accesskeyid: %s\r\nx-ots-apiversion: 2015-12-31\r\n"
				 "x-ots-contentmd5: %s\r\nx-ots-date: %s\r\nx-ots-instancename: %s\r\n"
				 "x-ots-signature: %s\r\n\r\n",
				 path, body.len, id, md5, date, instance, sig);
	out->len = 0;
	put(out, head, (size_t) n);
	put(out, body.data, body.len);
}

/* ------------------------------------------------------------ connections */

typedef struct Conn
{
	int			fd;
	Buf			out;
	size_t		sent;
	Buf			in;
	bool		counted;		/* its request was sent within the window */
} Conn;

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* the length of a whole response at the start of in, or 0 if it has not all come */
static size_t
response_length(const Buf *in, int *status)
{
	const char *end = memmem(in->data, in->len, "\r\n\r\n", 4);
	const char *cl;
	size_t		head,
				body = 0;

	if (end == NULL)
		return 0;
	head = (size_t) (end - (const char *) in->data) + 4;
	*status = atoi((const char *) in->data + 9);
	cl = memmem(in->data, head, "Content-Length:", 15);
	if (cl == NULL)
		cl = memmem(in->data, head, "content-length:", 15);
	if (cl != NULL)
		body = strtoul(cl + 15, NULL, 10);
	return in->len >= head + body ? head + body : 0;
}

int
main(int argc, char **argv)
{
	Conn		conns[MAX_CONNS];
	struct pollfd fds[MAX_CONNS];
	struct sockaddr_in addr = {0};
	int			nconns;
	double		seconds,
				start_at,
				end_at;
	long		done = 0,
				errors = 0;
	struct rusage ru;

	if (argc != 8 || (nconns = atoi(argv[5])) < 1 || nconns > MAX_CONNS ||
		getenv("OTS_INSTANCE") == NULL || getenv("OTS_KEY_ID") == NULL ||
		getenv("OTS_KEY_SECRET") == NULL)
	{
		fprintf(stderr, "usage: load HOST PORT put|get|update|range|batch SECONDS CONNS START_AT_MS TAG\n"
				"(with OTS_INSTANCE, OTS_KEY_ID, OTS_KEY_SECRET set)\n");
		return 2;
	}
	action = argv[3];
	seconds = atof(argv[4]);
	start_at = atof(argv[6]);
	tag = argv[7];
	rows = getenv("BENCH_ROWS") ? atol(getenv("BENCH_ROWS")) : 100000;
	srandom((unsigned) getpid());
	addr.sin_family = AF_INET;
	addr.sin_port = htons((uint16_t) atoi(argv[2]));
	if (inet_pton(AF_INET, argv[1], &addr.sin_addr) != 1)
	{
		fprintf(stderr, "load: bad address %s\n", argv[1]);
		return 2;
	}
	while (now_ms() < start_at)
		usleep(1000);
	end_at = now_ms() + seconds * 1e3;
	for (int c = 0; c < nconns; c++)
	{
		int			one = 1;

		memset(&conns[c], 0, sizeof(Conn));
		conns[c].fd = socket(AF_INET, SOCK_STREAM, 0);
		if (conns[c].fd < 0 || connect(conns[c].fd, (struct sockaddr *) &addr, sizeof(addr)) != 0)
		{
			perror("load: connect");
			return 1;
		}
		setsockopt(conns[c].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		request_of(&conns[c].out, c);
		conns[c].counted = true;
	}
	for (;;)
	{
		bool		open = false;

		for (int c = 0; c < nconns; c++)
		{
			fds[c].fd = conns[c].fd;
			fds[c].events = conns[c].sent < conns[c].out.len ? POLLOUT : POLLIN;
			open |= conns[c].fd >= 0;
		}
		if (!open)
			break;
		if (poll(fds, (nfds_t) nconns, 1000) < 0 && errno != EINTR)
		{
			perror("load: poll");
			return 1;
		}
		for (int c = 0; c < nconns; c++)
		{
			Conn	   *k = &conns[c];
			int			status = 0;
			size_t		whole;
			ssize_t		n;

			if (k->fd < 0 || fds[c].revents == 0)
				continue;
			if (k->sent < k->out.len)
			{
				n = write(k->fd, k->out.data + k->sent, k->out.len - k->sent);
				if (n < 0 && errno != EAGAIN && errno != EINTR)
				{
					perror("load: write");
					return 1;
				}
				k->sent += n > 0 ? (size_t) n : 0;
				continue;
			}
			if (k->in.cap - k->in.len < 65536)
			{
				k->in.cap = k->in.cap * 2 + 65536;
				if ((k->in.data = realloc(k->in.data, k->in.cap)) == NULL)
					abort();
			}
			n = read(k->fd, k->in.data + k->in.len, k->in.cap - k->in.len);
			if (n <= 0)
			{
				fprintf(stderr, "load: connection %d closed by otsd\n", c);
				return 1;
			}
			k->in.len += (size_t) n;
			if ((whole = response_length(&k->in, &status)) == 0)
				continue;
			if (status != 200)
			{
				if (errors++ == 0)
					fprintf(stderr, "load: HTTP %d: %.*s\n", status, (int) k->in.len, k->in.data);
			}
			else if (k->counted)
				done++;
			memmove(k->in.data, k->in.data + whole, k->in.len - whole);
			k->in.len -= whole;
			k->sent = 0;
			if (now_ms() >= end_at)
			{
				close(k->fd);
				k->fd = -1;
				continue;
			}
			request_of(&k->out, c);
		}
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("{\"rps\": %.1f, \"requests\": %ld, \"errors\": %ld, \"cpu_us\": %.0f}\n",
		   done / seconds, done, errors,
		   (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	return errors > 0 ? 1 : 0;
}
