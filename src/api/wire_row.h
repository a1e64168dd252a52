/*-------------------------------------------------------------------------
 * src/api/wire_row.h
 *	  A write request's PlainBuffer row as ots reads it (api/wire_row.c),
 *	  for the wire functions of writes (api/wire_write.c, api/wire_batch.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_WIRE_ROW_H
#define OTS_WIRE_ROW_H

#include "postgres.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "format/codec.h"
#include "format/plainbuffer_decode.h"

/* a cell with its place in the request, so that sorting by name keeps a column's order */
typedef struct WireCell
{
	CellInput	cell;
	PbValue		wire;			/* the value as it came */
	int			seq;
} WireCell;

/* a growing list of cells */
typedef struct WireCells
{
	WireCell   *cells;
	int			n;
	int			cap;
} WireCells;

/* the request's row, as the decoder hands it over */
typedef struct WireRow
{
	PbDecoder	decoder;
	char		err[256];
	int			nkeys;
	int			keys_cap;
	PbCell	   *keys;			/* the reader allows PB_MAX_KEY_CELLS */
	WireCells	puts;
	WireCells	deletes;		/* DELETE_ONE_VERSION: a timestamp each */
	WireCells	increments;
	const char **delete_all;
	int			ndelete_all;
	int			delete_all_cap;
	int			seq;
	int			cells;			/* attribute cells so far */
	/* the increments' names, hashed: a column incremented twice is refused as it comes */
	int		   *increment_slots;	/* 1 + index into increments; 0: free */
	int			increment_slots_cap;
} WireRow;

/* wire_read_row: the one row of bytes into w; an error as otsd's reading of them answers */
extern void wire_read_row(bytea *bytes, WireRow *w);

/* wire_sorted: the cells in jsonb's key order (a column's in request order), as typed cells */
extern CellInput *wire_sorted(WireCells *list);

/*
 * the row's parts as the jsonb path's values (the key; the put cells, a
 * PUT's "attributes" or an UPDATE's "put"; "delete"; "increment"), pushed
 * into state after their key (wire_batch.c); each returns its last push
 */
extern JsonbValue *wire_push_key(JsonbParseState **state, const WireRow *w);
extern JsonbValue *wire_push_puts(JsonbParseState **state, WireCells *puts);
extern JsonbValue *wire_push_deletes(JsonbParseState **state, WireCells *deletes);
extern JsonbValue *wire_push_increments(JsonbParseState **state, const WireCells *incs);

/* the same as arguments of the single-row writes (NULL: none), and '{}' */
extern Jsonb *wire_key_jsonb(const WireRow *w);
extern Jsonb *wire_deletes_jsonb(WireCells *deletes);
extern Jsonb *wire_increments_jsonb(const WireCells *incs);
extern Jsonb *wire_empty_object(void);

/*
 * wire_returned_row: what a write of the row returns, from its result's key
 * and attributes (NULL: none), as otsd writes them; nothing when neither
 */
extern void wire_returned_row(StringInfo out, const WireRow *w, Jsonb *primary_key,
							  Jsonb *attributes);

#endif							/* OTS_WIRE_ROW_H */
