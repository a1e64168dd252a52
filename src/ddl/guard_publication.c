/*-------------------------------------------------------------------------
 * src/ddl/guard_publication.c
 *	  The storage guard's rules for publications: nothing a subscriber's ots
 *	  writes itself is published (an index's storage and chunk relation,
 *	  ots's catalog, schemas holding either, FOR ALL TABLES), and a table's
 *	  storage (or a leaf of it) only with its chunk relation.
 *
 * A subscriber writes each index's entries from the table rows it applies,
 * and each database's ots writes its own catalog.  A split row's head is a
 * row of a leaf and its cells are rows of the chunk relation: a
 * publication carrying one without the other would give a subscriber heads
 * without their cells, so a statement that would leave a publication so
 * is refused (the same rule as the others: refuse, never add to a
 * publication by itself).  CREATE and ALTER PUBLICATION are checked, a
 * leaf of an index's storage moved into a schema published whole, and the
 * registration of an index (guard_publication_check_index,
 * catalog_write.c).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_publication.h"
#include "commands/extension.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "ddl/guard.h"
#include "ddl/guard_publication.h"
#include "meta/storage.h"

/* guard_publication_refuse raises the error for publishing what a subscriber's ots writes itself */
static void
guard_publication_refuse(const char *message, const char *detail)
{
	guard_raise(message, detail,
				"Publish the storage of ots tables by name, each with its chunk relation: CREATE PUBLICATION ... FOR TABLE s.\"t$data\", s.\"t$chunk\" [, ...] WITH (publish_via_partition_root = true); a table's stream relations (\"t$log\", \"t$rec\") may be published with it.");
}

#define GUARD_INDEX_NOT_PUBLISHED \
	"A subscriber's ots writes each index's entries from the table rows it applies: the publisher's entries would be written twice."

/*
 * guard_publication_table refuses to publish ots's catalog (ots.tables,
 * ots.purge_stats: each database's ots writes its own) and the storage of
 * a secondary index, its partitions or its chunk relation
 * (guard_publication_refuse)
 */
static void
guard_publication_table(Oid relid)
{
	Oid			ots = get_extension_oid("ots", true);
	Oid			storage = relid;

	if (!OidIsValid(relid))
		return;
	if (OidIsValid(ots) && getExtensionOfObject(RelationRelationId, relid) == ots)
		guard_publication_refuse(psprintf("cannot publish ots's catalog table %s",
									  quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
																 get_rel_name(relid))),
							 "Each database's ots writes its own catalog, with ots's functions; a subscriber makes its ots tables itself.");
	/* a leaf's, or a chunk relation's: its storage's */
	if (get_rel_relispartition(relid))
		storage = get_partition_parent(relid, true);
	else if (storage_table_of(get_rel_name(relid), STORAGE_CHUNK_SUFFIX) != NULL)
		storage = storage_chunk_of(relid);
	if (OidIsValid(storage) && OidIsValid(guard_index_base(storage)))
		guard_publication_refuse(psprintf("cannot publish the storage of ots index %s",
									  quote_qualified_identifier(get_namespace_name(get_rel_namespace(storage)),
																 storage_table_of(get_rel_name(storage), STORAGE_SUFFIX))),
							 GUARD_INDEX_NOT_PUBLISHED);
}

/*
 * guard_publication_schema refuses to publish the tables of ots's own schema,
 * or of a schema holding the storage of a secondary index
 */
static void
guard_publication_schema(Oid nsp)
{
	char	   *nspname = OidIsValid(nsp) ? get_namespace_name(nsp) : NULL;
	List	   *index_of = NIL;
	List	   *names;
	ListCell   *lc_name;
	ListCell   *lc_of;

	if (nspname == NULL)
		return;
	if (nsp == get_namespace_oid("ots", true))
		guard_publication_refuse(psprintf("cannot publish the tables of schema %s, ots's own",
									  quote_identifier(nspname)),
							 "It holds ots's catalog, which each database's ots writes itself.");
	names = guard_tables_where(nsp, "schema_name", nspname, &index_of);
	forboth(lc_name, names, lc_of, index_of)
		if (lfirst(lc_of) != NULL)
			guard_publication_refuse(psprintf("cannot publish the tables of schema %s, which holds the storage of ots index %s",
										  quote_identifier(nspname),
										  quote_qualified_identifier(nspname, lfirst(lc_name))),
								 GUARD_INDEX_NOT_PUBLISHED);
}

/*
 * guard_publication_check_index refuses to register index index of
 * schema nsp while a publication takes in every table of the schema (FOR
 * TABLES IN SCHEMA) or of the database (FOR ALL TABLES): it would publish
 * the index's storage, which guard_publication_table refuses by name
 */
void
guard_publication_check_index(Oid nsp, const char *index)
{
	List	   *pubs = list_concat(GetAllTablesPublications(), GetSchemaPublications(nsp));

	if (pubs != NIL)
		guard_publication_refuse(psprintf("cannot create ots index %s: publication %s publishes every table of its schema",
									  quote_qualified_identifier(get_namespace_name(nsp), index),
									  quote_identifier(get_publication_name(linitial_oid(pubs), false))),
							 GUARD_INDEX_NOT_PUBLISHED);
}

/*
 * guard_publication_chunk_of: the chunk relation of the registered table
 * whose storage, or leaf, relid is (GUARD_STORAGE, GUARD_LEAF); InvalidOid
 * for anything else, or a table without one
 */
static Oid
guard_publication_chunk_of(Oid relid)
{
	GuardKind	kind = guard_kind(relid);
	Oid			storage = kind == GUARD_LEAF ? get_partition_parent(relid, true) : relid;

	if (kind != GUARD_STORAGE && kind != GUARD_LEAF)
		return InvalidOid;
	return storage_chunk_oid(storage, storage_table_of(get_rel_name(storage), STORAGE_SUFFIX));
}

/*
 * guard_publication_carries: does the publication, with the statement's
 * relations (tables) and schemas added, carry relation relid?
 */
static bool
guard_publication_carries(Oid relid, List *tables, List *schemas, List *pub_tables,
						  List *pub_schemas)
{
	Oid			nsp = get_rel_namespace(relid);

	return list_member_oid(tables, relid) || list_member_oid(schemas, nsp) ||
		list_member_oid(pub_tables, relid) || list_member_oid(pub_schemas, nsp);
}

/* guard_publication_refuse_apart raises the error for publishing part of a table without its chunk relation */
static void
guard_publication_refuse_apart(Oid part, Oid chunk, const char *message)
{
	Oid			nsp = get_rel_namespace(chunk);

	guard_raise(psprintf(message, guard_describe(part, guard_kind(part)), guard_describe(chunk, GUARD_CHUNK)),
				"An ots table's split rows have their heads in the storage's leaves and their cells in its chunk relation: a subscriber given one without the other would have heads without cells.",
				psprintf("Publish the storage and the chunk relation together (FOR TABLE %s, %s), or neither.",
						 quote_qualified_identifier(get_namespace_name(nsp), get_rel_name(storage_chunk_of(chunk))),
						 quote_qualified_identifier(get_namespace_name(nsp), get_rel_name(chunk))));
}

/*
 * guard_publication_chunks: a publication carries a table's storage, or a
 * leaf of it, only with the table's chunk relation.  What the statement
 * names (tables, schemas) is added to publication pubid (InvalidOid: a new
 * one, or SET, which replaces its tables and schemas), or, drop, removed
 * from it.
 */
static void
guard_publication_chunks(Oid pubid, List *tables, List *schemas, bool drop)
{
	List	   *pub_tables = OidIsValid(pubid) ? GetPublicationRelations(pubid, PUBLICATION_PART_ROOT) : NIL;
	List	   *pub_schemas = OidIsValid(pubid) ? GetPublicationSchemas(pubid) : NIL;
	ListCell   *lc;

	foreach(lc, drop ? pub_tables : tables)
	{
		Oid			relid = lfirst_oid(lc);
		Oid			chunk = guard_publication_chunk_of(relid);

		if (!OidIsValid(chunk))
			continue;
		if (!drop && !guard_publication_carries(chunk, tables, schemas, pub_tables, pub_schemas))
			guard_publication_refuse_apart(relid, chunk, "cannot publish %s without %s");
		/* what the publication keeps of a table keeps its chunk relation */
		if (drop && !list_member_oid(tables, relid) && list_member_oid(tables, chunk))
			guard_publication_refuse_apart(relid, chunk, "cannot keep %s in a publication without %s");
	}
}

/*
 * guard_publication_check checks what CREATE PUBLICATION (pubname NULL) and
 * ALTER PUBLICATION pubname ... ADD / SET / DROP (action) publish: not FOR
 * ALL TABLES (ots's catalog and index storage among them), no table or
 * schema guard_publication_table or guard_publication_schema refuses, and
 * no table's storage without its chunk relation (guard_publication_chunks).
 * create_index refuses an index whose storage a publication would take in
 * (a schema published whole).
 */
void
guard_publication_check(const char *pubname, List *pubobjects, bool all_tables,
						AlterPublicationAction action)
{
	List	   *tables = NIL;
	List	   *schemas = NIL;
	ListCell   *lc;

	if (all_tables)
		guard_publication_refuse("cannot publish all tables of a database with ots",
							 "FOR ALL TABLES publishes ots's catalog and the storage of secondary indexes, which a subscriber's ots writes itself.");
	foreach(lc, pubobjects)
	{
		PublicationObjSpec *obj = lfirst(lc);
		Oid			nsp = InvalidOid;

		if (obj->pubobjtype == PUBLICATIONOBJ_TABLE && obj->pubtable != NULL)
			tables = lappend_oid(tables, RangeVarGetRelid(obj->pubtable->relation, NoLock, true));
		else if (obj->pubobjtype == PUBLICATIONOBJ_TABLES_IN_SCHEMA)
			nsp = get_namespace_oid(obj->name, true);
		else if (obj->pubobjtype == PUBLICATIONOBJ_TABLES_IN_CUR_SCHEMA)
		{
			List	   *path = fetch_search_path(false);

			if (path != NIL)
				nsp = linitial_oid(path);
		}
		if (OidIsValid(nsp))
			schemas = lappend_oid(schemas, nsp);
	}
	if (action != AP_DropObjects)
	{
		foreach(lc, tables)
			guard_publication_table(lfirst_oid(lc));
		foreach(lc, schemas)
			guard_publication_schema(lfirst_oid(lc));
	}
	/* ADD and DROP change the publication's tables, SET (as CREATE) replaces them */
	guard_publication_chunks(pubname != NULL && action != AP_SetObjects ? get_publication_oid(pubname, true) :
							 InvalidOid, tables, schemas, action == AP_DropObjects);
}

/*
 * guard_publication_move_leaf: a partition of an index's storage moved
 * into a schema a publication takes in whole would be published
 * (guard_publication_table)
 */
void
guard_publication_move_leaf(Oid leaf, const char *schema)
{
	Oid			nsp = get_namespace_oid(schema, true);
	Oid			storage = get_partition_parent(leaf, true);

	if (OidIsValid(nsp) && OidIsValid(storage) && OidIsValid(guard_index_base(storage)) &&
		GetSchemaPublications(nsp) != NIL)
		guard_publication_table(leaf);
}
