-- ots.cells: all attribute cells of one row (src/format/cells.h has the format).
CREATE TYPE ots.cells;

CREATE FUNCTION ots.cells_in(cstring) RETURNS ots.cells
	AS 'MODULE_PATHNAME', 'ots_cells_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ots.cells_out(ots.cells) RETURNS cstring
	AS 'MODULE_PATHNAME', 'ots_cells_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ots.cells_recv(internal) RETURNS ots.cells
	AS 'MODULE_PATHNAME', 'ots_cells_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ots.cells_send(ots.cells) RETURNS bytea
	AS 'MODULE_PATHNAME', 'ots_cells_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- read with memcpy; short values are stored unaligned with 1-byte headers
CREATE TYPE ots.cells (
	INPUT = ots.cells_in,
	OUTPUT = ots.cells_out,
	RECEIVE = ots.cells_recv,
	SEND = ots.cells_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = extended
);
COMMENT ON TYPE ots.cells IS 'all attribute cells of one ots row: columns by name, versions newest first';

-- what every row function returns
CREATE TYPE ots.row_result AS (
	primary_key jsonb,
	attributes jsonb,
	consumed jsonb
);
COMMENT ON TYPE ots.row_result IS 'result of an ots row call: the row (or NULLs), and capacity units consumed';
