/*-------------------------------------------------------------------------
 * src/meta/defined.c
 *	  The rules of a table's defined columns (defined.h): the type of a
 *	  cell put in one, and the key length of one that keys an index.
 *
 * A cell stored before its column was defined may have another type; it
 * stays as it was (defined_check_types lets it pass unchanged), and the
 * index maintenance gives its row no entry (index_write.c).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "format/cells.h"
#include "meta/defined.h"
#include "errors.h"
#include "ots_limits.h"

static void defined_type_error(const OtsDefinedColumn *c, OtsValueType given)
			pg_attribute_noreturn();

static void defined_check_key_length(const OtsTable *t, const OtsDefinedColumn *c, uint32 len);

/* defined_type_error raises Tablestore's error for a cell of the wrong type */
static void
defined_type_error(const OtsDefinedColumn *c, OtsValueType given)
{
	ots_error(PARAMETER_INVALID,
			  "The type of defined column '%s' is %s, but the value is %s.",
			  c->name, ots_value_type_name(c->type), ots_value_type_name(given));
}

void
defined_check_types(const OtsTable *t, const struct varlena *old_cells,
					const struct varlena *new_cells)
{
	CellsReader r;
	CellsReader old;

	cells_reader_init(&r, new_cells);
	if (old_cells != NULL)
		cells_reader_init(&old, old_cells);
	for (int i = 0; i < t->ndefined; i++)
	{
		const OtsDefinedColumn *c = &t->defined[i];
		int64		ts;
		OtsValue	v;
		int64		old_ts;
		OtsValue	old_v;

		if (!cells_newest(&r, c->name, c->namelen, &ts, &v) || v.type == c->type)
			continue;
		/* a cell the row had before the column was defined stays as it was */
		if (old_cells != NULL && cells_newest(&old, c->name, c->namelen, &old_ts, &old_v) &&
			old_ts == ts && ots_value_equal(&old_v, &v))
			continue;
		defined_type_error(c, v.type);
	}
}

/*
 * defined_check_key_length raises Tablestore's primary key length error
 * when defined column c, whose value is len bytes, is a key column of one
 * of t's indexes: with the write's other checks, so a batch row fails alone
 */
static void
defined_check_key_length(const OtsTable *t, const OtsDefinedColumn *c, uint32 len)
{
	for (int i = 0; i < t->nindexes; i++)
	{
		const OtsTable *idx = catalog_lookup_by_data_oid(t->index_data_oids[i]);

		for (int k = 0; idx != NULL && k < idx->index_nkeys; k++)
			if (strcmp(idx->pk[k].name, c->name) == 0)
				codec_check_pk_length(&idx->pk[k], len);
	}
}

void
defined_check_cells(const OtsTable *t, const CellInput *cells, int n)
{
	for (int i = 0; t->ndefined > 0 && i < n; i++)
	{
		const OtsDefinedColumn *c = catalog_defined_column(t, cells[i].name, cells[i].namelen);

		if (c == NULL)
			continue;
		if (c->type != cells[i].value.type)
			defined_type_error(c, cells[i].value.type);
		/* an index key is a primary key value: its length limit, checked with the row's others */
		if ((c->type == OTS_VT_STRING || c->type == OTS_VT_BINARY) &&
			cells[i].value.u.s.len > OTS_MAX_PK_VALUE_LEN)
			defined_check_key_length(t, c, cells[i].value.u.s.len);
	}
}
