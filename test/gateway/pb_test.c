/*-------------------------------------------------------------------------
 * test/gateway/pb_test.c
 *	  Unit tests of otsd's PlainBuffer and filter codecs (gateway/
 *	  plainbuffer*.c, filter.c), run by pb_test.sh.
 *
 *	  pb_test VECTORS [EMIT]
 *
 * VECTORS holds "name hex" lines the official Node SDK's encoders wrote
 * (sdk_vectors.js).  Each is decoded and compared with the jsonb ots
 * expects, and where our encoders can write the same row, what they write
 * must be the SDK's bytes exactly.  Hand-made damaged inputs (checksums,
 * truncations, tags, lengths, types) must be refused with a message.  With
 * EMIT, our encodings of a few rows are written there as "name hex" lines
 * for sdk_decode.js to read back with the SDK's decoder.
 * Prints "test NAME ... ok" or "test NAME ... FAILED (why)"; exits 1 on
 * any failure.
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otsd.h"
#include "plainbuffer.h"
#include "format/plainbuffer_wire.h"

#define MAX_VECTORS 64

typedef struct Vector
{
	char		name[64];
	uint8_t    *bytes;
	size_t		len;
} Vector;

static Vector vectors[MAX_VECTORS];
static int	n_vectors;
static int	failures;
static char why[512];

/* fail_because: the reason a test failed; returns false */
static bool
fail_because(const char *fmt,...)
{
	va_list		args;

	va_start(args, fmt);
	vsnprintf(why, sizeof(why), fmt, args);
	va_end(args);
	return false;
}

static void
report(const char *name, bool ok)
{
	if (ok)
		printf("test %s ... ok\n", name);
	else
	{
		printf("test %s ... FAILED (%s)\n", name, why);
		failures++;
	}
	why[0] = '\0';
}

static void
load_vectors(const char *path)
{
	FILE	   *f = fopen(path, "r");
	char		name[64];
	static char hex[1 << 16];

	if (f == NULL)
	{
		perror(path);
		exit(2);
	}
	while (n_vectors < MAX_VECTORS && fscanf(f, "%63s %65535s", name, hex) == 2)
	{
		Vector	   *v = &vectors[n_vectors++];
		size_t		n = strlen(hex) / 2;

		snprintf(v->name, sizeof(v->name), "%s", name);
		v->bytes = malloc(n + 1);
		for (size_t i = 0; i < n; i++)
			sscanf(hex + 2 * i, "%2hhx", &v->bytes[i]);
		v->len = n;
	}
	fclose(f);
}

static const Vector *
vector(const char *name)
{
	for (int i = 0; i < n_vectors; i++)
		if (strcmp(vectors[i].name, name) == 0)
			return &vectors[i];
	fprintf(stderr, "no vector %s (is sdk_vectors.js current?)\n", name);
	exit(2);
}

/* sdk_length: the vector's length without the zero padding the Node SDK leaves */
static size_t
sdk_length(const Vector *v)
{
	size_t		n = v->len;

	while (n > 0 && v->bytes[n - 1] == 0)
		n--;
	return n;
}

/* json_is: got equals the json text expected (types exact: 3 is not 3.0) */
static bool
json_is(const char *what, json_t *got, const char *expected)
{
	json_error_t error;
	json_t	   *want;
	bool		same;

	if (expected == NULL)
	{
		if (got == NULL)
			return true;
		char	   *text = json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS);

		fail_because("%s: expected nothing, got %s", what, text);
		free(text);
		return false;
	}
	want = json_loads(expected, JSON_DECODE_ANY, &error);
	if (want == NULL)
		return fail_because("%s: bad expected json: %s", what, error.text);
	same = got != NULL && json_equal(got, want);
	if (!same)
	{
		char	   *text = got ? json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS) : NULL;

		fail_because("%s: expected %s, got %s", what, expected, text ? text : "nothing");
		free(text);
	}
	json_decref(want);
	return same;
}

static json_t *
parse(const char *text)
{
	json_error_t error;
	json_t	   *j = json_loads(text, JSON_DECODE_ANY, &error);

	if (j == NULL)
	{
		fprintf(stderr, "bad json in test: %s: %s\n", text, error.text);
		exit(2);
	}
	return j;
}

static bool
bytes_are(const char *what, const Buf *got, const uint8_t *want, size_t want_len)
{
	if (got->len == want_len && memcmp(got->data, want, want_len) == 0)
		return true;
	for (size_t i = 0; i < got->len && i < want_len; i++)
		if (got->data[i] != want[i])
			return fail_because("%s: %zu bytes, SDK %zu; first difference at byte %zu (0x%02x, SDK 0x%02x)",
								what, got->len, want_len, i, got->data[i], want[i]);
	return fail_because("%s: %zu bytes, SDK %zu, one a prefix of the other", what, got->len, want_len);
}

/* ------------------------------------------------------------ row cases */

typedef struct RowCase
{
	const char *vector;
	const char *primary_key;
	const char *pk_order;
	const char *put;
	const char *delete_one;
	const char *delete_all;
	const char *increment;
	bool		delete_marker;
	bool		reencode;		/* pb_write_row must give the SDK's bytes */
} RowCase;

static const RowCase row_cases[] = {
	{"key_simple", "{\"pk1\": \"a\", \"pk2\": 5}", "[\"pk1\", \"pk2\"]", NULL, NULL, NULL, NULL, false, true},
	{"key_edge", "{\"k\": {\"$binary\": \"AAEC/w==\"}, \"n\": -9223372036854775808, \"e\": \"\"}",
	"[\"k\", \"n\", \"e\"]", NULL, NULL, NULL, NULL, false, true},
	{"key_inf", "{\"a\": {\"$inf\": \"min\"}, \"b\": {\"$inf\": \"max\"}}", "[\"a\", \"b\"]",
	NULL, NULL, NULL, NULL, false, true},
	{"key_auto", "{\"a\": \"x\", \"id\": {\"$auto_increment\": true}}", "[\"a\", \"id\"]",
	NULL, NULL, NULL, NULL, false, true},
	{"put_types", "{\"pk\": \"row1\"}", "[\"pk\"]",
		"{\"s\": [{\"value\": \"hello\"}], \"u\": [{\"value\": \"\\u4e2d\\u6587\"}],"
		" \"i\": [{\"value\": -7}], \"big\": [{\"value\": 9223372036854775807}],"
		" \"d\": [{\"value\": 3.0}], \"d2\": [{\"value\": 2.5}],"
		" \"tiny\": [{\"value\": {\"$double\": 1e-300}}], \"huge\": [{\"value\": {\"$double\": 1e300}}],"
		" \"neg\": [{\"value\": -0.125}], \"b\": [{\"value\": true}], \"f\": [{\"value\": false}],"
		" \"bin\": [{\"value\": {\"$binary\": \"AAEC/f7/\"}}], \"empty\": [{\"value\": \"\"}]}",
	NULL, NULL, NULL, false, true},
	{"put_ts", "{\"pk\": 1}", "[\"pk\"]",
		"{\"c\": [{\"value\": 1, \"ts\": 1700000000000}], \"c2\": [{\"value\": 2, \"ts\": 1700000000001}],"
		" \"d\": [{\"value\": \"x\", \"ts\": 0}]}",
	NULL, NULL, NULL, false, true},
	{"put_nan", "{\"pk\": \"n\"}", "[\"pk\"]",
		"{\"x\": [{\"value\": {\"$double\": \"NaN\"}}], \"y\": [{\"value\": {\"$double\": \"Infinity\"}}],"
		" \"z\": [{\"value\": {\"$double\": \"-Infinity\"}}]}",
	NULL, NULL, NULL, false, true},
	{"put_key_only", "{\"pk\": \"k\"}", "[\"pk\"]", NULL, NULL, NULL, NULL, false, true},
	{"update_ops", "{\"pk\": \"u\"}", "[\"pk\"]",
		"{\"p\": [{\"value\": 1}], \"q\": [{\"value\": \"v\", \"ts\": 5}]}",
		"{\"r\": [1234]}", "[\"s\", \"t\"]", "{\"n\": 3}", false, false},
	{"delete_row", "{\"pk\": \"d\", \"n\": 2}", "[\"pk\", \"n\"]", NULL, NULL, NULL, NULL, true, false},
};

/* row_case: decode the SDK's bytes, compare, re-encode */
static bool
row_case(const RowCase *c)
{
	const Vector *v = vector(c->vector);
	PbRow		rows[2];
	char		err[256];
	int			n = pb_decode_rows(v->bytes, v->len, rows, 2, err, sizeof(err));
	bool		ok;

	if (n != 1)
		return fail_because("decoded %d rows: %s", n, n < 0 ? err : "");
	ok = json_is("primary_key", rows[0].primary_key, c->primary_key) &&
		json_is("pk_order", rows[0].pk_order, c->pk_order) &&
		json_is("put", rows[0].put, c->put) &&
		json_is("delete_one", rows[0].delete_one, c->delete_one) &&
		json_is("delete_all", rows[0].delete_all, c->delete_all) &&
		json_is("increment", rows[0].increment, c->increment);
	if (ok && rows[0].delete_marker != c->delete_marker)
		ok = fail_because("delete_marker is %d", rows[0].delete_marker);
	if (ok && c->reencode)
	{
		Buf			out = {0};

		pb_begin(&out);
		pb_write_row(&out, rows[0].primary_key, rows[0].pk_order, rows[0].put);
		ok = bytes_are("pb_write_row", &out, v->bytes, sdk_length(v));
		buf_free(&out);
	}
	pb_row_free(&rows[0]);
	return ok;
}

/*
 * SQL text: whole Doubles keep their ".0" when jansson writes the jsonb
 * otsd sends, so ots reads them as Doubles, not Integers.
 */
static bool
double_text(void)
{
	const Vector *v = vector("put_types");
	PbRow		row;
	char		err[256];
	char	   *text;
	bool		ok = true;

	if (pb_decode_rows(v->bytes, v->len, &row, 1, err, sizeof(err)) != 1)
		return fail_because("%s", err);
	text = json_dumps(row.put, JSON_COMPACT);
	if (strstr(text, "\"d\":[{\"value\":3.0}]") == NULL ||
		strstr(text, "\"i\":[{\"value\":-7}]") == NULL ||
		strstr(text, "\"huge\":[{\"value\":{\"$double\":") == NULL)
		ok = fail_because("text %s", text);
	free(text);
	pb_row_free(&row);
	return ok;
}

/* stream records: pb_write_change writes cells as the SDK writes UpdateRow's */
static bool
change_matches_sdk(void)
{
	const Vector *ops = vector("change_ops");
	const Vector *del = vector("delete_row");
	json_t	   *columns = parse("[{\"name\": \"q\", \"type\": \"PUT\", \"value\": \"v\", \"timestamp\": 5},"
								" {\"name\": \"r\", \"type\": \"DELETE_ONE_VERSION\", \"timestamp\": 1234},"
								" {\"name\": \"s\", \"type\": \"DELETE_ALL_VERSIONS\"}]");
	json_t	   *pk = parse("{\"pk\": \"u\"}");
	json_t	   *dpk = parse("{\"n\": 2, \"pk\": \"d\"}");
	json_t	   *dorder = parse("[\"pk\", \"n\"]");
	json_t	   *none = json_array();
	Buf			out = {0};
	bool		ok;

	pb_begin(&out);
	pb_write_change(&out, pk, NULL, columns, false, NULL);
	ok = bytes_are("change", &out, ops->bytes, sdk_length(ops));
	out.len = 0;
	pb_begin(&out);
	pb_write_change(&out, dpk, dorder, none, true, NULL);
	ok = ok && bytes_are("delete change", &out, del->bytes, sdk_length(del));

	/*
	 * with a record's sequence info: the same row with the extension, as the
	 * Go and Java SDKs read it, before its checksum, which does not cover it
	 * (bytes written out by hand: epoch 7, time 0x0102030405060708, index 3)
	 */
	{
		static const uint8_t ext[] = {0x0B, 24, 0, 0, 0, 0x0C, 19, 0, 0, 0, 0x0D, 7, 0, 0, 0,
		0x0E, 8, 7, 6, 5, 4, 3, 2, 1, 0x0F, 3, 0, 0, 0};
		PbSequenceInfo seq = {.epoch = 7, .timestamp = 0x0102030405060708, .row_index = 3};
		size_t		n = sdk_length(ops);
		uint8_t    *want = malloc(n + sizeof(ext));

		memcpy(want, ops->bytes, n - 2);
		memcpy(want + n - 2, ext, sizeof(ext));
		memcpy(want + n - 2 + sizeof(ext), ops->bytes + n - 2, 2);
		out.len = 0;
		pb_begin(&out);
		pb_write_change(&out, pk, NULL, columns, false, &seq);
		ok = ok && bytes_are("change with sequence info", &out, want, n + sizeof(ext));
		free(want);
		/* a deleted row: the extension after the delete marker */
		n = sdk_length(del);
		want = malloc(n + sizeof(ext));
		memcpy(want, del->bytes, n - 2);
		memcpy(want + n - 2, ext, sizeof(ext));
		memcpy(want + n - 2 + sizeof(ext), del->bytes + n - 2, 2);
		out.len = 0;
		pb_begin(&out);
		pb_write_change(&out, dpk, dorder, none, true, &seq);
		ok = ok && bytes_are("delete change with sequence info", &out, want, n + sizeof(ext));
		free(want);
	}
	buf_free(&out);
	json_decref(columns);
	json_decref(pk);
	json_decref(dpk);
	json_decref(dorder);
	json_decref(none);
	return ok;
}

/* ---------------------------------------------------------- our encoders */

static const char *const range_rows[][3] = {
	/* pk, pk order, attributes (ots's read output with timestamps) */
	{"{\"a\": \"r1\", \"b\": 1}", "[\"a\", \"b\"]",
	"{\"s\": [{\"ts\": 1700000000002, \"value\": \"new\"}, {\"ts\": 1700000000001, \"value\": \"old\"}],"
	" \"d\": [{\"ts\": 7, \"value\": 3.0}], \"big\": [{\"ts\": 7, \"value\": {\"$double\": 1e300}}],"
	" \"bin\": [{\"ts\": 7, \"value\": {\"$binary\": \"AP8=\"}}], \"t\": [{\"ts\": 8, \"value\": true}]}"},
	{"{\"b\": 2, \"a\": \"r2\"}", "[\"a\", \"b\"]", "{}"},
	{"{\"a\": \"r3\", \"b\": -3}", NULL, "{\"n\": [{\"ts\": 9, \"value\": -9223372036854775808}]}"},
};

/* encode_range: the three rows above as one GetRange payload */
static void
encode_range(Buf *out)
{
	pb_begin(out);
	for (size_t i = 0; i < sizeof(range_rows) / sizeof(range_rows[0]); i++)
	{
		json_t	   *pk = parse(range_rows[i][0]);
		json_t	   *order = range_rows[i][1] ? parse(range_rows[i][1]) : NULL;
		json_t	   *attrs = parse(range_rows[i][2]);

		pb_write_row(out, pk, order, attrs);
		json_decref(pk);
		json_decref(order);
		json_decref(attrs);
	}
}

/* our rows decode back to what was written, and max is enforced */
static bool
range_roundtrip(void)
{
	Buf			out = {0};
	PbRow		rows[3];
	char		err[256];
	int			n;
	bool		ok = true;

	encode_range(&out);
	n = pb_decode_rows(out.data, out.len, rows, 3, err, sizeof(err));
	if (n != 3)
		ok = fail_because("decoded %d rows: %s", n, n < 0 ? err : "");
	else
	{
		ok = json_is("row 1 key", rows[0].primary_key, "{\"a\": \"r1\", \"b\": 1}") &&
			json_is("row 1 put", rows[0].put,
					"{\"s\": [{\"ts\": 1700000000002, \"value\": \"new\"}, {\"ts\": 1700000000001, \"value\": \"old\"}],"
					" \"d\": [{\"ts\": 7, \"value\": 3.0}], \"big\": [{\"ts\": 7, \"value\": {\"$double\": 1e300}}],"
					" \"bin\": [{\"ts\": 7, \"value\": {\"$binary\": \"AP8=\"}}], \"t\": [{\"ts\": 8, \"value\": true}]}") &&
			json_is("row 2 order", rows[1].pk_order, "[\"a\", \"b\"]") &&
			json_is("row 2 put", rows[1].put, NULL) &&
			json_is("row 3 put", rows[2].put, "{\"n\": [{\"ts\": 9, \"value\": -9223372036854775808}]}");
		for (int i = 0; i < 3; i++)
			pb_row_free(&rows[i]);
	}
	if (ok && pb_decode_rows(out.data, out.len, rows, 2, err, sizeof(err)) != -1)
		ok = fail_because("three rows accepted where two are allowed");
	buf_free(&out);
	return ok;
}

/* ------------------------------------------------- damaged input, by hand */

/* a tiny writer of raw PlainBuffer, to damage it on purpose */
typedef struct Raw
{
	Buf			buf;
	uint8_t		cell_crc;
	uint8_t		row_crc;
} Raw;

static void
raw_u32(Raw *r, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		buf_byte(&r->buf, (uint8_t) (v >> (8 * i)));
}

/* raw_cell: a cell with one string-or-other value (type, payload bytes) */
static void
raw_cell(Raw *r, const char *name, uint8_t type, const void *payload, uint32_t n,
		 int op, bool bad_crc)
{
	uint8_t		crc = 0;

	buf_byte(&r->buf, 0x03);
	buf_byte(&r->buf, 0x04);
	raw_u32(r, (uint32_t) strlen(name));
	buf_put(&r->buf, name, strlen(name));
	crc = pb_crc8(crc, (const uint8_t *) name, strlen(name));
	buf_byte(&r->buf, 0x05);
	raw_u32(r, 1 + n);
	buf_byte(&r->buf, type);
	buf_put(&r->buf, payload, n);
	crc = pb_crc8(crc, &type, 1);
	crc = pb_crc8(crc, payload, n);
	if (op >= 0)
	{
		uint8_t		opb = (uint8_t) op;

		buf_byte(&r->buf, 0x06);
		buf_byte(&r->buf, opb);
		crc = pb_crc8(crc, &opb, 1);
	}
	buf_byte(&r->buf, 0x0A);
	buf_byte(&r->buf, bad_crc ? (uint8_t) (crc ^ 0x55) : crc);
	r->row_crc = pb_crc8(r->row_crc, &crc, 1);
}

/* raw_string_cell: payload is int32 length + bytes */
static void
raw_string_cell(Raw *r, const char *name, const char *s, size_t n, bool bad_crc)
{
	uint8_t		payload[64];

	for (int i = 0; i < 4; i++)
		payload[i] = (uint8_t) ((uint32_t) n >> (8 * i));
	memcpy(payload + 4, s, n);
	raw_cell(r, name, 0x03, payload, (uint32_t) (4 + n), -1, bad_crc);
}

static void
raw_end(Raw *r, bool bad_crc)
{
	uint8_t		zero = 0;

	r->row_crc = pb_crc8(r->row_crc, &zero, 1);
	buf_byte(&r->buf, 0x09);
	buf_byte(&r->buf, bad_crc ? (uint8_t) (r->row_crc ^ 0x55) : r->row_crc);
}

static void
raw_begin(Raw *r)
{
	memset(r, 0, sizeof(*r));
	raw_u32(r, 0x75);
	buf_byte(&r->buf, 0x01);
}

/* refused: the bytes must be refused, with a message containing expect */
static bool
refused(const char *what, const uint8_t *data, size_t len, const char *expect)
{
	PbRow		rows[4];
	char		err[256] = "";
	int			n = pb_decode_rows(data, len, rows, 4, err, sizeof(err));

	if (n >= 0)
	{
		for (int i = 0; i < n; i++)
			pb_row_free(&rows[i]);
		return fail_because("%s: accepted (%d rows)", what, n);
	}
	if (err[0] == '\0' || (expect != NULL && strstr(err, expect) == NULL))
		return fail_because("%s: message \"%s\", expected \"%s\"", what, err, expect ? expect : "some");
	return true;
}

/* a hand-made case: build it with damage, expect the message */
typedef enum Damage
{
	GOOD, BAD_CELL_CRC, BAD_ROW_CRC, EMPTY_PK, DOUBLE_PK, NUL_STRING, BAD_UTF8,
	DELETE_ONE_NO_TS, UNKNOWN_OP, BAD_HEADER, TRAILING_GARBAGE, BAD_VALUE_LENGTH,
	DUPLICATE_PK, INF_ATTRIBUTE, BAD_NAME
} Damage;

static Buf
hand_made(Damage damage)
{
	Raw			r;
	uint8_t		eight[8] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f};	/* 1.0 */

	raw_begin(&r);
	if (damage != EMPTY_PK)
	{
		if (damage == DOUBLE_PK)
			raw_cell(&r, "pk", 0x01, eight, 8, -1, false);
		else
			raw_string_cell(&r, "pk", "key", 3, false);
		if (damage == DUPLICATE_PK)
			raw_string_cell(&r, "pk", "again", 5, false);
	}
	buf_byte(&r.buf, 0x02);
	switch (damage)
	{
		case BAD_CELL_CRC:
			raw_string_cell(&r, "c", "text", 4, true);
			break;
		case NUL_STRING:
			raw_string_cell(&r, "c", "a\0b", 3, false);
			break;
		case BAD_UTF8:
			raw_string_cell(&r, "c", "\xff\xfe", 2, false);
			break;
		case BAD_NAME:
			raw_string_cell(&r, "c\xc3", "x", 1, false);
			break;
		case DELETE_ONE_NO_TS:
			raw_cell(&r, "c", 0x00, eight, 8, 0x03, false);
			break;
		case UNKNOWN_OP:
			raw_cell(&r, "c", 0x00, eight, 8, 0x02, false);
			break;
		case INF_ATTRIBUTE:
			raw_cell(&r, "c", 0x09, NULL, 0, -1, false);
			break;
		default:
			raw_string_cell(&r, "c", "text", 4, false);
			break;
	}
	raw_end(&r, damage == BAD_ROW_CRC);
	if (damage == BAD_HEADER)
		r.buf.data[0] = 0x76;
	if (damage == TRAILING_GARBAGE)
		buf_byte(&r.buf, 0x42);
	if (damage == BAD_VALUE_LENGTH)
		r.buf.data[4 + 1 + 2 + 4 + 2 + 1] += 1;	/* the pk's value length */
	return r.buf;
}

static bool
hand_made_cases(void)
{
	static const struct
	{
		Damage		damage;
		const char *name;
		const char *message;
	}			cases[] = {
		{BAD_CELL_CRC, "bad cell checksum", "Cell data broken, checksum mismatch in column 'c'."},
		{BAD_ROW_CRC, "bad row checksum", "Cell data broken, row checksum mismatch."},
		{EMPTY_PK, "empty key", "Cell data broken, empty PK."},
		{DOUBLE_PK, "double key", "DOUBLE is an invalid type for the primary key."},
		{DUPLICATE_PK, "duplicate key", "Duplicated primary key name: 'pk'."},
		{NUL_STRING, "NUL in string", "contains a NUL character"},
		{BAD_UTF8, "invalid UTF-8", "is not valid UTF-8"},
		{BAD_NAME, "invalid name", "Invalid column name: 'c?'."},
		{DELETE_ONE_NO_TS, "delete one version without timestamp", "Timestamp must be given when type is DELETE_ONE_VERSION."},
		{UNKNOWN_OP, "unknown cell type", "unsupported cell type 2"},
		{INF_ATTRIBUTE, "INF_MIN attribute", "VT_INF_MIN is an invalid type for the attribute column."},
		{BAD_HEADER, "bad header", "invalid PlainBuffer header"},
		{TRAILING_GARBAGE, "trailing garbage", "a row does not start with its primary key"},
		{BAD_VALUE_LENGTH, "bad value length", "Cell data broken"},
	};
	Buf			good = hand_made(GOOD);
	PbRow		row;
	char		err[256];
	bool		ok = true;

	if (pb_decode_rows(good.data, good.len, &row, 1, err, sizeof(err)) != 1)
		ok = fail_because("the undamaged hand-made row is refused: %s", err);
	else
		pb_row_free(&row);
	buf_free(&good);
	for (size_t i = 0; ok && i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		Buf			bad = hand_made(cases[i].damage);

		ok = refused(cases[i].name, bad.data, bad.len, cases[i].message);
		buf_free(&bad);
	}
	return ok;
}

/*
 * every_damage: each SDK row vector, cut at every length and with every
 * byte flipped (xor 0x01, 0x80, 0xFF), must be refused, never crash.
 * Cuts that leave only the header, or a row and its zero padding, are
 * whole buffers and not damage.
 */
static bool
every_damage(void)
{
	static const char *const names[] = {"key_simple", "key_edge", "key_inf", "key_auto", "put_types",
	"put_ts", "put_nan", "update_ops", "delete_row", "change_ops"};
	static const uint8_t flips[] = {0x01, 0x80, 0xFF};

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
	{
		const Vector *v = vector(names[k]);
		size_t		len = sdk_length(v);
		uint8_t    *copy = malloc(v->len);
		char		what[128];

		for (size_t cut = 0; cut < len; cut++)
		{
			if (cut == 4)
				continue;
			memcpy(copy, v->bytes, cut);	/* exact-size copy, so ASan sees over-reads */
			snprintf(what, sizeof(what), "%s cut at %zu", names[k], cut);
			if (!refused(what, copy, cut, NULL))
			{
				free(copy);
				return false;
			}
		}
		for (size_t at = 0; at < len; at++)
			for (size_t f = 0; f < sizeof(flips); f++)
			{
				memcpy(copy, v->bytes, len);
				copy[at] ^= flips[f];
				snprintf(what, sizeof(what), "%s byte %zu xor 0x%02x", names[k], at, flips[f]);
				if (!refused(what, copy, len, NULL))
				{
					free(copy);
					return false;
				}
			}
		free(copy);
	}
	return true;
}

/* ---------------------------------------------------------------- filters */

static const char *const filter_cases[][2] = {
	{"f_eq_int", "{\"column\": \"col\", \"comparator\": \"=\", \"value\": 5, \"pass_if_missing\": true, \"latest_version_only\": true}"},
	{"f_ne_str", "{\"column\": \"name\", \"comparator\": \"!=\", \"value\": \"bob\", \"pass_if_missing\": false, \"latest_version_only\": false}"},
	{"f_gt_double", "{\"column\": \"price\", \"comparator\": \">\", \"value\": 3.0, \"pass_if_missing\": true, \"latest_version_only\": true}"},
	{"f_ge_bool", "{\"column\": \"ok\", \"comparator\": \">=\", \"value\": true, \"pass_if_missing\": true, \"latest_version_only\": true}"},
	{"f_lt_blob", "{\"column\": \"raw\", \"comparator\": \"<\", \"value\": {\"$binary\": \"AQID\"}, \"pass_if_missing\": true, \"latest_version_only\": true}"},
	{"f_le_neg", "{\"column\": \"n\", \"comparator\": \"<=\", \"value\": -1, \"pass_if_missing\": true, \"latest_version_only\": false}"},
	{"f_nested", "{\"or\": [{\"and\": [{\"column\": \"b\", \"comparator\": \">\", \"value\": 1, \"pass_if_missing\": true, \"latest_version_only\": true},"
		" {\"not\": [{\"column\": \"a\", \"comparator\": \"=\", \"value\": \"x\", \"pass_if_missing\": true, \"latest_version_only\": true}]}]},"
	" {\"column\": \"c\", \"comparator\": \"<\", \"value\": 0.5, \"pass_if_missing\": false, \"latest_version_only\": true}]}"},
	{"f_pagination", "{\"column_pagination\": {\"offset\": 3, \"limit\": 10}}"},
};

static bool
filter_case(const char *name, const char *expected)
{
	const Vector *v = vector(name);
	char		err[256];
	json_t	   *got = pb_decode_filter(v->bytes, v->len, err, sizeof(err));
	bool		ok;

	if (got == NULL)
		return fail_because("%s", err);
	ok = json_is(name, got, expected);
	json_decref(got);
	return ok;
}

/* pack_filter: a Filter of the type around payload, malloc'd */
static ProtobufCBinaryData
pack_filter(Otsp__FilterType type, ProtobufCBinaryData payload)
{
	Otsp__Filter filter = OTSP__FILTER__INIT;
	ProtobufCBinaryData out;

	filter.type = type;
	filter.filter = payload;
	out.len = otsp__filter__get_packed_size(&filter);
	out.data = malloc(out.len + 1);
	otsp__filter__pack(&filter, out.data);
	return out;
}

/* pack_single: a single-column filter of column c; rule_cast >= 0 adds a ValueTransferRule "x" of that cast type */
static ProtobufCBinaryData
pack_single(Otsp__ComparatorType comparator, const uint8_t *value, size_t value_len, int rule_cast)
{
	Otsp__SingleColumnValueFilter single = OTSP__SINGLE_COLUMN_VALUE_FILTER__INIT;
	Otsp__ValueTransferRule rule = OTSP__VALUE_TRANSFER_RULE__INIT;
	ProtobufCBinaryData payload;
	ProtobufCBinaryData out;

	single.comparator = comparator;
	single.column_name = "c";
	single.column_value.data = (uint8_t *) value;
	single.column_value.len = value_len;
	if (rule_cast >= 0)
	{
		rule.regex = "x";
		rule.has_cast_type = true;
		rule.cast_type = (Otsp__VariantType) rule_cast;
		single.value_trans_rule = &rule;
	}
	payload.len = otsp__single_column_value_filter__get_packed_size(&single);
	payload.data = malloc(payload.len + 1);
	otsp__single_column_value_filter__pack(&single, payload.data);
	out = pack_filter(OTSP__FILTER_TYPE__FT_SINGLE_COLUMN_VALUE, payload);
	free(payload.data);
	return out;
}

/* nest_not: depth NOT levels around a filter */
static ProtobufCBinaryData
nest_not(ProtobufCBinaryData inner_bytes, int depth)
{
	ProtobufCBinaryData current = inner_bytes;

	for (int i = 0; i < depth; i++)
	{
		Otsp__CompositeColumnValueFilter composite = OTSP__COMPOSITE_COLUMN_VALUE_FILTER__INIT;
		Otsp__Filter *child = otsp__filter__unpack(NULL, current.len, current.data);
		ProtobufCBinaryData payload;

		composite.combinator = OTSP__LOGICAL_OPERATOR__LO_NOT;
		composite.n_sub_filters = 1;
		composite.sub_filters = &child;
		payload.len = otsp__composite_column_value_filter__get_packed_size(&composite);
		payload.data = malloc(payload.len + 1);
		otsp__composite_column_value_filter__pack(&composite, payload.data);
		otsp__filter__free_unpacked(child, NULL);
		free(current.data);
		current = pack_filter(OTSP__FILTER_TYPE__FT_COMPOSITE_COLUMN_VALUE, payload);
		free(payload.data);
	}
	return current;
}

/*
 * filter_regex_translated: CT_EXIST and a ValueTransferRule (the Java SDK's
 * SingleColumnValueRegexFilter) become ots's "EXIST", "regex" and "cast_type"
 */
static bool
filter_regex_translated(void)
{
	static const uint8_t five[] = {0x00, 5, 0, 0, 0, 0, 0, 0, 0};
	static const struct
	{
		int			comparator;
		int			cast;
		const char *want;
	}			cases[] = {
		{OTSP__COMPARATOR_TYPE__CT_EXIST, 0,
		"{\"column\": \"c\", \"comparator\": \"EXIST\", \"value\": 5, \"pass_if_missing\": true, \"latest_version_only\": false, \"regex\": \"x\", \"cast_type\": \"INTEGER\"}"},
		{OTSP__COMPARATOR_TYPE__CT_NOT_EXIST, -1,
		"{\"column\": \"c\", \"comparator\": \"NOT_EXIST\", \"value\": 5, \"pass_if_missing\": true, \"latest_version_only\": false}"},
		{OTSP__COMPARATOR_TYPE__CT_GREATER_THAN, 1,
		"{\"column\": \"c\", \"comparator\": \">\", \"value\": 5, \"pass_if_missing\": true, \"latest_version_only\": false, \"regex\": \"x\", \"cast_type\": \"DOUBLE\"}"},
		{OTSP__COMPARATOR_TYPE__CT_EQUAL, 3,
		"{\"column\": \"c\", \"comparator\": \"=\", \"value\": 5, \"pass_if_missing\": true, \"latest_version_only\": false, \"regex\": \"x\", \"cast_type\": \"STRING\"}"},
	};

	/* EXIST reads no value: one sent empty is no error */
	{
		ProtobufCBinaryData bytes = pack_single(OTSP__COMPARATOR_TYPE__CT_EXIST, NULL, 0, -1);
		char		err[256] = "";
		json_t	   *got = pb_decode_filter(bytes.data, bytes.len, err, sizeof(err));
		json_t	   *want = parse("{\"column\": \"c\", \"comparator\": \"EXIST\", \"value\": null, "
								 "\"pass_if_missing\": true, \"latest_version_only\": false}");
		bool		same = got != NULL && json_equal(got, want);

		json_decref(got);
		json_decref(want);
		free(bytes.data);
		if (!same)
			return fail_because("EXIST without a value: %s", err[0] ? err : "another filter");
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		ProtobufCBinaryData bytes = pack_single(cases[i].comparator, five, sizeof(five), cases[i].cast);
		char		err[256] = "";
		json_t	   *got = pb_decode_filter(bytes.data, bytes.len, err, sizeof(err));
		json_t	   *want = parse(cases[i].want);
		bool		same = got != NULL && json_equal(got, want);

		if (!same)
		{
			char	   *text = got ? json_dumps(got, JSON_SORT_KEYS) : NULL;

			fail_because("case %zu: got %s (%s), expected %s", i, text ? text : "nothing", err, cases[i].want);
			free(text);
		}
		json_decref(got);
		json_decref(want);
		free(bytes.data);
		if (!same)
			return false;
	}
	return true;
}

static bool
filter_refused(const char *what, ProtobufCBinaryData bytes, const char *expect)
{
	char		err[256] = "";
	json_t	   *got = pb_decode_filter(bytes.data, bytes.len, err, sizeof(err));

	free(bytes.data);
	if (got != NULL)
	{
		json_decref(got);
		return fail_because("%s: accepted", what);
	}
	if (err[0] == '\0' || (expect != NULL && strstr(err, expect) == NULL))
		return fail_because("%s: message \"%s\", expected \"%s\"", what, err, expect ? expect : "some");
	return true;
}

static bool
filter_damage(void)
{
	static const uint8_t five[] = {0x00, 5, 0, 0, 0, 0, 0, 0, 0};
	static const uint8_t five_and_more[] = {0x00, 5, 0, 0, 0, 0, 0, 0, 0, 0};
	static const uint8_t inf[] = {0x09};
	static const uint8_t garbage[] = {0xff, 0xff, 0xff};
	ProtobufCBinaryData deep;
	char		err[256];
	json_t	   *got;

	/* 32 levels are well-formed (ots counts the nodes); 33 cannot be */
	deep = nest_not(pack_single(OTSP__COMPARATOR_TYPE__CT_EQUAL, five, sizeof(five), -1), 31);
	got = pb_decode_filter(deep.data, deep.len, err, sizeof(err));
	free(deep.data);
	if (got == NULL)
		return fail_because("32 levels refused: %s", err);
	json_decref(got);

	if (!filter_refused("33 levels", nest_not(pack_single(OTSP__COMPARATOR_TYPE__CT_EQUAL, five, sizeof(five), -1), 32),
						"The count of filter exceeds the max: 32.") ||
		!filter_refused("comparator 9", pack_single(9, five, sizeof(five), -1), "unsupported comparator type 9") ||
		!filter_refused("cast type VT_BLOB", pack_single(OTSP__COMPARATOR_TYPE__CT_EQUAL, five, sizeof(five), 7),
						"unsupported cast_type 7") ||
		!filter_refused("value with trailing bytes",
						pack_single(OTSP__COMPARATOR_TYPE__CT_EQUAL, five_and_more, sizeof(five_and_more), -1),
						"trailing bytes") ||
		!filter_refused("truncated value", pack_single(OTSP__COMPARATOR_TYPE__CT_EQUAL, five, 5, -1), "truncated") ||
		!filter_refused("INF_MIN value", pack_single(OTSP__COMPARATOR_TYPE__CT_EQUAL, inf, 1, -1),
						"VT_INF_MIN is an invalid type") ||
		!filter_refused("type 9", pack_filter(9, (ProtobufCBinaryData) {0, NULL}), "unsupported filter type 9"))
		return false;
	{
		ProtobufCBinaryData g = {sizeof(garbage), malloc(sizeof(garbage))};

		memcpy(g.data, garbage, sizeof(garbage));
		if (!filter_refused("garbage", g, "cannot be parsed"))
			return false;
	}

	/* every cut of the SDK's filters is refused */
	for (size_t k = 0; k < sizeof(filter_cases) / sizeof(filter_cases[0]); k++)
	{
		const Vector *v = vector(filter_cases[k][0]);

		for (size_t cut = 0; cut < v->len; cut++)
		{
			ProtobufCBinaryData b = {cut, malloc(cut + 1)};
			char		what[96];

			memcpy(b.data, v->bytes, cut);
			snprintf(what, sizeof(what), "%s cut at %zu", filter_cases[k][0], cut);
			if (!filter_refused(what, b, NULL))
				return false;
		}
	}
	return true;
}

/* ------------------------------------------------------------------- emit */

/* emit: our encodings for sdk_decode.js, as "name hex" lines */
static void
emit(const char *path)
{
	FILE	   *f = fopen(path, "w");
	Buf			out = {0};
	json_t	   *pk = parse("{\"id\": \"s1\"}");
	json_t	   *columns = parse("[{\"name\": \"q\", \"type\": \"PUT\", \"value\": 2.5, \"timestamp\": 5}]");

	if (f == NULL)
	{
		perror(path);
		exit(2);
	}
	encode_range(&out);
	fprintf(f, "range ");
	for (size_t i = 0; i < out.len; i++)
		fprintf(f, "%02x", out.data[i]);
	fprintf(f, "\n");
	out.len = 0;
	pb_begin(&out);
	pb_write_change(&out, pk, NULL, columns, false, NULL);
	fprintf(f, "change_put ");
	for (size_t i = 0; i < out.len; i++)
		fprintf(f, "%02x", out.data[i]);
	fprintf(f, "\n");
	buf_free(&out);
	json_decref(pk);
	json_decref(columns);
	fclose(f);
}

int
main(int argc, char **argv)
{
	char		name[96];

	if (argc < 2)
	{
		fprintf(stderr, "usage: pb_test VECTORS [EMIT]\n");
		return 2;
	}
	load_vectors(argv[1]);

	for (size_t i = 0; i < sizeof(row_cases) / sizeof(row_cases[0]); i++)
	{
		snprintf(name, sizeof(name), "pb_sdk_%s", row_cases[i].vector);
		report(name, row_case(&row_cases[i]));
	}
	report("pb_double_text", double_text());
	report("pb_change_matches_sdk", change_matches_sdk());
	report("pb_range_roundtrip", range_roundtrip());
	report("pb_hand_made_errors", hand_made_cases());
	report("pb_every_cut_and_flip", every_damage());
	for (size_t i = 0; i < sizeof(filter_cases) / sizeof(filter_cases[0]); i++)
	{
		snprintf(name, sizeof(name), "filter_sdk_%s", filter_cases[i][0]);
		report(name, filter_case(filter_cases[i][0], filter_cases[i][1]));
	}
	report("filter_errors", filter_damage());
	report("filter_regex_and_exist", filter_regex_translated());
	if (argc > 2)
		emit(argv[2]);
	return failures ? 1 : 0;
}
