/*-------------------------------------------------------------------------
 * src/format/cells_head.c
 *	  The head of a split row: ots.cells format version 2 (cells.h), which
 *	  holds no cell, only what a read of the row needs before its chunks:
 *	  the row marker, the newest timestamp (the row rule under a TTL), the
 *	  size of its cells and its stored key (docs/design.md, "Wide rows:
 *	  heads and chunks").
 *
 * Like cells.c, this file writes every byte of a head and checks every
 * byte of an untrusted one; nothing else interprets them.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "format/cells.h"
#include "format/cells_internal.h"

/* version byte, row_ts, newest_ts, flags */
#define CELLS_HEAD_FIXED_SIZE	(1 + 2 * sizeof(int64) + 1)

/* cells_head_key_size is the encoded size of one key column */
static uint32
cells_head_key_size(const CellsKeyValue *k)
{
	if (k->kind == CELLS_KEY_INTEGER)
		return 1 + sizeof(int64);
	return 1 + cells_varint_len(k->len) + k->len;
}

struct varlena *
cells_head_build(const CellsHead *h)
{
	Size		size = CELLS_HEAD_FIXED_SIZE + cells_varint_len(h->cells_size) + 1;
	struct varlena *result;
	uint8	   *p;

	Assert(h->nkeys >= 1 && h->nkeys <= OTS_MAX_KEY_COLUMNS + 1);
	Assert(h->row_ts >= 0 && h->row_ts < OTS_MAX_TIMESTAMP);
	Assert(h->newest_ts >= 0 && h->newest_ts < OTS_MAX_TIMESTAMP);
	for (int i = 0; i < h->nkeys; i++)
		size += cells_head_key_size(&h->key[i]);

	result = (struct varlena *) palloc(VARHDRSZ + size);
	SET_VARSIZE(result, VARHDRSZ + size);
	p = (uint8 *) VARDATA(result);
	*p++ = CELLS_HEAD_FORMAT_VERSION;
	cells_put_u64(p, (uint64) h->row_ts);
	p += sizeof(int64);
	cells_put_u64(p, (uint64) h->newest_ts);
	p += sizeof(int64);
	*p++ = h->flags;
	p += cells_put_varint(p, h->cells_size);
	*p++ = (uint8) h->nkeys;
	for (int i = 0; i < h->nkeys; i++)
	{
		const CellsKeyValue *k = &h->key[i];

		*p++ = (uint8) k->kind;
		if (k->kind == CELLS_KEY_INTEGER)
		{
			cells_put_u64(p, (uint64) k->i);
			p += sizeof(int64);
		}
		else
		{
			p += cells_put_varint(p, k->len);
			if (k->len > 0)
				memcpy(p, k->data, k->len);
			p += k->len;
		}
	}
	Assert((Size) (p - (uint8 *) result) == VARSIZE(result));
	return result;
}

void
cells_head_read(const struct varlena *value, CellsHead *h)
{
	const uint8 *p = (const uint8 *) VARDATA_ANY(value);

	Assert(p[0] == CELLS_HEAD_FORMAT_VERSION);
	p++;
	h->row_ts = (int64) cells_get_u64(p);
	p += sizeof(int64);
	h->newest_ts = (int64) cells_get_u64(p);
	p += sizeof(int64);
	h->flags = *p++;
	h->cells_size = cells_get_varint(&p);
	h->nkeys = *p++;
	for (int i = 0; i < h->nkeys; i++)
	{
		CellsKeyValue *k = &h->key[i];

		k->kind = (CellsKeyKind) *p++;
		if (k->kind == CELLS_KEY_INTEGER)
		{
			k->i = (int64) cells_get_u64(p);
			p += sizeof(int64);
			k->data = NULL;
			k->len = 0;
		}
		else
		{
			k->len = (uint32) cells_get_varint(&p);
			k->data = (const char *) p;
			p += k->len;
		}
	}
}

/* cells_head_check_ts checks a timestamp of an untrusted head */
static int64
cells_head_check_ts(const uint8 *p, const char *what)
{
	int64		ts = (int64) cells_get_u64(p);

	if (ts < 0 || ts >= OTS_MAX_TIMESTAMP)
		cells_invalid("The head's %s " INT64_FORMAT " is out of range.", what, ts);
	return ts;
}

void
cells_head_validate(const uint8 *data, uint32 len)
{
	const uint8 *end = data + len;
	const uint8 *p = data;
	int			nkeys;

	if (len < CELLS_HEAD_FIXED_SIZE + 2)
		cells_invalid("The split row head is %u bytes long, shorter than its header.", len);
	Assert(p[0] == CELLS_HEAD_FORMAT_VERSION);
	p++;
	cells_head_check_ts(p, "row timestamp");
	p += sizeof(int64);
	cells_head_check_ts(p, "newest timestamp");
	p += sizeof(int64);
	if ((*p & ~CELLS_HEAD_NEWEST_BOUND) != 0)
		cells_invalid("The head's flags 0x%02x are not known.", (unsigned int) *p);
	p++;
	if (cells_get_varint_checked(&p, end, "cells size") > (uint64) PG_INT64_MAX)
		cells_invalid("The head's cells size is out of range.");
	if (p >= end)
		cells_invalid("The head's key column count is missing.");
	nkeys = *p++;
	if (nkeys < 1 || nkeys > OTS_MAX_KEY_COLUMNS + 1)
		cells_invalid("The head has %d key columns, not 1 to %d.", nkeys, OTS_MAX_KEY_COLUMNS + 1);
	for (int i = 0; i < nkeys; i++)
	{
		uint8		kind;
		uint64		klen;

		if (p >= end)
			cells_invalid("Key column %d of the head is missing.", i);
		kind = *p++;
		if (kind == CELLS_KEY_INTEGER)
		{
			if ((uint64) (end - p) < sizeof(int64))
				cells_invalid("Key column %d of the head is truncated.", i);
			p += sizeof(int64);
			continue;
		}
		if (kind != CELLS_KEY_STRING && kind != CELLS_KEY_BINARY)
			cells_invalid("Key column %d of the head has the unknown kind %u.", i, (unsigned int) kind);
		klen = cells_get_varint_checked(&p, end, "key column length");
		if (klen > (uint64) (end - p))
			cells_invalid("Key column %d of the head is truncated.", i);
		if (kind == CELLS_KEY_STRING && !cells_utf8_valid(p, (uint32) klen))
			cells_invalid("Key column %d of the head is not valid UTF-8 text.", i);
		p += klen;
	}
	if (p != end)
		cells_invalid("There are %u bytes after the head's last key column.", (uint32) (end - p));
}
