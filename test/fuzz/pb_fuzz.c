/*-------------------------------------------------------------------------
 * test/fuzz/pb_fuzz.c
 *	  Fuzz and model tests for otsd's request decoders: PlainBuffer rows
 *	  (gateway/plainbuffer_read.c) and protobuf Filters (gateway/filter.c).
 *
 * LLVMFuzzerTestOneInput takes a selector byte and a payload: 0 decodes
 * the payload as PlainBuffer rows, 1 as a serialized Filter, 2 as one bare
 * value (a filter's column_value).  A refusal must carry a message; an
 * accepted row must have a key, and its key and PUT cells must come back
 * unchanged through pb_write_row and a second decode; an accepted filter
 * must be a json object.
 *
 * Built with -DPB_STANDALONE, main() instead builds random rows through
 * the encoder from a model (every value type, edge values, several
 * versions, with and without timestamps), checks the decoder returns the
 * model, mutates each encoding (bit flips, byte sets, truncation,
 * insertion, deletion) through the fuzz target, and can write the seed
 * corpus (--write-seeds DIR).  See test/fuzz/README.md.
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "otsd.h"
#include "plainbuffer.h"

#include "fuzz_check.h"

#define MAX_ROWS 4

enum
{
	TARGET_ROWS, TARGET_FILTER, TARGET_VALUE, N_TARGETS
};

/* fuzz_rows: decode; what is accepted must survive our encoder and decoder */
static void
fuzz_rows(const uint8_t *data, size_t len)
{
	PbRow		rows[MAX_ROWS];
	char		err[256] = "";
	int			n = pb_decode_rows(data, len, rows, MAX_ROWS, err, sizeof(err));

	if (n < 0)
	{
		CHECK(err[0] != '\0', "refusal without a message");
		return;
	}
	CHECK(n <= MAX_ROWS, "%d rows", n);
	for (int i = 0; i < n; i++)
	{
		PbRow	   *row = &rows[i];
		PbRow		again;
		Buf			out = {0};

		CHECK(json_object_size(row->primary_key) > 0, "row without key accepted");
		CHECK(json_array_size(row->pk_order) == json_object_size(row->primary_key),
			  "pk_order and primary_key disagree");
		pb_begin(&out);
		pb_write_row(&out, row->primary_key, row->pk_order, row->put);
		CHECK(pb_decode_rows(out.data, out.len, &again, 1, err, sizeof(err)) == 1,
			  "our own encoding of an accepted row is refused: %s", err);
		CHECK(json_equal(again.primary_key, row->primary_key), "key changed through the encoder");
		CHECK(json_equal(again.pk_order, row->pk_order), "key order changed through the encoder");
		CHECK(row->put == NULL ? again.put == NULL : json_equal(again.put, row->put),
			  "PUT cells changed through the encoder");
		pb_row_free(&again);
		buf_free(&out);
		pb_row_free(row);
	}
}

static void
fuzz_filter(const uint8_t *data, size_t len)
{
	char		err[256] = "";
	json_t	   *filter = pb_decode_filter(data, len, err, sizeof(err));
	char	   *text;

	if (filter == NULL)
	{
		CHECK(err[0] != '\0', "refusal without a message");
		return;
	}
	CHECK(json_is_object(filter), "a filter that is no object");
	text = json_dumps(filter, JSON_COMPACT);
	CHECK(text != NULL, "a filter jansson cannot write");
	free(text);
	json_decref(filter);
}

static void
fuzz_value(const uint8_t *data, size_t len)
{
	char		err[256] = "";
	json_t	   *value = pb_decode_variant_json(data, len, "c", err, sizeof(err));

	if (value == NULL)
		CHECK(err[0] != '\0', "refusal without a message");
	json_decref(value);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	switch (data[0] % N_TARGETS)
	{
		case TARGET_ROWS:
			fuzz_rows(data + 1, size - 1);
			break;
		case TARGET_FILTER:
			fuzz_filter(data + 1, size - 1);
			break;
		default:
			fuzz_value(data + 1, size - 1);
			break;
	}
	return 0;
}

#ifdef PB_STANDALONE

static uint64_t rng_state;

static uint64_t
rng(void)
{
	/* splitmix64: small, seedable, good enough to pick test cases */
	uint64_t	z = (rng_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static int
rng_below(int n)
{
	return (int) (rng() % (uint64_t) n);
}

/* model values: the jsonb text ots uses for each, decoded exactly so */
static const char *const attribute_values[] = {
	"0", "1", "-1", "9223372036854775807", "-9223372036854775808", "1700000000000",
	"3.0", "2.5", "-0.125", "0.1", "123456.789", "{\"$double\": 1e300}", "{\"$double\": 1e-300}",
	"{\"$double\": -1.7976931348623157e308}", "{\"$double\": \"NaN\"}", "{\"$double\": \"Infinity\"}",
	"true", "false", "\"\"", "\"text\"", "\"\\u4e2d\\u6587\"", "\"with \\\"quotes\\\" and \\\\\"",
	"{\"$binary\": \"\"}", "{\"$binary\": \"AA==\"}", "{\"$binary\": \"AAEC/f7/\"}",
};
static const char *const key_values[] = {
	"0", "-9223372036854775808", "42", "\"\"", "\"k\"", "\"\\u00e9t\\u00e9\"",
	"{\"$binary\": \"AP8=\"}", "{\"$inf\": \"min\"}", "{\"$inf\": \"max\"}", "{\"$auto_increment\": true}",
};
static const char *const names[] = {"a", "b", "pk", "col", "c_1", "long_column_name_0123456789", "Z"};

static json_t *
parse(const char *text)
{
	json_error_t error;
	json_t	   *j = json_loads(text, JSON_DECODE_ANY, &error);

	CHECK(j != NULL, "bad model json %s: %s", text, error.text);
	return j;
}

/* model_row: a random key (1-4 columns) and PUT cells (0-6 columns, 1-3 versions) */
static void
model_row(json_t **pk, json_t **order, json_t **put)
{
	int			n_keys = 1 + rng_below(4);
	int			n_cols = rng_below(7);

	*pk = json_object();
	*order = json_array();
	*put = n_cols ? json_object() : NULL;
	for (int i = 0; i < n_keys; i++)
	{
		char		name[32];

		snprintf(name, sizeof(name), "%s%d", names[rng_below(7)], i);
		json_object_set_new(*pk, name, parse(key_values[rng_below(10)]));
		json_array_append_new(*order, json_string(name));
	}
	for (int i = 0; i < n_cols; i++)
	{
		json_t	   *cells = json_array();
		int			versions = 1 + rng_below(3);
		char		name[32];

		snprintf(name, sizeof(name), "%s_%d", names[rng_below(7)], i);
		for (int v = 0; v < versions; v++)
		{
			json_t	   *cell = json_object();

			json_object_set_new(cell, "value",
								parse(attribute_values[rng_below(sizeof(attribute_values) / sizeof(attribute_values[0]))]));
			if (rng_below(4) != 0)
				json_object_set_new(cell, "ts", json_integer((json_int_t) (rng() >> 1)));
			json_array_append_new(cells, cell);
		}
		json_object_set_new(*put, name, cells);
	}
}

/* mutate: one random damage of buf (length in *len, capacity cap) */
static void
mutate(uint8_t *buf, size_t *len, size_t cap)
{
	size_t		at = *len ? (size_t) rng_below((int) *len) : 0;

	switch (rng_below(6))
	{
		case 0:
			if (*len)
				buf[at] ^= (uint8_t) (1 << rng_below(8));
			break;
		case 1:
			if (*len)
				buf[at] = (uint8_t) rng();
			break;
		case 2:
			*len = at;
			break;
		case 3:
			if (*len < cap)
			{
				memmove(buf + at + 1, buf + at, *len - at);
				buf[at] = (uint8_t) rng();
				(*len)++;
			}
			break;
		case 4:
			if (*len)
			{
				memmove(buf + at, buf + at + 1, *len - at - 1);
				(*len)--;
			}
			break;
		default:
			if (*len < cap)
				buf[(*len)++] = (uint8_t) rng();
			break;
	}
}

/* run_target: the payload with its selector, in an exact-size copy */
static void
run_target(int target, const uint8_t *payload, size_t len)
{
	uint8_t    *input = malloc(len + 1);

	input[0] = (uint8_t) target;
	memcpy(input + 1, payload, len);
	LLVMFuzzerTestOneInput(input, len + 1);
	free(input);
}

/* filter seeds: single filters of each value type, composites, pagination */
static size_t
seed_filter(int kind, uint8_t *out, size_t cap)
{
	static const uint8_t int_value[] = {0x00, 5, 0, 0, 0, 0, 0, 0, 0};
	static const uint8_t str_value[] = {0x03, 3, 0, 0, 0, 'b', 'o', 'b'};
	Otsp__SingleColumnValueFilter single = OTSP__SINGLE_COLUMN_VALUE_FILTER__INIT;
	Otsp__CompositeColumnValueFilter composite = OTSP__COMPOSITE_COLUMN_VALUE_FILTER__INIT;
	Otsp__ColumnPaginationFilter page = OTSP__COLUMN_PAGINATION_FILTER__INIT;
	Otsp__Filter filter = OTSP__FILTER__INIT;
	Otsp__Filter child = OTSP__FILTER__INIT;
	Otsp__Filter *children[2] = {&child, &child};
	uint8_t		inner[256];
	uint8_t		leaf[256];

	single.comparator = 1 + kind % 6;
	single.column_name = "col";
	single.column_value.data = (uint8_t *) (kind % 2 ? str_value : int_value);
	single.column_value.len = kind % 2 ? sizeof(str_value) : sizeof(int_value);
	single.filter_if_missing = kind % 3 == 0;
	single.latest_version_only = kind % 4 != 0;
	if (kind < 6)
	{
		filter.type = OTSP__FILTER_TYPE__FT_SINGLE_COLUMN_VALUE;
		filter.filter.len = otsp__single_column_value_filter__pack(&single, inner);
	}
	else if (kind < 8)
	{
		child.type = OTSP__FILTER_TYPE__FT_SINGLE_COLUMN_VALUE;
		child.filter.data = leaf;
		child.filter.len = otsp__single_column_value_filter__pack(&single, leaf);
		composite.combinator = kind == 6 ? OTSP__LOGICAL_OPERATOR__LO_AND : OTSP__LOGICAL_OPERATOR__LO_NOT;
		composite.n_sub_filters = kind == 6 ? 2 : 1;
		composite.sub_filters = children;
		filter.type = OTSP__FILTER_TYPE__FT_COMPOSITE_COLUMN_VALUE;
		filter.filter.len = otsp__composite_column_value_filter__pack(&composite, inner);
	}
	else
	{
		page.offset = 3;
		page.limit = 10;
		filter.type = OTSP__FILTER_TYPE__FT_COLUMN_PAGINATION;
		filter.filter.len = otsp__column_pagination_filter__pack(&page, inner);
	}
	filter.filter.data = inner;
	CHECK(otsp__filter__get_packed_size(&filter) <= cap, "seed too large");
	return otsp__filter__pack(&filter, out);
}

static void
write_file(const char *dir, const char *name, int target, const uint8_t *data, size_t len)
{
	char		path[1024];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	CHECK(f != NULL, "cannot write %s", path);
	fputc(target, f);
	fwrite(data, 1, len, f);
	fclose(f);
}

int
main(int argc, char **argv)
{
	long		iterations = 2000;
	int			mutations = 32;
	const char *seeds_dir = NULL;
	long		decoded = 0;
	long		fed = 0;
	uint64_t	seed;

	rng_state = 1;
	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
			iterations = atol(argv[++i]);
		else if (strcmp(argv[i], "--mutations") == 0 && i + 1 < argc)
			mutations = atoi(argv[++i]);
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			rng_state = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--write-seeds") == 0 && i + 1 < argc)
			seeds_dir = argv[++i];
		else
		{
			fprintf(stderr, "usage: %s [--iterations N] [--mutations M] [--seed S] [--write-seeds DIR]\n", argv[0]);
			return 2;
		}
	}
	seed = rng_state;
	if (seeds_dir != NULL)
	{
		uint8_t		bytes[1024];
		char		name[64];

		mkdir(seeds_dir, 0777);
		for (int k = 0; k < 9; k++)
		{
			snprintf(name, sizeof(name), "filter-%02d", k);
			write_file(seeds_dir, name, TARGET_FILTER, bytes, seed_filter(k, bytes, sizeof(bytes)));
		}
		for (size_t k = 0; k < sizeof(attribute_values) / sizeof(attribute_values[0]); k++)
		{
			json_t	   *pk = parse("{\"k\": 1}");
			json_t	   *put = json_object();
			Buf			out = {0};

			/* a bare value is a one-cell row's value after its tag and length */
			json_object_set_new(put, "c", parse(attribute_values[k]));
			pb_begin(&out);
			pb_write_row(&out, pk, NULL, put);
			snprintf(name, sizeof(name), "value-%02zu", k);
			/*
			 * header 4, 0x01, the key cell 23, 0x02, 0x03 0x04 len "c" 7,
			 * 0x05 len 5; after the value the two checksums, 4
			 */
			write_file(seeds_dir, name, TARGET_VALUE, out.data + 4 + 1 + 23 + 1 + 7 + 5,
					   out.len - (4 + 1 + 23 + 1 + 7 + 5) - 4);
			buf_free(&out);
			json_decref(pk);
			json_decref(put);
		}
	}

	for (long it = 0; it < iterations || (seeds_dir != NULL && it < 40); it++)
	{
		json_t	   *pk,
				   *order,
				   *put;
		Buf			out = {0};
		PbRow		row;
		char		err[256];
		uint8_t    *work;
		size_t		cap;

		model_row(&pk, &order, &put);
		pb_begin(&out);
		pb_write_row(&out, pk, order, put);
		CHECK(pb_decode_rows(out.data, out.len, &row, 1, err, sizeof(err)) == 1,
			  "model row %ld refused: %s", it, err);
		CHECK(json_equal(row.primary_key, pk), "row %ld: key differs", it);
		CHECK(json_equal(row.pk_order, order), "row %ld: key order differs", it);
		CHECK(put == NULL ? row.put == NULL : json_equal(row.put, put), "row %ld: cells differ", it);
		CHECK(row.delete_one == NULL && row.delete_all == NULL && row.increment == NULL &&
			  !row.delete_marker, "row %ld: operations appeared", it);
		pb_row_free(&row);
		decoded++;
		if (seeds_dir != NULL && it < 40)
		{
			char		name[64];

			snprintf(name, sizeof(name), "rows-%02ld", it);
			write_file(seeds_dir, name, TARGET_ROWS, out.data, out.len);
		}

		cap = out.len + 64;
		work = malloc(cap);
		for (int m = 0; m < mutations; m++)
		{
			size_t		len = out.len;
			int			rounds = 1 + rng_below(3);

			memcpy(work, out.data, out.len);
			for (int r = 0; r < rounds; r++)
				mutate(work, &len, cap);
			run_target(TARGET_ROWS, work, len);
			fed++;
		}
		for (int m = 0; m < mutations / 8; m++)
		{
			uint8_t		filter[1024];
			size_t		len = seed_filter(rng_below(9), filter, sizeof(filter) - 64);

			mutate(filter, &len, sizeof(filter));
			run_target(TARGET_FILTER, filter, len);
			fed++;
		}
		free(work);
		buf_free(&out);
		json_decref(pk);
		json_decref(order);
		json_decref(put);
	}
	printf("pb: %ld model rows decoded exactly, %ld mutants through the target, seed %llu\n",
		   decoded, fed, (unsigned long long) seed);
	return 0;
}

#endif							/* PB_STANDALONE */
