-- test/dump/write_point.sql: one line per restored ots table, ending in "ok"
-- when every leaf of its storage uses the ots access method and the write
-- point saw (ots.count_writes) as many new rows as the storage holds.
SELECT format('%I.%I: %s of %s leaves on ots, %s rows stored, %s seen by the write point %s',
			  t.schema_name, t.table_name, l.on_ots, l.leaves, n.stored, w.seen,
			  CASE WHEN l.on_ots = l.leaves AND l.leaves > 0 AND w.seen = n.stored THEN 'ok' ELSE 'FAILED' END)
  FROM ots.tables t
  CROSS JOIN LATERAL (SELECT format('%I.%I', t.schema_name, t.table_name || '$data')::regclass AS storage) s
  CROSS JOIN LATERAL (SELECT count(*) AS leaves,
							 count(*) FILTER (WHERE c.relam = (SELECT oid FROM pg_am WHERE amname = 'ots')) AS on_ots
						FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
					   WHERE i.inhparent = s.storage) l
  CROSS JOIN LATERAL (SELECT coalesce(sum(rows) FILTER (WHERE origin = 'sql' AND callback IN ('insert', 'multi insert')), 0) AS seen
						FROM ots.write_point_counts(s.storage)) w
  CROSS JOIN LATERAL (SELECT (xpath('/row/count/text()',
									query_to_xml(format('SELECT count(*) FROM %s', s.storage), false, true, '')))[1]::text::bigint AS stored) n
 ORDER BY t.schema_name, t.table_name;
