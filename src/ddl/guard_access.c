/*-------------------------------------------------------------------------
 * src/ddl/guard_access.c
 *	  One access for a table's cells: its chunk relation's grants and row
 *	  security are its storage's.
 *
 * A split row's head is in the storage and its cells are in "t$chunk", so a
 * role that may read (or write) the storage with plain SQL must be able to
 * do the same to the chunks, and a role that may not, or whom row-level
 * security confines, must not reach the chunks another way: not through a
 * schema-wide GRANT, nor through RLS that is on for the storage and off for
 * the chunks.  So:
 *	 - GRANT and REVOKE on the storage, and ALTER TABLE on it (ENABLE, FORCE
 *	   ... ROW LEVEL SECURITY), end by copying the storage's privileges
 *	   (table and column) and row security flags onto its chunk relation
 *	   (ots.storage_access_follow, at ddl_command_end);
 *	 - GRANT or REVOKE naming a chunk relation, and row security changed on
 *	   one, are refused (but in a dump's script, which restores the chunk
 *	   relation's own entry, equal to its storage's);
 *	 - a chunk relation made for an existing storage starts with its access
 *	   (ots.chunk_relation_follow, from ots.create_chunk_relation).
 * The chunk relation has no policies: with row security on, plain SQL of a
 * role that policies confine reads no chunk (ots's functions read them for
 * rows the role may read, store/rowstore.c).  A column privilege of the
 * storage carries to the chunk relation's column of the same name, and
 * "$cells"'s to "$column" and "$ts", which are part of the cells.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_class.h"
#include "catalog/pg_shdepend.h"
#include "commands/event_trigger.h"
#include "commands/extension.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "ddl/guard.h"
#include "ddl/guard_access.h"
#include "meta/storage.h"
#include "writepoint/restore.h"

PG_FUNCTION_INFO_V1(ots_storage_access_follow);
PG_FUNCTION_INFO_V1(ots_chunk_relation_follow);

/* access_acl: an ACL attribute of a catalog tuple (NULL for the default) */
static Acl *
access_acl(HeapTuple tup, int cacheid, AttrNumber attno)
{
	bool		isnull;
	Datum		d = SysCacheGetAttr(cacheid, tup, attno, &isnull);

	return isnull ? NULL : DatumGetAclPCopy(d);
}

static bool
access_acl_equal(const Acl *a, const Acl *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return aclequal(a, b);
}

/*
 * access_set_acl writes acl into tup's attribute attno of catalog rel (the
 * tuple of object subid of relation relid) and updates the shared
 * dependencies on its grantees, as GRANT does; the row security flags of a
 * pg_class tuple too when rls is given
 */
static void
access_set_acl(Relation rel, HeapTuple tup, AttrNumber attno, Oid relid, int32 subid,
			   Oid owner, const Acl *old_acl, Acl *acl, const FormData_pg_class *rls)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Datum	   *values = palloc0(sizeof(Datum) * desc->natts);
	bool	   *nulls = palloc0(sizeof(bool) * desc->natts);
	bool	   *replace = palloc0(sizeof(bool) * desc->natts);
	HeapTuple	newtup;
	Oid		   *old_members = NULL;
	Oid		   *new_members = NULL;
	int			nold = old_acl ? aclmembers(old_acl, &old_members) : 0;
	int			nnew = acl ? aclmembers(acl, &new_members) : 0;

	replace[attno - 1] = true;
	nulls[attno - 1] = (acl == NULL);
	values[attno - 1] = acl ? PointerGetDatum(acl) : (Datum) 0;
	newtup = heap_modify_tuple(tup, desc, values, nulls, replace);
	if (rls != NULL)
	{
		((Form_pg_class) GETSTRUCT(newtup))->relrowsecurity = rls->relrowsecurity;
		((Form_pg_class) GETSTRUCT(newtup))->relforcerowsecurity = rls->relforcerowsecurity;
	}
	CatalogTupleUpdate(rel, &newtup->t_self, newtup);
	updateAclDependencies(RelationRelationId, relid, subid, owner,
						  nold, old_members, nnew, new_members);
}

/* access_column_source: the storage's column whose privileges a chunk column has */
static const char *
access_column_source(const char *chunk_column)
{
	if (strcmp(chunk_column, "$column") == 0 || strcmp(chunk_column, "$ts") == 0)
		return "$cells";
	return chunk_column;
}

/*
 * access_copy gives chunk relation chunk the privileges (of the table and of
 * each column) and row security flags of storage, what is equal already
 * left alone; with apply false it changes nothing; either way it says
 * whether they differed
 */
static bool
access_copy(Oid storage, Oid chunk, bool apply)
{
	bool		differed = false;
	Relation	pg_class = table_open(RelationRelationId, RowExclusiveLock);
	Relation	pg_attribute = table_open(AttributeRelationId, RowExclusiveLock);
	HeapTuple	stup = SearchSysCache1(RELOID, ObjectIdGetDatum(storage));
	HeapTuple	ctup = SearchSysCacheCopy1(RELOID, ObjectIdGetDatum(chunk));
	Form_pg_class sform;
	Form_pg_class cform;
	Acl		   *sacl;
	Acl		   *cacl;
	int			natts;

	if (!HeapTupleIsValid(stup) || !HeapTupleIsValid(ctup))
		elog(ERROR, "cache lookup failed for relation %u or %u", storage, chunk);
	sform = (Form_pg_class) GETSTRUCT(stup);
	cform = (Form_pg_class) GETSTRUCT(ctup);
	natts = cform->relnatts;

	sacl = access_acl(stup, RELOID, Anum_pg_class_relacl);
	cacl = access_acl(ctup, RELOID, Anum_pg_class_relacl);
	if (!access_acl_equal(sacl, cacl) ||
		cform->relrowsecurity != sform->relrowsecurity ||
		cform->relforcerowsecurity != sform->relforcerowsecurity)
		differed = true;
	if (differed && apply)
		access_set_acl(pg_class, ctup, Anum_pg_class_relacl, chunk, 0, cform->relowner, cacl, sacl,
					   sform);

	for (AttrNumber attnum = 1; attnum <= natts; attnum++)
	{
		HeapTuple	catt = SearchSysCacheCopy2(ATTNUM, ObjectIdGetDatum(chunk), Int16GetDatum(attnum));
		HeapTuple	satt;
		Acl		   *s;
		Acl		   *c;

		if (!HeapTupleIsValid(catt))
			continue;
		if (((Form_pg_attribute) GETSTRUCT(catt))->attisdropped)
		{
			heap_freetuple(catt);
			continue;
		}
		satt = SearchSysCacheAttName(storage,
									 access_column_source(NameStr(((Form_pg_attribute) GETSTRUCT(catt))->attname)));
		s = HeapTupleIsValid(satt) ? access_acl(satt, ATTNAME, Anum_pg_attribute_attacl) : NULL;
		c = access_acl(catt, ATTNUM, Anum_pg_attribute_attacl);
		if (!access_acl_equal(s, c))
			differed = true;
		if (!access_acl_equal(s, c) && apply)
			access_set_acl(pg_attribute, catt, Anum_pg_attribute_attacl, chunk, attnum,
						   cform->relowner, c, s, NULL);
		if (HeapTupleIsValid(satt))
			ReleaseSysCache(satt);
		heap_freetuple(catt);
	}
	ReleaseSysCache(stup);
	heap_freetuple(ctup);
	table_close(pg_attribute, RowExclusiveLock);
	table_close(pg_class, RowExclusiveLock);
	if (differed && apply)
		CommandCounterIncrement();
	return differed;
}

/* guard_access_differs: are chunk's privileges or row security not storage's? */
bool
guard_access_differs(Oid storage, Oid chunk)
{
	return access_copy(storage, chunk, false);
}

/* access_follow: the chunk relation of storage (if it has one) takes its access */
static void
access_follow(Oid storage)
{
	char	   *table = storage_table_of(get_rel_name(storage), STORAGE_SUFFIX);
	Oid			chunk = table ? storage_chunk_oid(storage, table) : InvalidOid;

	if (OidIsValid(chunk))
		(void) access_copy(storage, chunk, true);
}

/* access_follow_relation: relid is a storage or a chunk relation: its pair follows the storage */
static void
access_follow_relation(Oid relid)
{
	GuardKind	kind = guard_kind(relid);

	if (kind == GUARD_STORAGE)
		access_follow(relid);
	else if (kind == GUARD_CHUNK && OidIsValid(storage_chunk_of(relid)))
		access_follow(storage_chunk_of(relid));
}

/* access_follow_schema: every chunk relation in schema nsp follows its storage */
static void
access_follow_schema(Oid nsp)
{
	Relation	pg_class = table_open(RelationRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *chunks = NIL;
	ListCell   *lc;

	ScanKeyInit(&key, Anum_pg_class_relnamespace, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(nsp));
	scan = systable_beginscan(pg_class, InvalidOid, false, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_class form = (Form_pg_class) GETSTRUCT(tup);

		if (form->relkind == RELKIND_RELATION &&
			storage_table_of(NameStr(form->relname), STORAGE_CHUNK_SUFFIX) != NULL)
			chunks = lappend_oid(chunks, form->oid);
	}
	systable_endscan(scan);
	table_close(pg_class, AccessShareLock);
	foreach(lc, chunks)
		access_follow_relation(lfirst_oid(lc));
}

/*
 * guard_access_check_grant: GRANT or REVOKE may not name a chunk relation
 * (its privileges are its storage's), but in a dump's script
 */
void
guard_access_check_grant(GrantStmt *stmt)
{
	ListCell   *lc;

	if (stmt->objtype != OBJECT_TABLE || stmt->targtype != ACL_TARGET_OBJECT ||
		restore_running_dump())
		return;
	foreach(lc, stmt->objects)
	{
		Oid			relid;

		if (guard_kind_of(lfirst(lc), &relid) == GUARD_CHUNK)
			guard_raise(psprintf("cannot %s privileges on %s", stmt->is_grant ? "grant" : "revoke",
								 guard_describe(relid, GUARD_CHUNK)),
						"A chunk relation has the privileges of its table's storage.",
						psprintf("%s them on %s.", stmt->is_grant ? "Grant" : "Revoke",
								 quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
															get_rel_name(storage_chunk_of(relid)))));
	}
}

/*
 * ots_storage_access_follow is the event trigger ots.storage_access_follow()
 * (at ddl_command_end of GRANT, REVOKE and ALTER TABLE): the chunk
 * relations of the storages the statement changed take their access
 */
Datum
ots_storage_access_follow(PG_FUNCTION_ARGS)
{
	Node	   *parsetree;
	ListCell   *lc;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_EVENT_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function \"%s\" was not called by the event trigger manager",
						"ots.storage_access_follow")));
	parsetree = ((EventTriggerData *) fcinfo->context)->parsetree;
	if (creating_extension && CurrentExtensionObject == get_extension_oid("ots", true))
		PG_RETURN_VOID();

	if (IsA(parsetree, GrantStmt) && ((GrantStmt *) parsetree)->objtype == OBJECT_TABLE)
	{
		GrantStmt  *stmt = (GrantStmt *) parsetree;

		foreach(lc, stmt->objects)
		{
			if (stmt->targtype == ACL_TARGET_OBJECT)
				access_follow_relation(guard_relid(lfirst(lc)));
			else if (stmt->targtype == ACL_TARGET_ALL_IN_SCHEMA)
				access_follow_schema(get_namespace_oid(strVal(lfirst(lc)), false));
		}
	}
	else if (IsA(parsetree, AlterTableStmt))
	{
		AlterTableStmt *stmt = (AlterTableStmt *) parsetree;

		foreach(lc, stmt->cmds)
		{
			AlterTableType t = ((AlterTableCmd *) lfirst(lc))->subtype;

			if (t == AT_EnableRowSecurity || t == AT_DisableRowSecurity ||
				t == AT_ForceRowSecurity || t == AT_NoForceRowSecurity)
			{
				access_follow_relation(guard_relid(stmt->relation));
				break;
			}
		}
	}
	PG_RETURN_VOID();
}

/*
 * ots.chunk_relation_follow(chunk regclass): a chunk relation just made
 * beside an existing storage takes its access (ots.create_chunk_relation);
 * its owner's only
 */
Datum
ots_chunk_relation_follow(PG_FUNCTION_ARGS)
{
	Oid			chunk = PG_GETARG_OID(0);
	Oid			storage = storage_chunk_of(chunk);

	if (!OidIsValid(storage))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("relation %u is not the chunk relation of an ots table", chunk)));
	if (!pg_class_ownercheck(chunk, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(chunk));
	(void) access_copy(storage, chunk, true);
	PG_RETURN_VOID();
}
