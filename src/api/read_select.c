/*-------------------------------------------------------------------------
 * src/api/read_select.c
 *	  A read request's options (columns_to_get, max_versions, time_range,
 *	  the column range) and the rendering of what it selects of a row's
 *	  cells; which cells it sees is format/visibility.c's.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"


#include "format/codec.h"
#include "errors.h"
#include "format/names.h"
#include "ots_limits.h"
#include "api/read_select.h"
#include "api/request.h"
#include "format/request_fields.h"

/*
 * select_init sets the table's visibility rules and "latest value only",
 * with no other option of a request
 */
void
select_init(ReadSelect *sel, const OtsTable *t, int64 now_ms)
{
	memset(sel, 0, sizeof(*sel));
	visibility_init(&sel->vis, t, now_ms);
}

static int
select_name_cmp(const void *a, const void *b)
{
	const char *const *x = a;
	const char *const *y = b;

	return cells_name_cmp(*x, strlen(*x), *y, strlen(*y));
}

/* select_time_value reads one ms bound of a time_range */
static int64
select_time_value(const JsonbValue *jv, bool allow_max)
{
	int64		ts;

	if (allow_max && jv->type == jbvNumeric)
	{
		char	   *text = DatumGetCString(DirectFunctionCall1(numeric_out,
															   NumericGetDatum(jv->val.numeric)));

		if (strcmp(text, "9223372036854775807") == 0)
			return PG_INT64_MAX;
	}
	ts = codec_parse_timestamp(jv);
	return ts;
}

/* the fields of a time_range */
static const char *const select_time_range_fields[] = {"start_time", "end_time", "specific_time"};
static const RequestFields select_time_range = REQUEST_FIELDS("a time_range", select_time_range_fields);

void
select_parse_request(ReadSelect *sel, ArrayType *columns_to_get, bool has_max_versions,
					 int32 max_versions, Jsonb *time_range, bool with_timestamps)
{
	if (columns_to_get != NULL)
	{
		int			n;
		int			k = 0;

		sel->columns = request_column_names(columns_to_get, "columns_to_get", &n);
		if (n > OTS_MAX_COLUMNS_TO_GET)
			ots_error(PARAMETER_INVALID,
					  "The number of columns from the request exceeds the limit, limit count: %d, column count: %d.",
					  OTS_MAX_COLUMNS_TO_GET, n);
		qsort(sel->columns, n, sizeof(char *), select_name_cmp);
		sel->collens = palloc(sizeof(uint32) * Max(n, 1));
		for (int i = 0; i < n; i++)
		{
			if (k > 0 && strcmp(sel->columns[k - 1], sel->columns[i]) == 0)
				continue;
			sel->columns[k] = sel->columns[i];
			sel->collens[k] = strlen(sel->columns[i]);
			k++;
		}
		sel->ncolumns = k;
	}

	if (has_max_versions && max_versions <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_OTS_PARAMETER_INVALID),
				 errmsg_internal("MaxVersions must be greater than 0."),
				 errdetail("max_versions was %d.", max_versions)));

	if (time_range != NULL)
	{
		JsonbValue	start;
		JsonbValue	end;
		JsonbValue	specific;
		bool		has_start = codec_jsonb_get(time_range, "start_time", &start);
		bool		has_end = codec_jsonb_get(time_range, "end_time", &end);
		bool		has_specific = codec_jsonb_get(time_range, "specific_time", &specific);
		int			nkeys = JB_ROOT_IS_OBJECT(time_range) && !JB_ROOT_IS_SCALAR(time_range) ?
		JB_ROOT_COUNT(time_range) : -1;

		/* more keys than the known ones found: name the first unknown one */
		if (nkeys > (int) has_start + (int) has_end + (int) has_specific)
			request_fields_check(&time_range->root, &select_time_range, "time_range");
		if (nkeys != (int) has_start + (int) has_end + (int) has_specific ||
			(has_specific && (has_start || has_end)) || nkeys == 0)
			ereport(ERROR,
					(errcode(ERRCODE_OTS_PARAMETER_INVALID),
					 errmsg_internal("Invalid time range."),
					 errdetail("A time range is {\"start_time\": <ms>, \"end_time\": <ms>} or {\"specific_time\": <ms>}.")));
		if (has_start != has_end)
			ots_error(PARAMETER_INVALID, "Start and end time must be given at the same time.");
		if (has_specific)
		{
			if (has_max_versions)
				ots_error(PARAMETER_INVALID,
						  "Specific tiemstamp and max versions cannot be given at the same time.");
			sel->vis.start_ts = codec_parse_timestamp(&specific);
			sel->vis.end_ts = sel->vis.start_ts + 1;
		}
		else
		{
			sel->vis.start_ts = select_time_value(&start, false);
			sel->vis.end_ts = select_time_value(&end, true);
			if (sel->vis.start_ts >= sel->vis.end_ts)
				ereport(ERROR,
						(errcode(ERRCODE_OTS_PARAMETER_INVALID),
						 errmsg_internal("Invalid time range: start time must be less than end time."),
						 errdetail("start_time is inclusive and end_time exclusive.")));
		}
		sel->vis.has_range = true;
	}

	if (has_max_versions)
		sel->vis.max_versions = max_versions;
	else if (sel->vis.has_range)
		sel->vis.max_versions = PG_INT32_MAX;
	else
		sel->vis.max_versions = 1;
	sel->with_ts = with_timestamps || sel->vis.has_range ||
		(has_max_versions && max_versions > 1);
}

void
select_parse_column_range(ReadSelect *sel, text *start_column, text *end_column)
{
	if (start_column != NULL)
	{
		sel->start_column = VARDATA_ANY(start_column);
		sel->start_len = VARSIZE_ANY_EXHDR(start_column);
		names_check_column(sel->start_column, sel->start_len);
	}
	if (end_column != NULL)
	{
		sel->end_column = VARDATA_ANY(end_column);
		sel->end_len = VARSIZE_ANY_EXHDR(end_column);
		names_check_column(sel->end_column, sel->end_len);
	}
	if (start_column != NULL && end_column != NULL &&
		cells_name_cmp(sel->start_column, sel->start_len, sel->end_column, sel->end_len) > 0)
		ereport(ERROR,
				(errcode(ERRCODE_OTS_PARAMETER_INVALID),
				 errmsg_internal("Invalid column range: start_column must not be greater than end_column."),
				 errdetail("start_column is inclusive and end_column exclusive, in bytewise order of column names.")));
}

bool
select_column_wanted(const ReadSelect *sel, const char *name, uint32 len)
{
	int			lo = 0;
	int			hi = sel->ncolumns - 1;

	if (sel->ncolumns == 0)
		return true;
	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		uint32		mlen = sel->collens[mid];
		int			c = cells_name_cmp(sel->columns[mid], mlen, name, len);

		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

uint32
select_data_size(const ReadSelect *sel, const CellsReader *r)
{
	uint32		size = 0;

	for (uint32 i = 0; i < r->ncols; i++)
	{
		CellsColumn col;
		SelectedCells sc;
		int64		ts;
		OtsValue	v;

		cells_column_at(r, i, &col);
		if (!select_column_wanted(sel, col.name, col.namelen))
			continue;
		visibility_column_begin(&sc, &sel->vis, &col);
		while (visibility_column_next(&sc, &ts, &v))
			size += col.namelen + ots_value_size(&v);
	}
	return size;
}

/*
 * SelectEmit receives a selected cell: first says it is its column's first
 * (newest); a read without timestamps gets only that one
 */
typedef void (*SelectEmit) (void *arg, const CellsColumn *col, bool first, int64 ts,
							const OtsValue *v);

/*
 * select_walk: the selected cells of a row, column by column (in the
 * cells' name order), newest first, to emit; the columns emitted in *ncols.
 * Applies columns_to_get, the column range and column pagination, and
 * adds the cells' data size (names + values) to *size.
 */
static void
select_walk(const ReadSelect *sel, const CellsReader *r, uint32 *size, int *ncols,
			SelectEmit emit, void *arg)
{
	int32		skipped = 0;

	*ncols = 0;
	for (uint32 i = 0; r != NULL && i < r->ncols; i++)
	{
		CellsColumn col;
		SelectedCells sc;
		int64		ts;
		OtsValue	v;
		bool		first = true;

		cells_column_at(r, i, &col);
		if (sel->start_column != NULL &&
			cells_name_cmp(col.name, col.namelen, sel->start_column, sel->start_len) < 0)
			continue;
		if (sel->end_column != NULL &&
			cells_name_cmp(col.name, col.namelen, sel->end_column, sel->end_len) >= 0)
			break;
		if (!select_column_wanted(sel, col.name, col.namelen))
			continue;
		if (sel->page_limit > 0 && *ncols >= sel->page_limit)
			break;
		visibility_column_begin(&sc, &sel->vis, &col);
		while (visibility_column_next(&sc, &ts, &v))
		{
			if (first && skipped < sel->page_offset)
			{
				/* column pagination counts columns that have a selected cell */
				skipped++;
				break;
			}
			*size += col.namelen + ots_value_size(&v);
			if (first)
				(*ncols)++;
			emit(arg, &col, first, ts, &v);
			first = false;
			if (!sel->with_ts)
				break;
		}
	}
}

/* the jsonb renderings: a flat map of latest values, or arrays of cells with timestamps */
typedef struct JsonbRender
{
	CodecPair  *latest;			/* without timestamps */
	int			nlatest;
	JsonbParseState *state;		/* with timestamps */
	bool		open;			/* a column's array is open */
} JsonbRender;

static void
emit_jsonb(void *arg, const CellsColumn *col, bool first, int64 ts, const OtsValue *v)
{
	JsonbRender *j = arg;

	if (j->latest != NULL)
	{
		j->latest[j->nlatest].key = col->name;
		j->latest[j->nlatest].keylen = col->namelen;
		j->latest[j->nlatest].value = *v;
		j->nlatest++;
		return;
	}
	if (first)
	{
		if (j->open)
			pushJsonbValue(&j->state, WJB_END_ARRAY, NULL);
		codec_push_key(&j->state, col->name, col->namelen);
		pushJsonbValue(&j->state, WJB_BEGIN_ARRAY, NULL);
		j->open = true;
	}
	codec_push_cell(&j->state, ts, v);
}

Jsonb *
select_render_attributes(const ReadSelect *sel, const CellsReader *r, uint32 *size, int *ncols)
{
	JsonbRender j = {0};

	if (!sel->with_ts)
		j.latest = palloc(sizeof(CodecPair) * (r != NULL ? Max(r->ncols, 1) : 1));
	else
		pushJsonbValue(&j.state, WJB_BEGIN_OBJECT, NULL);
	select_walk(sel, r, size, ncols, emit_jsonb, &j);
	if (j.latest != NULL)
		return codec_flat_object(j.latest, j.nlatest);
	if (j.open)
		pushJsonbValue(&j.state, WJB_END_ARRAY, NULL);
	return JsonbValueToJsonb(pushJsonbValue(&j.state, WJB_END_OBJECT, NULL));
}

static void
emit_plainbuffer(void *arg, const CellsColumn *col, bool first, int64 ts, const OtsValue *v)
{
	plainbuffer_attribute_cell(arg, col->name, col->namelen, v, ts);
}

void
select_render_plainbuffer(const ReadSelect *sel, const CellsReader *r, uint32 *size,
						  int *ncols, PlainBufferRow *row)
{
	select_walk(sel, r, size, ncols, emit_plainbuffer, row);
}

bool
select_latest(const ReadSelect *sel, const CellsReader *r, const char *name, uint32 len,
			  OtsValue *value)
{
	CellsColumn col;
	SelectedCells sc;
	int64		ts;

	if (!cells_find_column(r, name, len, &col))
		return false;
	visibility_column_begin(&sc, &sel->vis, &col);
	return visibility_column_next(&sc, &ts, value);
}
