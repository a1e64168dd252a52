-- The ots table access method: heap storage whose write callbacks are the one write
-- point of ots storage (src/writepoint/tableam.c, src/writepoint/storage_write.c). Every leaf of ots storage uses it.
CREATE FUNCTION ots.tableam_handler(internal) RETURNS table_am_handler
	AS 'MODULE_PATHNAME', 'ots_tableam_handler' LANGUAGE C STRICT;
COMMENT ON FUNCTION ots.tableam_handler(internal) IS
	'handler of the ots table access method: heap, with ots''s write point behind its write callbacks';

CREATE ACCESS METHOD ots TYPE TABLE HANDLER ots.tableam_handler;
COMMENT ON ACCESS METHOD ots IS
	'heap storage whose every row change passes ots''s write point, which refuses rows ots could not read back';

CREATE FUNCTION ots.write_point_counts(storage regclass, OUT origin text, OUT callback text,
									   OUT rows bigint, OUT with_old_cells bigint,
									   OUT with_new_cells bigint)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'ots_write_point_counts' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.write_point_counts(regclass) IS
	'row changes of an ots table''s storage that its write point saw, by origin and table AM callback (while ots.count_writes is on; needs ots preloaded)';
