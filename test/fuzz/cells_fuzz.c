/*-------------------------------------------------------------------------
 * test/fuzz/cells_fuzz.c
 *	  Fuzz and model tests for the ots.cells format (src/format/cells.c), run
 *	  outside a server against the stubs in pg_stubs.c.
 *
 * LLVMFuzzerTestOneInput takes arbitrary bytes as a payload: cells_validate
 * must either reject them with the documented error or accept them, and an
 * accepted payload must read back completely (every column by position and
 * by name, packed and unpacked, through ots_cells_recv/ots_cells_send) and
 * re-encode through the builder byte for byte, since the format is
 * canonical.
 *
 * Built with -DCELLS_STANDALONE, main() also builds random rows, checks the
 * builder against an independent reference encoder and the reader against
 * a model, runs a table of hand-made invalid payloads, and mutates valid
 * encodings (bit flips, byte sets, truncation, extension, insertion,
 * deletion) through the fuzz target.  See test/fuzz/README.md for how to run it.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fmgr.h"
#include "lib/stringinfo.h"

#include "format/cells.h"
#include "ots_limits.h"
#include "pg_stubs.h"

/* use libc's printf family, not pgport's */
#undef vsnprintf
#undef snprintf
#undef vfprintf
#undef fprintf
#undef printf
#undef qsort

extern Datum ots_cells_recv(PG_FUNCTION_ARGS);
extern Datum ots_cells_send(PG_FUNCTION_ARGS);

#include "fuzz_check.h"

static void
dump_hex(const char *label, const uint8 *p, size_t n)
{
	size_t		i;

	fprintf(stderr, "%s (%zu bytes):", label, n);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%02x", i % 32 == 0 ? "\n  " : " ", p[i]);
	fputc('\n', stderr);
}

/*
 * try_validate runs cells_validate and returns whether it accepted the
 * bytes; a rejection must carry the documented code, message and a
 * full-sentence detail.
 */
static bool
try_validate(const uint8 *data, uint32 len)
{
	sigjmp_buf	jb;
	sigjmp_buf *save = stub_error_jmp;
	volatile bool ok = true;

	stub_error_jmp = &jb;
	if (sigsetjmp(jb, 0) == 0)
		cells_validate(data, len);
	else
	{
		size_t		dl = strlen(stub_error_detail);

		ok = false;
		CHECK(stub_error_code == ERRCODE_INVALID_BINARY_REPRESENTATION,
			  "code %d", stub_error_code);
		CHECK(strcmp(stub_error_message, "invalid ots.cells value") == 0,
			  "message \"%s\"", stub_error_message);
		CHECK(dl > 1 && stub_error_detail[0] >= 'A' && stub_error_detail[0] <= 'Z' &&
			  stub_error_detail[dl - 1] == '.',
			  "detail \"%s\"", stub_error_detail);
	}
	stub_error_jmp = save;
	return ok;
}

/*
 * try_recv feeds the payload, after "skip" bytes already consumed, to
 * ots_cells_recv and returns the new value, or NULL if it raised an error.
 */
static struct varlena *
try_recv(const uint8 *data, uint32 len, int skip)
{
	sigjmp_buf	jb;
	sigjmp_buf *save = stub_error_jmp;
	StringInfoData buf;
	struct varlena *volatile result = NULL;
	LOCAL_FCINFO(fcinfo, 3);

	buf.len = (int) len + skip;
	buf.maxlen = buf.len + 1;
	buf.data = palloc(buf.maxlen);
	memset(buf.data, 'x', skip);
	if (len > 0)
		memcpy(buf.data + skip, data, len);
	buf.data[buf.len] = '\0';
	buf.cursor = skip;

	InitFunctionCallInfoData(*fcinfo, NULL, 3, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = PointerGetDatum(&buf);
	fcinfo->args[0].isnull = false;
	fcinfo->args[1].value = ObjectIdGetDatum(InvalidOid);
	fcinfo->args[1].isnull = false;
	fcinfo->args[2].value = Int32GetDatum(-1);
	fcinfo->args[2].isnull = false;

	stub_error_jmp = &jb;
	if (sigsetjmp(jb, 0) == 0)
	{
		result = (struct varlena *) DatumGetPointer(ots_cells_recv(fcinfo));
		CHECK(buf.cursor == buf.len, "recv left %d bytes", buf.len - buf.cursor);
	}
	else
		CHECK(stub_error_code == ERRCODE_INVALID_BINARY_REPRESENTATION,
			  "code %d", stub_error_code);
	stub_error_jmp = save;
	return result;
}

/* call_send runs ots_cells_send on a value and returns the bytea */
static bytea *
call_send(struct varlena *value)
{
	LOCAL_FCINFO(fcinfo, 1);

	InitFunctionCallInfoData(*fcinfo, NULL, 1, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = PointerGetDatum(value);
	fcinfo->args[0].isnull = false;
	return (bytea *) DatumGetPointer(ots_cells_send(fcinfo));
}

/*
 * check_trimmed checks that a finish with max_versions = mv kept exactly
 * the newest mv cells of every column of the full value.
 */
static void
check_trimmed(struct varlena *full, struct varlena *trimmed, int32 mv)
{
	CellsReader rf;
	CellsReader rt;
	uint32		i;

	CHECK(try_validate((const uint8 *) VARDATA(trimmed), VARSIZE(trimmed) - VARHDRSZ),
		  "trimmed (mv=%d) output rejected: %s", mv, stub_error_detail);
	cells_reader_init(&rf, full);
	cells_reader_init(&rt, trimmed);
	CHECK(rf.ncols == rt.ncols && rf.row_ts == rt.row_ts, "trimmed header differs");
	for (i = 0; i < rf.ncols; i++)
	{
		CellsColumn cf;
		CellsColumn ct;
		int64		tsf;
		int64		tst;
		OtsValue	vf;
		OtsValue	vt;
		uint32		n = 0;

		cells_column_at(&rf, i, &cf);
		cells_column_at(&rt, i, &ct);
		CHECK(cf.namelen == ct.namelen && memcmp(cf.name, ct.name, cf.namelen) == 0,
			  "trimmed names differ");
		CHECK(ct.ncells == Min(cf.ncells, (uint32) mv), "trimmed ncells %u of %u (mv=%d)",
			  ct.ncells, cf.ncells, mv);
		while (cells_column_next(&ct, &tst, &vt))
		{
			CHECK(cells_column_next(&cf, &tsf, &vf), "full column ended early");
			CHECK(tsf == tst && ots_value_equal(&vf, &vt), "trimmed cell %u differs", n);
			n++;
		}
		CHECK(n == ct.ncells, "trimmed column yielded %u cells, not %u", n, ct.ncells);
	}
}

/*
 * check_reader reads every column and cell of a valid value, by position
 * and by name, rebuilds it through the builder and checks the result is
 * byte-identical to the payload.
 */
static void
check_reader(struct varlena *v, const uint8 *payload, uint32 len)
{
	CellsReader r;
	CellsBuilder *b;
	struct varlena *out;
	uint32		i;
	uint32		total = 0;
	const char *prev_name = NULL;
	uint32		prev_namelen = 0;

	if (cells_is_head(v))
	{
		/* a split row's head: decoded and built again, byte for byte */
		CellsHead	h;
		struct varlena *again;

		cells_head_read(v, &h);
		again = cells_head_build(&h);
		CHECK(VARSIZE(again) - VARHDRSZ == len && memcmp(VARDATA(again), payload, len) == 0,
			  "head rebuilt differs");
		cells_reader_init(&r, v);
		CHECK(r.ncols == 0 && r.row_ts == h.row_ts, "a head reads as its marker without cells");
		CHECK(cells_oldest_ts(v) == Max(h.row_ts, h.newest_ts), "a head's oldest_ts is the later of its marker and newest cell");
		return;
	}
	cells_reader_init(&r, v);
	CHECK(r.len == len, "reader len %u, payload %u", r.len, len);
	CHECK(r.row_ts >= 0 && r.row_ts < OTS_MAX_TIMESTAMP, "row_ts");
	b = cells_builder_create(r.row_ts);

	for (i = 0; i < r.ncols; i++)
	{
		CellsColumn col;
		CellsColumn byname;
		char		probe[OTS_MAX_NAME_LEN + 2];
		int64		ts;
		int64		prev_ts = PG_INT64_MAX;
		OtsValue	val;
		uint32		n = 0;

		cells_column_at(&r, i, &col);
		CHECK(col.namelen >= 1 && col.namelen <= OTS_MAX_NAME_LEN, "namelen %u", col.namelen);
		CHECK(col.ncells >= 1, "empty column");
		if (prev_name)
		{
			int			c = memcmp(prev_name, col.name, Min(prev_namelen, col.namelen));

			CHECK(c < 0 || (c == 0 && prev_namelen < col.namelen), "column order");
		}
		prev_name = col.name;
		prev_namelen = col.namelen;

		CHECK(cells_find_column(&r, col.name, col.namelen, &byname),
			  "column %u not found by name", i);
		CHECK(byname.name == col.name && byname.namelen == col.namelen &&
			  byname.ncells == col.ncells && byname.pos == col.pos,
			  "column %u found by name differs", i);

		/* names that cannot be present: '#' and '~' are not name characters */
		memcpy(probe, col.name, col.namelen);
		probe[col.namelen] = '#';
		CHECK(!cells_find_column(&r, probe, col.namelen + 1, &byname), "found '#' probe");
		probe[col.namelen - 1] = '~';
		CHECK(!cells_find_column(&r, probe, col.namelen, &byname), "found '~' probe");
		CHECK(!cells_find_column(&r, probe, 0, &byname), "found empty name");

		while (cells_column_next(&col, &ts, &val))
		{
			CHECK(ts >= 0 && ts < OTS_MAX_TIMESTAMP, "ts out of range");
			CHECK(ts < prev_ts, "timestamps not descending");
			CHECK(OTS_VT_VALID(val.type), "type %d", (int) val.type);
			if (val.type == OTS_VT_STRING || val.type == OTS_VT_BINARY)
				CHECK((const uint8 *) val.u.s.data >= r.data &&
					  (const uint8 *) val.u.s.data + val.u.s.len <= r.data + r.len,
					  "value outside the payload");
			if (val.type == OTS_VT_DOUBLE)
				CHECK(isfinite(val.u.d), "double not finite");
			prev_ts = ts;
			cells_builder_add(b, col.name, col.namelen, ts, &val);
			n++;
		}
		CHECK(n == col.ncells, "column %u yielded %u of %u cells", i, n, col.ncells);
		CHECK(!cells_column_next(&col, &ts, &val), "column %u yielded more", i);
		total += n;
	}
	CHECK(cells_ncells_total(&r) == total, "ncells_total %u, counted %u",
		  cells_ncells_total(&r), total);
	CHECK(cells_builder_ncells(b) == total, "builder ncells %u, counted %u",
		  cells_builder_ncells(b), total);

	out = cells_builder_finish(b, 0);
	if (VARSIZE(out) - VARHDRSZ != len || memcmp(VARDATA(out), payload, len) != 0)
	{
		dump_hex("input", payload, len);
		dump_hex("re-encoded", (const uint8 *) VARDATA(out), VARSIZE(out) - VARHDRSZ);
		CHECK(false, "re-encoding differs");
	}
	check_trimmed(out, cells_builder_finish(b, 1), 1);
	check_trimmed(out, cells_builder_finish(b, 2), 2);
	/* finishing again must not have disturbed the builder */
	out = cells_builder_finish(b, 0);
	CHECK(VARSIZE(out) - VARHDRSZ == len && memcmp(VARDATA(out), payload, len) == 0,
		  "second finish differs");
}

/*
 * check_valid_value checks an accepted payload through every reading path:
 * 4-byte header, packed 1-byte header at an odd address, recv and send.
 */
static void
check_valid_value(const uint8 *payload, uint32 len)
{
	struct varlena *v;
	struct varlena *rv;
	bytea	   *sent;

	v = (struct varlena *) palloc(VARHDRSZ + len);
	SET_VARSIZE(v, VARHDRSZ + len);
	memcpy(VARDATA(v), payload, len);
	check_reader(v, payload, len);

	if (len + VARHDRSZ_SHORT <= VARATT_SHORT_MAX)
	{
		uint8	   *raw = palloc(len + VARHDRSZ_SHORT + 1);
		struct varlena *packed = (struct varlena *) (raw + 1);

		SET_VARSIZE_SHORT(packed, len + VARHDRSZ_SHORT);
		memcpy(VARDATA_SHORT(packed), payload, len);
		check_reader(packed, payload, len);
		sent = call_send(packed);
		CHECK(VARSIZE(sent) - VARHDRSZ == len && memcmp(VARDATA(sent), payload, len) == 0,
			  "send of packed value differs");
	}

	rv = try_recv(payload, len, 3);
	CHECK(rv != NULL, "recv rejected a valid payload: %s", stub_error_detail);
	CHECK(VARSIZE(rv) - VARHDRSZ == len && memcmp(VARDATA(rv), payload, len) == 0,
		  "recv result differs");
	sent = call_send(rv);
	CHECK(VARSIZE(sent) - VARHDRSZ == len && memcmp(VARDATA(sent), payload, len) == 0,
		  "send result differs");
}

/* fuzz_one checks arbitrary bytes; returns whether they were a valid value */
static bool
fuzz_one(const uint8 *data, size_t size)
{
	bool		ok;
	struct varlena *rv;

	if (size > PG_UINT32_MAX / 2)
		return false;
	ok = try_validate(data, (uint32) size);
	rv = try_recv(data, (uint32) size, 0);
	CHECK((rv != NULL) == ok, "recv and validate disagree");
	if (ok)
		check_valid_value(data, (uint32) size);
	stub_free_all();
	return ok;
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy, so that reading one byte too far is caught */
	uint8	   *copy = malloc(size ? size : 1);

	if (size)
		memcpy(copy, data, size);
	fuzz_one(copy, size);
	free(copy);
	return 0;
}

#ifdef CELLS_STANDALONE

/* ---------------------------------------------------------------------
 * Random rows, a model, and a reference encoder
 * ---------------------------------------------------------------------
 */

static uint64 rng_state;

static uint64
rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64CONST(2685821657736338717);
}

static uint32
rnd(uint32 n)
{
	return n ? (uint32) (rng() % n) : 0;
}

static bool
chance(uint32 percent)
{
	return rnd(100) < percent;
}

typedef struct ModelCell
{
	const char *name;
	uint32		namelen;
	int64		ts;
	OtsValue	value;
} ModelCell;

static int
model_cmp(const void *pa, const void *pb)
{
	const ModelCell *a = pa;
	const ModelCell *b = pb;
	int			c = memcmp(a->name, b->name, Min(a->namelen, b->namelen));

	if (c == 0)
		c = (a->namelen > b->namelen) - (a->namelen < b->namelen);
	if (c == 0)
		c = (a->ts < b->ts) - (a->ts > b->ts);
	return c;
}

/* a growable byte buffer for the reference encoder and hand-made payloads */
typedef struct Buf
{
	uint8	   *data;
	uint32		len;
	uint32		cap;
} Buf;

static void
buf_bytes(Buf *b, const void *p, uint32 n)
{
	if (b->len + n > b->cap)
	{
		b->cap = Max(b->cap * 2, b->len + n + 64);
		b->data = realloc(b->data, b->cap);
	}
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void
buf_u8(Buf *b, uint8 v)
{
	buf_bytes(b, &v, 1);
}

static void
buf_le(Buf *b, uint64 v, int n)
{
	int			i;

	for (i = 0; i < n; i++)
		buf_u8(b, (uint8) (v >> (8 * i)));
}

static void
buf_varint(Buf *b, uint64 v)
{
	do
	{
		uint8		c = v & 0x7F;

		v >>= 7;
		buf_u8(b, c | (v ? 0x80 : 0));
	} while (v);
}

static uint64
zz(int64 n)
{
	return n >= 0 ? (uint64) n * 2 : ((uint64) (-(n + 1))) * 2 + 1;
}

static void
buf_value(Buf *b, const OtsValue *v)
{
	buf_u8(b, (uint8) v->type);
	switch (v->type)
	{
		case OTS_VT_INTEGER:
			buf_varint(b, zz(v->u.i));
			break;
		case OTS_VT_DOUBLE:
			{
				uint64		bits;

				memcpy(&bits, &v->u.d, 8);
				buf_le(b, bits, 8);
			}
			break;
		case OTS_VT_BOOLEAN:
			buf_u8(b, v->u.b);
			break;
		case OTS_VT_STRING:
		case OTS_VT_BINARY:
			buf_varint(b, v->u.s.len);
			buf_bytes(b, v->u.s.data, v->u.s.len);
			break;
	}
}

/*
 * ref_encode writes the format from a sorted, deduplicated model,
 * independently of the builder: blocks first, then the header.
 */
static void
ref_encode(Buf *out, int64 row_ts, const ModelCell *cells, uint32 n, int32 mv)
{
	Buf			blocks = {0};
	Buf			offs = {0};
	uint32		ncols = 0;
	uint32		i = 0;

	while (i < n)
	{
		uint32		j = i;
		uint32		kept;
		uint32		k;

		while (j < n && cells[j].namelen == cells[i].namelen &&
			   memcmp(cells[j].name, cells[i].name, cells[i].namelen) == 0)
			j++;
		kept = j - i;
		if (mv > 0 && kept > (uint32) mv)
			kept = mv;
		buf_le(&offs, blocks.len, 4);
		buf_varint(&blocks, cells[i].namelen);
		buf_bytes(&blocks, cells[i].name, cells[i].namelen);
		buf_varint(&blocks, kept);
		for (k = 0; k < kept; k++)
		{
			if (k == 0)
				buf_varint(&blocks, zz(row_ts - cells[i].ts));
			else
				buf_varint(&blocks, (uint64) (cells[i + k - 1].ts - cells[i + k].ts));
			buf_value(&blocks, &cells[i + k].value);
		}
		ncols++;
		i = j;
	}
	out->len = 0;
	buf_u8(out, 1);
	buf_le(out, (uint64) row_ts, 8);
	buf_le(out, ncols, 4);
	buf_bytes(out, offs.data, offs.len);
	buf_bytes(out, blocks.data, blocks.len);
	free(blocks.data);
	free(offs.data);
}

static const char name_first[] = "ABCXYZabcxyz_";
static const char name_rest[] = "ABCXYZabcxyz_0189";

/* random_name fills buf with a valid column name and returns its length */
static uint32
random_name(char *buf)
{
	uint32		len;
	uint32		i;

	if (chance(5))
		len = OTS_MAX_NAME_LEN - rnd(3);
	else if (chance(20))
		len = 1 + rnd(40);
	else
		len = 1 + rnd(3);
	buf[0] = name_first[rnd(sizeof(name_first) - 1)];
	for (i = 1; i < len; i++)
		buf[i] = name_rest[rnd(sizeof(name_rest) - 1)];
	return len;
}

static int64
random_ts(int64 row_ts)
{
	switch (rnd(8))
	{
		case 0:
			return 0;
		case 1:
			return OTS_MAX_TIMESTAMP - 1;
		case 2:
		case 3:
			return rnd(6);
		case 4:
			{
				int64		t = row_ts + (int64) rnd(2001) - 1000;

				return t < 0 ? 0 : (t >= OTS_MAX_TIMESTAMP ? OTS_MAX_TIMESTAMP - 1 : t);
			}
		case 5:
			return OTS_MAX_TIMESTAMP - 1 - rnd(6);
		default:
			return (int64) (rng() % (uint64) OTS_MAX_TIMESTAMP);
	}
}

/* random_utf8 writes a valid UTF-8 string of about n code points */
static uint32
random_utf8(char *buf, uint32 n)
{
	uint32		len = 0;
	uint32		i;

	for (i = 0; i < n; i++)
	{
		uint32		cp;

		switch (rnd(5))
		{
			case 0:
			case 1:
				cp = 1 + rnd(0x7F);
				break;
			case 2:
				cp = 0x80 + rnd(0x800 - 0x80);
				break;
			case 3:
				do
					cp = 0x800 + rnd(0x10000 - 0x800);
				while (cp >= 0xD800 && cp <= 0xDFFF);
				break;
			default:
				cp = 0x10000 + rnd(0x110000 - 0x10000);
				break;
		}
		if (cp < 0x80)
			buf[len++] = (char) cp;
		else if (cp < 0x800)
		{
			buf[len++] = (char) (0xC0 | (cp >> 6));
			buf[len++] = (char) (0x80 | (cp & 0x3F));
		}
		else if (cp < 0x10000)
		{
			buf[len++] = (char) (0xE0 | (cp >> 12));
			buf[len++] = (char) (0x80 | ((cp >> 6) & 0x3F));
			buf[len++] = (char) (0x80 | (cp & 0x3F));
		}
		else
		{
			buf[len++] = (char) (0xF0 | (cp >> 18));
			buf[len++] = (char) (0x80 | ((cp >> 12) & 0x3F));
			buf[len++] = (char) (0x80 | ((cp >> 6) & 0x3F));
			buf[len++] = (char) (0x80 | (cp & 0x3F));
		}
	}
	return len;
}

/* random_value makes a value whose bytes are palloc'd (freed per iteration) */
static void
random_value(OtsValue *v, bool allow_huge)
{
	static const int64 ints[] = {0, 1, -1, 63, 64, -64, -65, PG_INT64_MAX, PG_INT64_MIN,
	PG_INT32_MAX, PG_INT32_MIN};
	static const double dbls[] = {0.0, -0.0, 1.0, -1.5, DBL_MAX, -DBL_MAX, DBL_MIN,
	4.9406564584124654e-324, 3.141592653589793};

	v->type = (OtsValueType) (1 + rnd(5));
	switch (v->type)
	{
		case OTS_VT_INTEGER:
			v->u.i = chance(40) ? ints[rnd(lengthof(ints))] : (int64) rng() >> rnd(64);
			break;
		case OTS_VT_DOUBLE:
			if (chance(40))
				v->u.d = dbls[rnd(lengthof(dbls))];
			else
			{
				do
				{
					uint64		bits = rng();

					memcpy(&v->u.d, &bits, 8);
				} while (!isfinite(v->u.d));
			}
			break;
		case OTS_VT_BOOLEAN:
			v->u.b = chance(50);
			break;
		case OTS_VT_STRING:
			{
				uint32		n = allow_huge && chance(2) ? OTS_MAX_ATTR_VALUE_LEN / 4 :
					(chance(10) ? rnd(300) : rnd(8));
				char	   *s = palloc(n * 4 + 1);
				uint32		len = random_utf8(s, n);

				if (allow_huge && n == OTS_MAX_ATTR_VALUE_LEN / 4)
				{
					/* exactly the limit, in 4-byte characters */
					CHECK(len <= OTS_MAX_ATTR_VALUE_LEN, "huge string too long");
					while (len < OTS_MAX_ATTR_VALUE_LEN)
						s[len++] = 'a';
				}
				v->u.s.data = s;
				v->u.s.len = len;
			}
			break;
		case OTS_VT_BINARY:
			{
				uint32		n = allow_huge && chance(2) ? OTS_MAX_ATTR_VALUE_LEN :
					(chance(10) ? rnd(300) : rnd(8));
				char	   *s = palloc(n + 1);
				uint32		i;

				for (i = 0; i < n; i++)
					s[i] = (char) rng();
				v->u.s.data = s;
				v->u.s.len = n;
			}
			break;
	}
}

static void
write_file(const char *dir, int idx, const uint8 *data, uint32 len)
{
	char		path[4096];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/seed-%02d", dir, idx);
	f = fopen(path, "wb");
	CHECK(f != NULL, "cannot write %s", path);
	CHECK(fwrite(data, 1, len, f) == len, "short write to %s", path);
	fclose(f);
}

static uint64 stat_mutants;
static uint64 stat_mutants_valid;

/* mutate_and_check runs mutated copies of a valid payload through fuzz_one */
static void
mutate_and_check(const uint8 *payload, uint32 len, int nmutations)
{
	int			m;

	for (m = 0; m < nmutations; m++)
	{
		uint32		cap = len + 16;
		uint8	   *buf = malloc(cap);
		uint32		n = len;
		int			edits = 1 + rnd(3);
		int			e;
		uint8	   *exact;

		memcpy(buf, payload, len);
		for (e = 0; e < edits; e++)
		{
			uint32		pos = rnd(n ? n : 1);

			switch (rnd(7))
			{
				case 0:			/* bit flip */
				case 1:
					if (n)
						buf[pos] ^= (uint8) (1 << rnd(8));
					break;
				case 2:			/* byte set */
					if (n)
						buf[pos] = chance(50) ? (uint8) rng() :
							(uint8[]) {0, 1, 0x7F, 0x80, 0xFF, 0x30, 0x5F}[rnd(7)];
					break;
				case 3:			/* truncate */
					n = rnd(n + 1);
					break;
				case 4:			/* extend */
					if (n < cap)
						buf[n++] = (uint8) rng();
					break;
				case 5:			/* insert */
					if (n < cap)
					{
						memmove(buf + pos + 1, buf + pos, n - pos);
						buf[pos] = (uint8) rng();
						n++;
					}
					break;
				case 6:			/* delete */
					if (n)
					{
						memmove(buf + pos, buf + pos + 1, n - pos - 1);
						n--;
					}
					break;
			}
		}
		exact = malloc(n ? n : 1);
		memcpy(exact, buf, n);
		stat_mutants++;
		/* fuzz_one calls stub_free_all: keep the payload outside palloc */
		if (fuzz_one(exact, n))
			stat_mutants_valid++;
		free(exact);
		free(buf);
	}
}

/* ---------------------------------------------------------------------
 * Hand-made invalid payloads
 * ---------------------------------------------------------------------
 */

static int	stat_fixed;

static void
expect(const Buf *b, bool valid, const char *detail_part)
{
	uint8	   *exact = malloc(b->len ? b->len : 1);
	bool		ok;

	if (b->len)
		memcpy(exact, b->data, b->len);
	ok = try_validate(exact, b->len);
	if (ok != valid || (!ok && strstr(stub_error_detail, detail_part) == NULL))
	{
		dump_hex("payload", b->data, b->len);
		CHECK(false, "expected %s (\"%s\"), got %s (\"%s\")",
			  valid ? "valid" : "invalid", detail_part,
			  ok ? "valid" : "invalid", ok ? "" : stub_error_detail);
	}
	CHECK(fuzz_one(exact, b->len) == valid, "fuzz_one disagrees");
	free(exact);
	stat_fixed++;
}

/* hdr starts a payload: version 1, row_ts, ncols, and an offset directory */
static void
hdr(Buf *b, int64 row_ts, uint32 ncols, const uint32 *offs)
{
	uint32		i;

	b->len = 0;
	buf_u8(b, 1);
	buf_le(b, (uint64) row_ts, 8);
	buf_le(b, ncols, 4);
	for (i = 0; i < ncols; i++)
		buf_le(b, offs[i], 4);
}

/* col1 appends a block "name" with one INTEGER 0 cell at row_ts - delta */
static void
col1(Buf *b, const char *name, int64 delta)
{
	buf_varint(b, strlen(name));
	buf_bytes(b, name, strlen(name));
	buf_varint(b, 1);
	buf_varint(b, zz(delta));
	buf_u8(b, OTS_VT_INTEGER);
	buf_u8(b, 0);
}

/*
 * one_cell builds a one-column row "abc" at ts 5 whose cell (type and value)
 * is raw bytes; the 3-byte name leaves room in the ncols bound for a cell
 * as short as a lone type byte.
 */
static void
one_cell(Buf *b, const uint8 *value, uint32 n)
{
	static const uint32 zero = 0;

	hdr(b, 5, 1, &zero);
	buf_varint(b, 3);
	buf_bytes(b, "abc", 3);
	buf_varint(b, 1);
	buf_varint(b, 0);
	buf_bytes(b, value, n);
}

#define BYTES(...) (const uint8[]) {__VA_ARGS__}, sizeof((const uint8[]) {__VA_ARGS__})

static void
fixed_tests(void)
{
	Buf			b = {0};
	static const uint32 zero = 0;
	uint32		offs[2];

	/* header */
	b.len = 0;
	expect(&b, false, "shorter than");
	hdr(&b, 0, 0, NULL);
	b.len = 12;
	expect(&b, false, "shorter than");
	hdr(&b, 0, 0, NULL);
	expect(&b, true, "");
	hdr(&b, OTS_MAX_TIMESTAMP - 1, 0, NULL);
	expect(&b, true, "");
	hdr(&b, 0, 0, NULL);
	b.data[0] = 3;
	expect(&b, false, "version 3");
	/* version 2 is a split row's head, whose header is longer */
	b.data[0] = 2;
	expect(&b, false, "split row head");
	b.data[0] = 0;
	expect(&b, false, "version 0");
	hdr(&b, -1, 0, NULL);
	expect(&b, false, "row timestamp");
	hdr(&b, OTS_MAX_TIMESTAMP, 0, NULL);
	expect(&b, false, "row timestamp");
	hdr(&b, PG_INT64_MIN, 0, NULL);
	expect(&b, false, "row timestamp");
	hdr(&b, 0, 0, NULL);
	b.data[9] = b.data[10] = b.data[11] = b.data[12] = 0xFF;
	expect(&b, false, "column count");
	hdr(&b, 0, 0, NULL);
	buf_u8(&b, 0);
	expect(&b, false, "after the last");

	/* directory */
	hdr(&b, 5, 1, &zero);
	col1(&b, "a", 0);
	expect(&b, true, "");
	buf_u8(&b, 0);
	expect(&b, false, "after the last");
	offs[0] = 1;
	hdr(&b, 5, 1, offs);
	col1(&b, "a", 0);
	expect(&b, false, "first column offset");
	offs[0] = 0;
	offs[1] = 6;
	hdr(&b, 5, 2, offs);
	col1(&b, "a", 0);
	col1(&b, "b", 0);
	expect(&b, true, "");
	offs[1] = 5;
	hdr(&b, 5, 2, offs);
	col1(&b, "a", 0);
	col1(&b, "b", 0);
	expect(&b, false, "does not point");
	offs[1] = 7;
	hdr(&b, 5, 2, offs);
	col1(&b, "a", 0);
	col1(&b, "b", 0);
	expect(&b, false, "does not point");
	offs[1] = 12;
	hdr(&b, 5, 2, offs);
	col1(&b, "a", 0);
	col1(&b, "b", 0);
	expect(&b, false, "out of bounds");
	offs[1] = 0xFFFFFFFF;
	hdr(&b, 5, 2, offs);
	col1(&b, "a", 0);
	col1(&b, "b", 0);
	expect(&b, false, "out of bounds");
	/* two columns claimed, room for one */
	offs[1] = 6;
	hdr(&b, 5, 2, offs);
	col1(&b, "a", 0);
	expect(&b, false, "column count");

	/* names */
	hdr(&b, 5, 1, &zero);
	buf_bytes(&b, BYTES(0, 'a', 1, 0, OTS_VT_BOOLEAN, 0));
	expect(&b, false, "length 0");
	hdr(&b, 5, 1, &zero);
	buf_varint(&b, 256);
	buf_bytes(&b, "aaaaaaaaaaaaaaaaaaaaaaaaaa", 10);
	expect(&b, false, "length 256");
	hdr(&b, 5, 1, &zero);
	buf_bytes(&b, BYTES(0x81, 0x00, 'a', 1, 0, OTS_VT_BOOLEAN, 0));
	expect(&b, false, "canonical");
	hdr(&b, 5, 1, &zero);
	buf_bytes(&b, BYTES(5, 'a', 'b'));
	expect(&b, false, "column count");
	hdr(&b, 5, 1, &zero);
	buf_bytes(&b, BYTES(9, 'a', 'b', 'c', 'd', 'e', 1));
	expect(&b, false, "name of column 0 is truncated");
	hdr(&b, 5, 1, &zero);
	buf_bytes(&b, BYTES(3, 'a', 'b', 'c', 1, 0));
	expect(&b, false, "no type byte");
	hdr(&b, 5, 1, &zero);
	col1(&b, "1a", 0);
	expect(&b, false, "starts with a digit");
	hdr(&b, 5, 1, &zero);
	col1(&b, "a1_Z", 0);
	expect(&b, true, "");
	hdr(&b, 5, 1, &zero);
	col1(&b, "_", 0);
	expect(&b, true, "");
	hdr(&b, 5, 1, &zero);
	col1(&b, "a-", 0);
	expect(&b, false, "character other than");
	hdr(&b, 5, 1, &zero);
	col1(&b, "a\xC3\xA9", 0);
	expect(&b, false, "character other than");
	offs[1] = 6;
	hdr(&b, 5, 2, offs);
	col1(&b, "b", 0);
	col1(&b, "a", 0);
	expect(&b, false, "ascending");
	hdr(&b, 5, 2, offs);
	col1(&b, "a", 0);
	col1(&b, "a", 0);
	expect(&b, false, "ascending");
	offs[1] = 7;
	hdr(&b, 5, 2, offs);
	col1(&b, "ab", 0);
	col1(&b, "a", 0);
	expect(&b, false, "ascending");
	offs[1] = 6;
	hdr(&b, 5, 2, offs);
	col1(&b, "a", 0);
	col1(&b, "ab", 0);
	expect(&b, true, "");
	hdr(&b, 5, 2, offs);
	col1(&b, "Z", 0);
	col1(&b, "_", 0);
	expect(&b, true, "");

	/* cells and timestamps */
	hdr(&b, 5, 1, &zero);
	buf_bytes(&b, BYTES(1, 'a', 0, 0, 0, 0));
	expect(&b, false, "no cells");
	hdr(&b, 5, 1, &zero);
	buf_bytes(&b, BYTES(1, 'a', 0x80, 0x80, 0x80, 0x80, 0x10, 0));
	expect(&b, false, "too many cells");
	hdr(&b, 5, 1, &zero);
	col1(&b, "a", 5);
	expect(&b, true, "");
	hdr(&b, 5, 1, &zero);
	col1(&b, "a", 6);
	expect(&b, false, "timestamp out of range");
	hdr(&b, 5, 1, &zero);
	col1(&b, "a", 5 - (OTS_MAX_TIMESTAMP - 1));
	expect(&b, true, "");
	hdr(&b, 5, 1, &zero);
	col1(&b, "a", 5 - OTS_MAX_TIMESTAMP);
	expect(&b, false, "timestamp out of range");
	hdr(&b, 5, 1, &zero);
	col1(&b, "a", PG_INT64_MIN);
	expect(&b, false, "timestamp out of range");
	hdr(&b, 0, 1, &zero);
	col1(&b, "a", PG_INT64_MAX);
	expect(&b, false, "timestamp out of range");
	hdr(&b, OTS_MAX_TIMESTAMP - 1, 1, &zero);
	col1(&b, "a", PG_INT64_MIN);
	expect(&b, false, "timestamp out of range");
	/* second cell: delta >= 1 and not below zero */
	hdr(&b, 5, 1, &zero);
	buf_bytes(&b, BYTES(1, 'a', 2, 0, OTS_VT_BOOLEAN, 1, 5, OTS_VT_BOOLEAN, 0));
	expect(&b, true, "");
	hdr(&b, 5, 1, &zero);
	buf_bytes(&b, BYTES(1, 'a', 2, 0, OTS_VT_BOOLEAN, 1, 0, OTS_VT_BOOLEAN, 0));
	expect(&b, false, "older than the previous");
	hdr(&b, 5, 1, &zero);
	buf_bytes(&b, BYTES(1, 'a', 2, 0, OTS_VT_BOOLEAN, 1, 6, OTS_VT_BOOLEAN, 0));
	expect(&b, false, "Cell 1 of column 0 has a timestamp out of range");
	hdr(&b, 5, 1, &zero);
	buf_bytes(&b, BYTES(1, 'a', 2, 0, OTS_VT_BOOLEAN, 1));
	expect(&b, false, "truncated");
	hdr(&b, 5, 1, &zero);
	buf_bytes(&b, BYTES(1, 'a', 2, 0, OTS_VT_BOOLEAN, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
						0xFF, 0xFF, 0xFF, 0xFF, 0x01, OTS_VT_BOOLEAN, 0));
	expect(&b, false, "Cell 1 of column 0 has a timestamp out of range");

	/* varints */
	one_cell(&b, BYTES(OTS_VT_INTEGER, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
					   0xFF, 0x01));
	expect(&b, true, "");
	one_cell(&b, BYTES(OTS_VT_INTEGER, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
					   0xFF, 0x02));
	expect(&b, false, "64 bits");
	one_cell(&b, BYTES(OTS_VT_INTEGER, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					   0x80, 0x81, 0x00));
	expect(&b, false, "64 bits");
	one_cell(&b, BYTES(OTS_VT_INTEGER, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					   0x80, 0x00));
	expect(&b, false, "canonical");
	one_cell(&b, BYTES(OTS_VT_INTEGER, 0x80, 0x00));
	expect(&b, false, "canonical");
	one_cell(&b, BYTES(OTS_VT_INTEGER, 0x80, 0x01));
	expect(&b, true, "");
	one_cell(&b, BYTES(OTS_VT_INTEGER, 0x80));
	expect(&b, false, "integer value is truncated");
	one_cell(&b, BYTES(OTS_VT_INTEGER));
	expect(&b, false, "integer value is truncated");

	/* types and values */
	one_cell(&b, BYTES(0));
	expect(&b, false, "unknown type 0");
	one_cell(&b, BYTES(6, 0));
	expect(&b, false, "unknown type 6");
	one_cell(&b, NULL, 0);
	expect(&b, false, "no type byte");
	one_cell(&b, BYTES(OTS_VT_BOOLEAN, 2));
	expect(&b, false, "boolean");
	one_cell(&b, BYTES(OTS_VT_BOOLEAN));
	expect(&b, false, "truncated boolean");
	one_cell(&b, BYTES(OTS_VT_DOUBLE, 0, 0, 0, 0, 0, 0, 0));
	expect(&b, false, "truncated double");
	one_cell(&b, BYTES(OTS_VT_DOUBLE, 0, 0, 0, 0, 0, 0, 0, 0x80));
	expect(&b, true, "");		/* -0.0 */
	one_cell(&b, BYTES(OTS_VT_DOUBLE, 0, 0, 0, 0, 0, 0, 0xF0, 0x7F));
	expect(&b, false, "not finite");
	one_cell(&b, BYTES(OTS_VT_DOUBLE, 0, 0, 0, 0, 0, 0, 0xF0, 0xFF));
	expect(&b, false, "not finite");
	one_cell(&b, BYTES(OTS_VT_DOUBLE, 1, 0, 0, 0, 0, 0, 0xF8, 0x7F));
	expect(&b, false, "not finite");
	one_cell(&b, BYTES(OTS_VT_DOUBLE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xEF, 0x7F));
	expect(&b, true, "");		/* DBL_MAX */

	one_cell(&b, BYTES(OTS_VT_STRING, 0));
	expect(&b, true, "");
	one_cell(&b, BYTES(OTS_VT_STRING, 4, 0xF0, 0x9F, 0x98, 0x80));
	expect(&b, true, "");
	one_cell(&b, BYTES(OTS_VT_STRING, 4, 0xF4, 0x8F, 0xBF, 0xBF));
	expect(&b, true, "");
	one_cell(&b, BYTES(OTS_VT_STRING, 3, 0xEF, 0xBF, 0xBF));
	expect(&b, true, "");
	one_cell(&b, BYTES(OTS_VT_STRING, 2, 0xC0, 0x80));
	expect(&b, false, "UTF-8");
	one_cell(&b, BYTES(OTS_VT_STRING, 3, 0xE0, 0x80, 0x80));
	expect(&b, false, "UTF-8");
	one_cell(&b, BYTES(OTS_VT_STRING, 3, 0xED, 0xA0, 0x80));
	expect(&b, false, "UTF-8");
	one_cell(&b, BYTES(OTS_VT_STRING, 4, 0xF4, 0x90, 0x80, 0x80));
	expect(&b, false, "UTF-8");
	one_cell(&b, BYTES(OTS_VT_STRING, 4, 0xF0, 0x80, 0x80, 0x80));
	expect(&b, false, "UTF-8");
	one_cell(&b, BYTES(OTS_VT_STRING, 1, 0x80));
	expect(&b, false, "UTF-8");
	one_cell(&b, BYTES(OTS_VT_STRING, 1, 0xFF));
	expect(&b, false, "UTF-8");
	one_cell(&b, BYTES(OTS_VT_STRING, 2, 0xE2, 0x82));
	expect(&b, false, "UTF-8");
	one_cell(&b, BYTES(OTS_VT_STRING, 2, 0xC3, 0x41));
	expect(&b, false, "UTF-8");
	one_cell(&b, BYTES(OTS_VT_STRING, 1, 0x00));
	expect(&b, false, "UTF-8");
	one_cell(&b, BYTES(OTS_VT_STRING, 3, 'a', 'b'));
	expect(&b, false, "truncated value");
	one_cell(&b, BYTES(OTS_VT_BINARY, 3, 0x00, 0xFF, 0xC0));
	expect(&b, true, "");
	one_cell(&b, BYTES(OTS_VT_BINARY, 3, 0x00, 0xFF));
	expect(&b, false, "truncated value");
	one_cell(&b, BYTES(OTS_VT_BINARY, 0x81, 0x80, 0x80, 0x01));
	expect(&b, false, "truncated value");
	one_cell(&b, BYTES(OTS_VT_STRING, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
					   0xFF, 0x01));
	expect(&b, false, "truncated value");
	one_cell(&b, BYTES(OTS_VT_BINARY, 0x80, 0x80, 0x80, 0x01));
	expect(&b, false, "truncated value");

	/*
	 * exactly OTS_MAX_ATTR_VALUE_LEN is accepted, and one more: the limit is
	 * a write request's, not the format's (docs/reference.md, Limits)
	 */
	{
		uint32		n = OTS_MAX_ATTR_VALUE_LEN;
		uint8	   *big = calloc(1, n + 1);
		Buf			v = {0};

		buf_u8(&v, OTS_VT_BINARY);
		buf_varint(&v, n);
		buf_bytes(&v, big, n);
		one_cell(&b, v.data, v.len);
		expect(&b, true, "");
		v.len = 0;
		buf_u8(&v, OTS_VT_BINARY);
		buf_varint(&v, n + 1);
		buf_bytes(&v, big, n + 1);
		one_cell(&b, v.data, v.len);
		expect(&b, true, "");
		memset(big, 'x', n + 1);
		v.len = 0;
		buf_u8(&v, OTS_VT_STRING);
		buf_varint(&v, n);
		buf_bytes(&v, big, n);
		one_cell(&b, v.data, v.len);
		expect(&b, true, "");
		free(v.data);
		free(big);
	}

	free(b.data);
}

/*
 * random_row builds one random row through the builder and a model, checks
 * the builder against the reference encoder and the reader against the
 * model, then mutates the encoding.
 */
/*
 * check_cut cuts a row's cells into chunks and checks them against the
 * model (sorted by name, newest first; kept of each column as stored):
 * every chunk valid, within the bound or a single cell, keyed by its first
 * cell in chunk order (name, then timestamp ascending), its row_ts its
 * newest cell and its oldest_ts its oldest; the chunks in key order, and
 * together exactly the row's cells.
 */
static uint64 stat_chunks;
static uint64 stat_cut_rows;

static void
check_cut(struct varlena *enc, const ModelCell *model, uint32 nmodel, int32 mv)
{
	CellsChunk *chunks;
	int			nchunks;
	ModelCell  *kept = malloc(sizeof(ModelCell) * (nmodel + 1));
	uint32		nkept = 0;
	uint32		seen = 0;

	/* the stored cells, in chunk order */
	for (uint32 m = 0; m < nmodel;)
	{
		uint32		j = m;
		uint32		n;

		while (j < nmodel && model[j].namelen == model[m].namelen &&
			   memcmp(model[j].name, model[m].name, model[m].namelen) == 0)
			j++;
		n = (mv > 0 && j - m > (uint32) mv) ? (uint32) mv : j - m;
		for (uint32 k = 0; k < n; k++)
			kept[nkept++] = model[m + n - 1 - k];
		m = j;
	}

	chunks = cells_cut(enc, &nchunks);
	stat_chunks += nchunks;
	/*
	 * a value that is one chunk as it stands is a valid chunk: within the
	 * bound, keyed by its first cell in chunk order, its row_ts its newest,
	 * and what cells_cut makes when that makes one chunk (cells_cut's
	 * estimate may cut a value near the bound in two)
	 */
	{
		CellsChunk	as;

		if (cells_as_chunk(enc, nkept > 0 ? cells_oldest_ts(enc) : 0, &as))
		{
			int64		newest = -1;
			int64		oldest = PG_INT64_MAX;

			for (uint32 k = 0; k < nkept; k++)
			{
				newest = Max(newest, kept[k].ts);
				oldest = Min(oldest, kept[k].ts);
			}
			CHECK(nkept > 0 && as.size <= CELLS_CHUNK_MAX && as.ts == kept[0].ts &&
				  as.columnlen == kept[0].namelen &&
				  memcmp(as.column, kept[0].name, as.columnlen) == 0 &&
				  as.newest_ts == newest && as.oldest_ts == oldest,
				  "cells_as_chunk: not a valid chunk");
			if (nchunks == 1)
				CHECK(as.size == chunks[0].size &&
					  memcmp(VARDATA(as.cells), VARDATA(chunks[0].cells), as.size) == 0,
					  "cells_as_chunk differs from cells_cut's one chunk");
		}
	}
	stat_cut_rows += nchunks > 1;
	CHECK((nchunks == 0) == (nkept == 0), "cut: %d chunks of %u cells", nchunks, nkept);
	for (int c = 0; c < nchunks; c++)
	{
		CellsChunk *ch = &chunks[c];
		CellsReader r;
		uint32		ncells;
		int64		newest = -1;
		int64		oldest = PG_INT64_MAX;
		uint32		first = seen;

		CHECK(try_validate((const uint8 *) VARDATA(ch->cells), ch->size), "cut: chunk %d invalid: %s",
			  c, stub_error_detail);
		cells_reader_init(&r, ch->cells);
		ncells = cells_ncells_total(&r);
		CHECK(ch->size <= CELLS_CHUNK_MAX || ncells == 1, "cut: chunk %d has %u bytes in %u cells",
			  c, ch->size, ncells);
		CHECK(seen < nkept && ch->columnlen == kept[seen].namelen &&
			  memcmp(ch->column, kept[seen].name, ch->columnlen) == 0 && ch->ts == kept[seen].ts,
			  "cut: chunk %d's key is not its first cell", c);
		if (c > 0)
			CHECK(cells_position_cmp(chunks[c - 1].column, chunks[c - 1].columnlen, chunks[c - 1].ts,
									 ch->column, ch->columnlen, ch->ts) < 0,
				  "cut: chunk %d out of order", c);
		/* its cells are the next ncells of the row, in chunk order */
		for (uint32 k = 0; k < ncells; k++)
		{
			CellsColumn col;
			int64		ts;
			OtsValue	v;
			bool		found = false;

			CHECK(seen + k < nkept, "cut: more cells than the row has");
			CHECK(cells_find_column(&r, kept[seen + k].name, kept[seen + k].namelen, &col),
				  "cut: chunk %d lacks a column of its range", c);
			while (cells_column_next(&col, &ts, &v))
				if (ts == kept[seen + k].ts)
				{
					found = ots_value_equal(&v, &kept[seen + k].value);
					break;
				}
			CHECK(found, "cut: chunk %d lacks cell %u of its range", c, seen + k);
			newest = Max(newest, kept[seen + k].ts);
			oldest = Min(oldest, kept[seen + k].ts);
		}
		seen = first + ncells;
		CHECK(r.row_ts == newest, "cut: chunk %d's row_ts is not its newest cell", c);
		CHECK(ch->oldest_ts == oldest, "cut: chunk %d's oldest_ts", c);
	}
	CHECK(seen == nkept, "cut: the chunks hold %u of %u cells", seen, nkept);
	free(kept);
}

/* random_head builds a random split row's head and checks it as fuzz input */
static void
random_head(int nmutations)
{
	CellsHead	h;
	char		bytes[OTS_MAX_KEY_COLUMNS + 1][64];
	struct varlena *enc;
	uint8	   *copy;
	uint32		len;

	memset(&h, 0, sizeof(h));
	h.row_ts = (int64) (rng() % (uint64) OTS_MAX_TIMESTAMP);
	h.newest_ts = (int64) (rng() % (uint64) OTS_MAX_TIMESTAMP);
	h.flags = chance(50) ? CELLS_HEAD_NEWEST_BOUND : 0;
	h.cells_size = chance(50) ? rnd(100000) : rng() >> 1;
	h.nkeys = 1 + (int) rnd(OTS_MAX_KEY_COLUMNS + 1);
	for (int i = 0; i < h.nkeys; i++)
	{
		CellsKeyValue *k = &h.key[i];

		k->kind = (CellsKeyKind) (1 + rnd(3));
		if (k->kind == CELLS_KEY_INTEGER)
			k->i = (int64) rng();
		else
		{
			k->len = rnd(64);
			for (uint32 b = 0; b < k->len; b++)
				bytes[i][b] = k->kind == CELLS_KEY_STRING ? (char) ('a' + rnd(26)) : (char) rnd(256);
			k->data = bytes[i];
		}
	}
	enc = cells_head_build(&h);
	len = VARSIZE(enc) - VARHDRSZ;
	copy = malloc(len);
	memcpy(copy, VARDATA(enc), len);
	CHECK(fuzz_one(copy, len), "fuzz_one rejected a built head");
	mutate_and_check(copy, len, nmutations);
	free(copy);
}

static void
random_row(int iter, int nmutations, const char *seed_dir, int *nseeds)
{
	int64		row_ts;
	char		pool[24][OTS_MAX_NAME_LEN];
	uint32		poollen[24];
	uint32		npool = 1 + rnd(chance(10) ? 24 : 6);
	uint32		nadds;
	ModelCell  *model;
	uint32		nmodel = 0;
	CellsBuilder *b;
	int32		mv;
	struct varlena *enc;
	Buf			ref = {0};
	uint32		i;
	uint32		k;
	bool		huge = chance(1) && chance(20);

	row_ts = chance(10) ? 0 : chance(10) ? OTS_MAX_TIMESTAMP - 1 :
		chance(30) ? (int64) rnd(10) : (int64) (rng() % (uint64) OTS_MAX_TIMESTAMP);

	for (i = 0; i < npool; i++)
	{
		if (i > 0 && chance(30))
		{
			/* a prefix or extension of an earlier name */
			uint32		src = rnd(i);

			memcpy(pool[i], pool[src], poollen[src]);
			poollen[i] = poollen[src];
			if (poollen[i] > 1 && chance(50))
				poollen[i] = 1 + rnd(poollen[i] - 1);
			else if (poollen[i] < OTS_MAX_NAME_LEN)
				pool[i][poollen[i]++] = name_rest[rnd(sizeof(name_rest) - 1)];
		}
		else
			poollen[i] = random_name(pool[i]);
	}

	nadds = chance(5) ? 0 : chance(10) ? rnd(400) : rnd(30);
	model = malloc(sizeof(ModelCell) * (nadds + 1));
	b = cells_builder_create(row_ts);
	for (i = 0; i < nadds; i++)
	{
		ModelCell	c;

		if (nmodel > 0 && chance(20))
		{
			/* same (name, ts) again: the later value wins */
			ModelCell  *old = &model[rnd(nmodel)];

			c.name = old->name;
			c.namelen = old->namelen;
			c.ts = old->ts;
		}
		else
		{
			uint32		p = rnd(npool);

			c.name = pool[p];
			c.namelen = poollen[p];
			c.ts = random_ts(row_ts);
		}
		random_value(&c.value, huge);
		if (chance(10))
		{
			/* the builder must copy nothing but keep pointing at the caller's name */
			char	   *copy = palloc(c.namelen);

			memcpy(copy, c.name, c.namelen);
			cells_builder_add(b, copy, c.namelen, c.ts, &c.value);
		}
		else
			cells_builder_add(b, c.name, c.namelen, c.ts, &c.value);

		for (k = 0; k < nmodel; k++)
			if (model[k].ts == c.ts && model[k].namelen == c.namelen &&
				memcmp(model[k].name, c.name, c.namelen) == 0)
				break;
		if (k < nmodel)
			model[k].value = c.value;
		else
			model[nmodel++] = c;
		CHECK(cells_builder_ncells(b) == nmodel, "builder ncells %u, model %u",
			  cells_builder_ncells(b), nmodel);
	}
	qsort(model, nmodel, sizeof(ModelCell), model_cmp);

	mv = chance(40) ? 0 : chance(50) ? 1 + (int32) rnd(3) : (int32) rnd(50);
	enc = cells_builder_finish(b, mv);
	ref_encode(&ref, row_ts, model, nmodel, mv);
	if (VARSIZE(enc) - VARHDRSZ != ref.len || memcmp(VARDATA(enc), ref.data, ref.len) != 0)
	{
		dump_hex("builder", (const uint8 *) VARDATA(enc), VARSIZE(enc) - VARHDRSZ);
		dump_hex("reference", ref.data, ref.len);
		CHECK(false, "iteration %d: builder differs from reference (mv=%d)", iter, mv);
	}
	CHECK(try_validate(ref.data, ref.len), "iteration %d: builder output rejected: %s",
		  iter, stub_error_detail);

	/* reader against the model */
	{
		CellsReader r;
		uint32		m = 0;
		uint32		ncols = 0;
		int64		oldest = row_ts;

		cells_reader_init(&r, enc);
		CHECK(r.row_ts == row_ts, "row_ts");
		while (m < nmodel)
		{
			CellsColumn col;
			uint32		j = m;
			uint32		kept;
			int64		ts;
			OtsValue	v;

			while (j < nmodel && model[j].namelen == model[m].namelen &&
				   memcmp(model[j].name, model[m].name, model[m].namelen) == 0)
				j++;
			kept = j - m;
			if (mv > 0 && kept > (uint32) mv)
				kept = mv;
			CHECK(cells_find_column(&r, model[m].name, model[m].namelen, &col),
				  "model column not found");
			CHECK(col.ncells == kept, "ncells %u, model %u", col.ncells, kept);
			for (k = 0; k < kept; k++)
			{
				CHECK(cells_column_next(&col, &ts, &v), "column ended early");
				CHECK(ts == model[m + k].ts, "ts " INT64_FORMAT ", model " INT64_FORMAT,
					  ts, model[m + k].ts);
				CHECK(ots_value_equal(&v, &model[m + k].value), "value differs");
			}
			CHECK(!cells_column_next(&col, &ts, &v), "column too long");
			if (ncols == 0 || model[m + kept - 1].ts < oldest)
				oldest = model[m + kept - 1].ts;
			ncols++;
			m = j;
		}
		CHECK(r.ncols == ncols, "ncols %u, model %u", r.ncols, ncols);
		CHECK(cells_builder_oldest_ts(b) == oldest, "oldest_ts " INT64_FORMAT ", model " INT64_FORMAT,
			  cells_builder_oldest_ts(b), oldest);
		CHECK(cells_oldest_ts(enc) == oldest, "decoded oldest_ts " INT64_FORMAT ", model " INT64_FORMAT,
			  cells_oldest_ts(enc), oldest);

		/* random names that the model lacks are absent */
		for (k = 0; k < 8; k++)
		{
			char		name[OTS_MAX_NAME_LEN];
			uint32		len = random_name(name);
			bool		in_model = false;
			CellsColumn col;

			for (m = 0; m < nmodel && !in_model; m++)
				in_model = model[m].namelen == len && memcmp(model[m].name, name, len) == 0;
			CHECK(cells_find_column(&r, name, len, &col) == in_model, "absent-name probe");
		}
	}

	if (!huge)
		check_cut(enc, model, nmodel, mv);

	if (seed_dir && *nseeds < 16 && ref.len < 2048 && nmodel > 0 && (iter % 7) == 0)
		write_file(seed_dir, (*nseeds)++, ref.data, ref.len);

	/* the full read/rebuild round trip (fuzz_one frees all palloc'd memory) */
	{
		uint8	   *exact = malloc(ref.len);

		memcpy(exact, ref.data, ref.len);
		CHECK(fuzz_one(exact, ref.len), "fuzz_one rejected a builder output");
		free(exact);
	}
	if (!huge)
		mutate_and_check(ref.data, ref.len, nmutations);
	free(ref.data);
	free(model);
}

int
main(int argc, char **argv)
{
	long		iterations = 20000;
	int			nmutations = 32;
	uint64		seed = 42;
	const char *seed_dir = NULL;
	int			nseeds = 0;
	long		it;
	int			i;

	for (i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
			iterations = atol(argv[++i]);
		else if (strcmp(argv[i], "--mutations") == 0 && i + 1 < argc)
			nmutations = atoi(argv[++i]);
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--write-seeds") == 0 && i + 1 < argc)
			seed_dir = argv[++i];
		else
		{
			fprintf(stderr, "usage: %s [--iterations N] [--mutations M] [--seed S] [--write-seeds DIR]\n",
					argv[0]);
			return 2;
		}
	}
	rng_state = seed ? seed : 1;
	if (seed_dir)
		mkdir(seed_dir, 0777);

	fixed_tests();
	stub_free_all();
	for (it = 0; it < iterations; it++)
	{
		random_row((int) it, nmutations, seed_dir, &nseeds);
		stub_free_all();
		if (it % 10 == 0)
		{
			random_head(nmutations);
			stub_free_all();
		}
	}
	printf("cells: %d fixed cases, %ld random rows (%llu cut into %llu chunks), %llu mutants (%llu still valid), seed %llu\n",
		   stat_fixed, iterations, (unsigned long long) stat_cut_rows, (unsigned long long) stat_chunks,
		   (unsigned long long) stat_mutants, (unsigned long long) stat_mutants_valid,
		   (unsigned long long) seed);
	if (seed_dir)
		printf("wrote %d seeds to %s\n", nseeds, seed_dir);
	return 0;
}

#endif							/* CELLS_STANDALONE */
