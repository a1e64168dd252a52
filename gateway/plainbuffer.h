/*-------------------------------------------------------------------------
 * gateway/plainbuffer.h
 *	  Tablestore's PlainBuffer row encoding <-> ots's jsonb conventions.
 *
 * PlainBuffer (little-endian): header 0x75, then rows of tagged parts
 * (0x01 pk, 0x02 attributes, 0x03 cell, 0x04 name, 0x05 value, 0x06 type,
 * 0x07 timestamp, 0x08 delete marker, 0x09 row checksum, 0x0A cell checksum),
 * a CRC-8 per cell and per row.  Values follow docs/reference.md "Values in
 * jsonb": Integer a json integer, Double a json real, String a string,
 * Boolean true/false, Binary {"$binary": base64}; INF_MIN / INF_MAX are
 * {"$inf": "min"|"max"}, AUTO_INCREMENT {"$auto_increment": true}.
 * Decoders never trust their input: every length is checked, every error
 * is a message for OTSParameterInvalid, never a crash.
 *-------------------------------------------------------------------------
 */
#ifndef PLAINBUFFER_H
#define PLAINBUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <protobuf-c/protobuf-c.h>

typedef struct Buf Buf;

/*
 * What otsd sets to bound a request's memory (memory.c); unset, as in the
 * codec tests, the decoders run unbounded.  pb_stop_decoding is asked after
 * each cell: true fails the decode.  pb_allocator unpacks filters.
 */
extern bool (*pb_stop_decoding) (void);
extern ProtobufCAllocator *pb_allocator;

/* one decoded row of a request */
typedef struct PbRow
{
	json_t	   *primary_key;	/* {"name": value, ...} */
	json_t	   *pk_order;		/* ["name", ...] as the request gave them */
	json_t	   *put;			/* {"col": [{"value": v, "ts": ms}|{"value": v}, ...]} or NULL */
	json_t	   *delete_one;		/* {"col": [ts, ...]} or NULL */
	json_t	   *delete_all;		/* ["col", ...] or NULL */
	json_t	   *increment;		/* {"col": n} or NULL */
	bool		delete_marker;	/* the row is a delete (BatchWriteRow DELETE) */
} PbRow;

extern void pb_row_free(PbRow *row);

/*
 * pb_decode_rows: the rows of a PlainBuffer (one for a PutRow/UpdateRow/
 * DeleteRow/GetRow key; one per bound of GetRange; several for BatchGetRow
 * keys).  Returns the number of rows decoded into rows[0..max-1], or -1 with
 * a message in err (Tablestore's text where it has one).
 */
extern int	pb_decode_rows(const uint8_t *data, size_t len, PbRow *rows, int max,
						   char *err, size_t errlen);

/* pb_decode_row: the one row of a single-row request (pb_decode_one's rule); false with err */
extern bool pb_decode_row(const uint8_t *data, size_t len, PbRow *row, char *err, size_t errlen);

/*
 * Encoders append one row (without the 0x75 header; pb_begin writes it).
 * pk is {"name": value}, written in pk_order; attributes are ots's read
 * output with timestamps: {"col": [{"ts": ms, "value": v}, ...]}.
 */
extern void pb_begin(Buf *out);
extern void pb_write_row(Buf *out, json_t *pk, json_t *pk_order, json_t *attributes);
/*
 * pb_write_change: a Stream record's row: pk, then the record's "columns"
 * ([{"name","type":"PUT","value","timestamp"} | {"name","type":
 * "DELETE_ONE_VERSION","timestamp"} | {"name","type":"DELETE_ALL_VERSIONS"}])
 * as cells with their operation types; delete_row adds the delete marker,
 * seq (NULL: none) the row extension with the record's sequence info.
 */
typedef struct PbSequenceInfo
{
	uint32_t	epoch;
	int64_t		timestamp;
	uint32_t	row_index;
} PbSequenceInfo;
extern void pb_write_change(Buf *out, json_t *pk, json_t *pk_order, json_t *columns,
							bool delete_row, const PbSequenceInfo *seq);

/* one bare PlainBuffer value (a filter's column_value) -> ots jsonb, or NULL + err */
extern json_t *pb_decode_variant_json(const uint8_t *data, size_t len, const char *column,
									   char *err, size_t errlen);

/*
 * pb_decode_filter: a serialized protobuf Filter (of tablestore's filter
 * messages) to ots's filter jsonb (docs/reference.md "Filters and column
 * conditions"), or NULL with a message in err.  (filter.c)
 */
extern json_t *pb_decode_filter(const uint8_t *data, size_t len, char *err, size_t errlen);

#endif							/* PLAINBUFFER_H */
