-- test/upgrade/objects.sql: describes extension :ext (psql variable; ots
-- when unset) as installed in the current database, one line per object,
-- without OIDs, so that two databases compare with diff: the extension's own
-- settings, then every member object (pg_depend deptype 'e') with its full
-- definition, privileges and comment; for a table also its columns,
-- defaults, constraints, indexes, triggers, row-level security, policies and
-- rows (their count and an md5 of them, sorted); the function bodies as
-- pg_get_functiondef prints them.
\if :{?ext}
\else
\set ext ots
\endif
\pset format unaligned
\pset tuples_only on
\pset fieldsep ' '

SELECT 'extension ' || e.extname || ': relocatable=' || e.extrelocatable || ' schema=' || n.nspname
	|| ' config=' || coalesce((SELECT string_agg(c.oid::regclass::text || ' where ''' || coalesce(w, '') || '''', ', '
										 ORDER BY c.oid::regclass::text)
							   FROM unnest(e.extconfig, e.extcondition) AS x(cfg, w)
							   JOIN pg_class c ON c.oid = x.cfg), 'none')
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
WHERE e.extname = :'ext';

WITH member AS (
	SELECT d.classid, d.objid, d.objsubid
	FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
	WHERE d.refclassid = 'pg_extension'::regclass AND e.extname = :'ext' AND d.deptype = 'e'
)
SELECT pg_describe_object(m.classid, m.objid, m.objsubid) || E'\n' || coalesce(def.text, '(no details)')
	|| E'\n  comment: ' || coalesce(obj_description(m.objid, m.classid::regclass::name), '-')
FROM member m
CROSS JOIN LATERAL (
	SELECT CASE m.classid
	WHEN 'pg_proc'::regclass THEN (
		SELECT CASE WHEN p.prokind = 'a' THEN 'aggregate ' || p.oid::regprocedure::text
					ELSE pg_get_functiondef(p.oid) END
			|| E'\n  acl: ' || coalesce(p.proacl::text, 'default')
		FROM pg_proc p WHERE p.oid = m.objid)
	WHEN 'pg_type'::regclass THEN (
		SELECT format('  type=%s category=%s len=%s byval=%s align=%s storage=%s input=%s output=%s receive=%s send=%s '
					  'typmod_in=%s typmod_out=%s analyze=%s element=%s array=%s default=%s collatable=%s acl=%s',
					  t.typtype, t.typcategory, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typinput,
					  t.typoutput, t.typreceive, t.typsend, t.typmodin, t.typmodout, t.typanalyze,
					  t.typelem::regtype, t.typarray::regtype, t.typdefault, t.typcollation <> 0,
					  coalesce(t.typacl::text, 'default'))
			|| coalesce(E'\n  attributes: ' || (
				SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' ORDER BY a.attnum)
				FROM pg_attribute a WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped), '')
			|| coalesce(E'\n  labels: ' || (
				SELECT string_agg(l.enumlabel, ', ' ORDER BY l.enumsortorder) FROM pg_enum l WHERE l.enumtypid = t.oid), '')
			|| coalesce(E'\n  domain: ' || format_type(t.typbasetype, t.typtypmod) || ' not null=' || t.typnotnull
				|| (SELECT coalesce(' ' || string_agg(pg_get_constraintdef(c.oid), ' ' ORDER BY c.conname), '')
					FROM pg_constraint c WHERE c.contypid = t.oid), '')
		FROM pg_type t WHERE t.oid = m.objid)
	WHEN 'pg_class'::regclass THEN (
		SELECT format('  kind=%s persistence=%s rls=%s force_rls=%s options=%s acl=%s', c.relkind, c.relpersistence,
					  c.relrowsecurity, c.relforcerowsecurity, coalesce(c.reloptions::text, '-'),
					  coalesce(c.relacl::text, 'default'))
			|| coalesce(E'\n  columns: ' || (
				SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
						|| CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
						|| CASE WHEN a.attidentity <> '' THEN ' identity ' || a.attidentity::text ELSE '' END
						|| CASE WHEN a.attgenerated <> '' THEN ' generated' ELSE '' END
						|| coalesce(' default ' || pg_get_expr(ad.adbin, ad.adrelid), '')
						|| coalesce(' collate ' || co.collname, '')
						|| coalesce(' comment ' || col_description(c.oid, a.attnum), '')
						|| coalesce(' acl ' || a.attacl::text, ''), ', ' ORDER BY a.attnum)
				FROM pg_attribute a
				LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
				LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 0
					AND co.collname <> 'default'
				WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '')
			|| coalesce(E'\n  constraints: ' || (
				SELECT string_agg(k.conname || ' ' || pg_get_constraintdef(k.oid), '; ' ORDER BY k.conname)
				FROM pg_constraint k WHERE k.conrelid = c.oid), '')
			|| coalesce(E'\n  indexes: ' || (
				SELECT string_agg(pg_get_indexdef(i.indexrelid), '; ' ORDER BY pg_get_indexdef(i.indexrelid))
				FROM pg_index i WHERE i.indrelid = c.oid), '')
			|| coalesce(E'\n  triggers: ' || (
				SELECT string_agg(pg_get_triggerdef(g.oid), '; ' ORDER BY g.tgname)
				FROM pg_trigger g WHERE g.tgrelid = c.oid AND NOT g.tgisinternal), '')
			|| coalesce(E'\n  policies: ' || (
				SELECT string_agg(format('%s %s %s to %s using (%s) check (%s)', p.polname, p.polcmd, p.polpermissive,
											 (SELECT string_agg(CASE WHEN r = 0 THEN 'public' ELSE r::regrole::text END,
																',' ORDER BY 1) FROM unnest(p.polroles) r),
											 pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid)),
								  '; ' ORDER BY p.polname)
				FROM pg_policy p WHERE p.polrelid = c.oid), '')
			|| CASE WHEN c.relkind IN ('v', 'm') THEN E'\n  view: ' || pg_get_viewdef(c.oid) ELSE '' END
			|| CASE WHEN c.relkind IN ('r', 'p') THEN E'\n  rows: ' || (xpath('/row/r/text()', query_to_xml(format(
				'SELECT count(*) || '' '' || coalesce(md5(string_agg(t::text, E''\n'' ORDER BY t::text)), ''-'') AS r FROM %s t',
				c.oid::regclass), false, true, '')))[1]::text ELSE '' END
			|| coalesce(E'\n  sequence: ' || (
				SELECT format('%s start %s increment %s min %s max %s cache %s cycle %s', s.seqtypid::regtype,
							  s.seqstart, s.seqincrement, s.seqmin, s.seqmax, s.seqcache, s.seqcycle)
				FROM pg_sequence s WHERE s.seqrelid = c.oid), '')
		FROM pg_class c WHERE c.oid = m.objid)
	WHEN 'pg_namespace'::regclass THEN (
		SELECT '  acl: ' || coalesce(n.nspacl::text, 'default') FROM pg_namespace n WHERE n.oid = m.objid)
	WHEN 'pg_event_trigger'::regclass THEN (
		SELECT format('  event=%s function=%s enabled=%s tags=%s', t.evtevent, t.evtfoid::regprocedure, t.evtenabled,
					  coalesce(t.evttags::text, 'all'))
		FROM pg_event_trigger t WHERE t.oid = m.objid)
	WHEN 'pg_cast'::regclass THEN (
		SELECT format('  function=%s context=%s method=%s', c.castfunc::regprocedure, c.castcontext, c.castmethod)
		FROM pg_cast c WHERE c.oid = m.objid)
	WHEN 'pg_operator'::regclass THEN (
		SELECT format('  function=%s commutator=%s negator=%s restrict=%s join=%s merges=%s hashes=%s', o.oprcode,
					  o.oprcom::regoperator, o.oprnegate::regoperator, o.oprrest, o.oprjoin, o.oprcanmerge,
					  o.oprcanhash)
		FROM pg_operator o WHERE o.oid = m.objid)
	END AS text
) def
ORDER BY 1;
