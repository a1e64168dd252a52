#!/usr/bin/env python3
"""test/differential/gen.py SEED NOW_MS QUERIES: the SQL of one seed of the
differential test (run.sh), on standard output.

From SEED alone (NOW_MS only places timestamps around the server's clock):
three ots tables of random shapes (1-4 key columns of each type, hash
prefix or not, 1-6 partitions, defined columns, some defined after rows
were written so that their older cells have other types, up to three
GLOBAL or LOCAL indexes of 1-4 key columns where the table allows indexes,
max_versions > 1 where it has none, TTL, a search index of some of their
defined columns), sparse rows written through the
row API and through the storage (cells expired by TTL, rows whose marker
expired), the rows of the tables' views and of two indexes' views copied
into plain tables, a plain table to join with, then QUERIES calls of
diff.check (differential.sql), each a random query over those views: key
fixes, ranges, IN, = ANY, OR, NOT, typed and jsonb predicates (->>, ->, ?,
@>, casts), IS [NOT] NULL, conditions on an index's columns, joins of two
views and with the plain table, ORDER BY + LIMIT, aggregates with GROUP BY
and HAVING, subqueries, CTEs, UNION ALL, whole rows.
"""
import base64
import json
import random
import sys

DAY_MS = 86400 * 1000

PK_TYPES = ["string", "integer", "binary"]
ATTR_TYPES = ["string", "integer", "double", "boolean", "binary"]
# how each type reads in the view's typed columns and keys
SQL_TYPE = {"string": "text", "integer": "bigint", "double": "double precision",
            "boolean": "boolean", "binary": "bytea"}

PK_VALUES = {
    "string": ["a", "b", "c", "aa", "ab", "b1", "ba", "bb", "c0", "d", "e", "z"],
    "integer": [0, 1, 2, -2, 3, 4, 5, 7, 9, 11, 42, 100],
    "binary": [b"\x00", b"\x01", b"\x01\x02", b"\x02", b"\x03", b"ab", b"b", b"\xff"],
}
ATTR_VALUES = {
    "string": ["x", "y", "z", "k", "5", "10", "ab", "x y"],
    "integer": [-5, 0, 1, 2, 3, 10, 100],
    "double": [0.5, -1.5, 2.25, 10.75],
    "boolean": [True, False],
    "binary": [b"\x00\x01", b"\x02", b"ab"],
}
ATTR_NAMES = ["a", "b", "c", "d", "e", "f", "g", "u", "v", "w"]


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def sql_value(typ, v):
    """a value of an ots type as an SQL literal of its view column's type"""
    if typ == "string":
        return sql_str(v) + "::text"
    if typ == "integer":
        return "%d::bigint" % v
    if typ == "double":
        return "%r::double precision" % v
    if typ == "boolean":
        return "true" if v else "false"
    return "'\\x%s'::bytea" % v.hex()


def json_value(typ, v):
    """a value as the row API's jsonb writes it"""
    if typ == "binary":
        return {"$binary": base64.b64encode(v).decode()}
    return v


def text_of(typ, v):
    """what attributes ->> 'name' returns for the value"""
    if typ == "string":
        return v
    if typ == "integer":
        return str(v)
    if typ == "double":
        return repr(v)
    if typ == "boolean":
        return "true" if v else "false"
    return None


class Table:
    def __init__(self, rnd, name, now_ms):
        self.name = name
        npk = rnd.choice([1, 1, 2, 2, 3, 4])
        self.pk = [("k%d" % (i + 1), rnd.choice(PK_TYPES)) for i in range(npk)]
        self.hash_prefix = rnd.choice([0, 0, 1, 2])
        self.partitions = rnd.choice([1, 2, 3, 4, 6]) if self.hash_prefix != 1 else rnd.choice([1, 2, 4])
        self.ttl = rnd.choice([-1, -1, 86400])
        names = rnd.sample(ATTR_NAMES, rnd.randint(4, 7))
        ndefined = rnd.randint(2, len(names) - 1)
        self.attrs = names                      # every attribute name rows may have
        self.defined = {}                       # name -> type, defined at create_table
        self.late = {}                          # name -> type, defined after the first rows
        for n in names[:ndefined]:
            t = rnd.choice(ATTR_TYPES)
            (self.late if rnd.random() < 0.3 else self.defined)[n] = t
        self.wants_indexes = rnd.random() < 0.75
        self.max_versions = 1 if self.wants_indexes else rnd.choice([1, 2, 3])
        self.allow_update = not (self.wants_indexes and self.ttl > 0)
        self.indexes = []
        self.search = None                      # {"fields": {name: field_type}, "early": bool}
        self.types_written = {n: set() for n in names}   # every type a cell of n ever had
        self.now_ms = now_ms

    def all_defined(self):
        d = dict(self.defined)
        d.update(self.late)
        return d

    def key_values(self, i):
        """the values a query compares key column i with"""
        return PK_VALUES[self.pk[i][1]]

    def plan_indexes(self, rnd):
        """indexes on defined String/Integer/Binary columns (and key columns)"""
        if not self.wants_indexes:
            return
        keyable = [n for n, t in self.all_defined().items() if t in ("string", "integer", "binary")]
        if not keyable:
            return
        for i in range(rnd.randint(1, 3)):
            local = rnd.random() < 0.35
            cols = rnd.sample(keyable, min(len(keyable), rnd.randint(1, 3)))
            if local:
                cols = [self.pk[0][0]] + cols
            elif rnd.random() < 0.2 and len(self.pk) > 1:
                cols.append(rnd.choice(self.pk[1:])[0])
            cols = cols[:4]
            rest = [n for n in self.all_defined() if n not in cols]
            covered = rnd.sample(rest, rnd.randint(0, len(rest)))
            # an index of a column defined later is made later
            early = rnd.random() < 0.5 and not any(c in self.late for c in cols + covered)
            self.indexes.append({"name": "%s_i%d" % (self.name, i), "cols": cols, "covered": covered,
                                 "local": local, "early": early})

    def indexed(self):
        return {c for ix in self.indexes for c in ix["cols"] if c in self.all_defined()}

    def plan_search(self, rnd):
        """a search index of some defined String, Integer, Double and Boolean
        columns (a String as KEYWORD or TEXT), made before the rows or after"""
        if not self.wants_indexes or rnd.random() < 0.3:
            return
        ftype = {"integer": "LONG", "double": "DOUBLE", "boolean": "BOOLEAN"}
        fields = {}
        for n, t in sorted(self.all_defined().items()):
            if t in ("string", "integer", "double", "boolean") and rnd.random() < 0.85:
                fields[n] = ("TEXT" if rnd.random() < 0.35 else "KEYWORD") if t == "string" else ftype[t]
        if fields:
            self.search = {"fields": fields, "early": rnd.random() < 0.5}

    def search_fields(self):
        return set(self.search["fields"]) if self.search else set()

    def search_sql(self, early):
        if not self.search or self.search["early"] != early:
            return []
        schema = {"field_schemas": [{"field_name": n, "field_type": t} for n, t in sorted(self.search["fields"].items())]}
        # an index keeps rows no longer than its table
        return ["SELECT ots.create_search_index(%s, 'sx', %s, time_to_live => %d);" % (
            sql_str(self.name), sql_str(json.dumps(schema)), self.ttl)]

    def create_sql(self):
        defined = ", ".join("%s %s" % (n, t) for n, t in sorted(self.defined.items()))
        out = ["SELECT ots.create_table(%s, %s, max_versions => %d, time_to_live => %d,"
               " max_version_offset => 864000, allow_update => %s, partitions => %d,"
               " hash_prefix_length => %d%s);" % (
                   sql_str(self.name), sql_str(", ".join("%s %s" % c for c in self.pk)),
                   self.max_versions, self.ttl, "true" if self.allow_update else "false",
                   self.partitions, self.hash_prefix,
                   ", defined_columns => %s" % sql_str(defined) if defined else "")]
        return out

    def index_sql(self, early):
        out = []
        for ix in self.indexes:
            if ix["early"] != early:
                continue
            out.append("SELECT ots.create_index(%s, %s, %s, %s, index_type => %s);" % (
                sql_str(self.name), sql_str(ix["name"]),
                sql_str("{" + ",".join(ix["cols"]) + "}"),
                sql_str("{" + ",".join(ix["covered"]) + "}"),
                sql_str("LOCAL" if ix["local"] else "GLOBAL")))
            out.append("CALL ots.build_index(%s, %s);" % (sql_str(self.name), sql_str(ix["name"])))
        return out

    # ---- rows ----
    def key(self, rnd):
        k = []
        for i, (n, t) in enumerate(self.pk):
            pool = PK_VALUES[t]
            if i == 0 and len(self.pk) > 1:
                # a few partition keys, so that a key fix finds several rows
                k.append(rnd.choice(pool[:3]))
            elif len(self.pk) == 1 and rnd.random() < 0.6:
                # a table of one key column still gets its rows
                j = rnd.randrange(60)
                k.append({"string": "r%02d" % j, "integer": 200 + j, "binary": b"r" + bytes([j])}[t])
            else:
                k.append(rnd.choice(pool))
        return k

    def key_json(self, k):
        return {n: json_value(t, v) for (n, t), v in zip(self.pk, k)}

    def cell_type(self, rnd, name, defined_now):
        """the type of a new cell of name: its defined type when it is defined
        (or indexed later), else any"""
        if name in defined_now:
            return defined_now[name]
        if name in self.late and name in self.indexed():
            return self.late[name]
        if name in self.late and rnd.random() < 0.6:
            return self.late[name]
        return rnd.choice(ATTR_TYPES)

    def attrs_json(self, rnd, defined_now, with_ts):
        a = {}
        for n in self.attrs:
            if rnd.random() < 0.45:
                continue
            t = self.cell_type(rnd, n, defined_now)
            v = rnd.choice(ATTR_VALUES[t])
            self.types_written[n].add(t)
            if with_ts:
                a[n] = {"value": json_value(t, v), "ts": self.now_ms - rnd.randint(1000, 3600 * 1000)}
            else:
                a[n] = json_value(t, v)
        return a

    def write_sql(self, rnd, nrows, defined_now):
        """nrows row API writes: puts, then some updates and deletes"""
        puts = []
        keys = []
        for _ in range(nrows):
            k = self.key(rnd)
            keys.append(k)
            puts.append("(%s, %s)" % (sql_str(json.dumps(self.key_json(k))),
                                      sql_str(json.dumps(self.attrs_json(rnd, defined_now, rnd.random() < 0.3)))))
        out = ["SELECT count(*) FROM (VALUES %s) v(k, a), LATERAL ots.put_row(%s, v.k::jsonb, v.a::jsonb);"
               % (", ".join(puts), sql_str(self.name))]
        if self.allow_update:
            ups = []
            for k in rnd.sample(keys, len(keys) // 4):
                put = self.attrs_json(rnd, defined_now, False)
                drop = [n for n in self.attrs if rnd.random() < 0.25 and n not in put]
                if not put and not drop:
                    continue
                ups.append("(%s, %s, %s)" % (sql_str(json.dumps(self.key_json(k))),
                                             sql_str(json.dumps(put)) if put else "NULL",
                                             sql_str("{" + ",".join(drop) + "}") if drop else "NULL"))
            if ups:
                out.append("SELECT count(*) FROM (VALUES %s) v(k, p, d), LATERAL ots.update_row(%s, v.k::jsonb,"
                           " put => v.p::jsonb, delete_all => v.d::text[]);" % (", ".join(ups), sql_str(self.name)))
        if self.max_versions > 1:
            # several versions of a cell, of different types, in one write
            vers = []
            for k in rnd.sample(keys, len(keys) // 5):
                n = rnd.choice(self.attrs)
                cells = []
                for j in range(rnd.randint(2, 3)):
                    t = self.cell_type(rnd, n, defined_now)
                    self.types_written[n].add(t)
                    cells.append({"value": json_value(t, rnd.choice(ATTR_VALUES[t])),
                                  "ts": self.now_ms - 1000 * (j + 1) - rnd.randint(0, 999)})
                vers.append("(%s, %s)" % (sql_str(json.dumps(self.key_json(k))), sql_str(json.dumps({n: cells}))))
            if vers:
                out.append("SELECT count(*) FROM (VALUES %s) v(k, p), LATERAL ots.update_row(%s, v.k::jsonb,"
                           " put => v.p::jsonb);" % (", ".join(vers), sql_str(self.name)))
        dels = rnd.sample(keys, len(keys) // 10)
        if dels:
            out.append("SELECT count(*) FROM (VALUES %s) v(k), LATERAL ots.delete_row(%s, v.k::jsonb);" % (
                ", ".join("(%s)" % sql_str(json.dumps(self.key_json(k))) for k in dels), sql_str(self.name)))
        return out

    def stored_sql(self, rnd, nrows, defined_now):
        """rows written through the storage, with cells of any age: expired
        by the table's TTL, or a row marker that expired"""
        out = []
        for _ in range(nrows):
            k = self.key(rnd)
            old = self.ttl > 0 and rnd.random() < 0.5
            row_ts = self.now_ms - (5 * DAY_MS if old and rnd.random() < 0.4 else rnd.randint(1000, 3600 * 1000))
            cells = {}
            for n in self.attrs:
                if rnd.random() < 0.5:
                    continue
                t = self.cell_type(rnd, n, defined_now)
                self.types_written[n].add(t)
                ts = self.now_ms - (3 * DAY_MS + rnd.randint(0, DAY_MS) if old and rnd.random() < 0.5
                                    else rnd.randint(1000, 3600 * 1000))
                cells[n] = [{"ts": ts, "value": json_value(t, rnd.choice(ATTR_VALUES[t]))}]
            oldest = min([c[0]["ts"] for c in cells.values()] + ([] if cells else [row_ts]))
            text = json.dumps({"row_ts": row_ts, "cells": dict(sorted(cells.items()))})
            cols = ([] if not self.hash_prefix else ['"$hash"']) + [n for n, _ in self.pk] + ['"$cells"', '"$oldest_ts"']
            vals = [sql_value(t, v) for (n, t), v in zip(self.pk, k)]
            if self.hash_prefix:
                vals.insert(0, "('x' || lpad(ots.hash_prefix(%s, %d), 16, '0'))::bit(64)::bigint"
                            % (vals[0], self.hash_prefix))
            vals += [sql_str(text) + "::ots.cells", str(oldest)]
            # a row the row API already wrote is replaced
            out.append("DELETE FROM \"%s$data\" WHERE %s;" % (self.name, " AND ".join(
                "%s = %s" % (n, sql_value(t, v)) for (n, t), v in zip(self.pk, k))))
            out.append("INSERT INTO \"%s$data\" (%s) VALUES (%s);" % (self.name, ", ".join(cols), ", ".join(vals)))
        return out

    def setup_sql(self, rnd):
        out = self.create_sql()
        out += self.index_sql(True)
        out += self.search_sql(True)
        defined_now = dict(self.defined)
        out += self.write_sql(rnd, rnd.randint(25, 50), defined_now)
        out += self.stored_sql(rnd, rnd.randint(5, 15), defined_now)
        if self.late:
            out.append("SELECT ots.add_defined_column(%s, %s);" % (
                sql_str(self.name), sql_str(", ".join("%s %s" % c for c in sorted(self.late.items())))))
        defined_now = self.all_defined()
        out += self.write_sql(rnd, rnd.randint(20, 40), defined_now)
        out += self.stored_sql(rnd, rnd.randint(3, 10), defined_now)
        out += self.index_sql(False)
        out += self.search_sql(False)
        out.append('ANALYZE "%s$data";' % self.name)
        out.append("CREATE TABLE p_%s AS SELECT * FROM %s;" % (self.name, self.name))
        out.append("ANALYZE p_%s;" % self.name)
        return out


class IndexView:
    """an index's own view, queried as a table: its key columns, then its
    table's key columns it does not name, its covered columns"""

    def __init__(self, table, ix):
        types = dict(table.pk)
        types.update(table.all_defined())
        self.name = ix["name"]
        self.pk = [(c, types[c]) for c in ix["cols"]] + [c for c in table.pk if c[0] not in ix["cols"]]
        self.defined = {c: types[c] for c in ix["covered"]}
        # a name the index does not hold too, so that every query finds some attribute
        self.attrs = list(ix["covered"]) + [n for n in table.attrs if n not in ix["covered"]][:1]
        self.types_written = {n: table.types_written.get(n, set()) for n in self.attrs}
        self.indexes = []
        self.base_keys = {c for c, _ in table.pk}

    def key_values(self, i):
        n, typ = self.pk[i]
        return PK_VALUES[typ] if n in self.base_keys else ATTR_VALUES[typ]

    def all_defined(self):
        return dict(self.defined)

    def search_fields(self):
        return set()

    def indexed(self):
        return set()


class Query:
    """builds one query: its text with $n parameters and the values"""

    def __init__(self, rnd, tables):
        self.rnd = rnd
        self.tables = tables
        self.params = []        # (sql type, literal)
        self.ncols = 0

    def value(self, typ, v, sqltype=None):
        """a parameter or a literal (half each) of the value"""
        lit = sql_value(typ, v)
        sqltype = sqltype or SQL_TYPE[typ]
        if self.rnd.random() < 0.5:
            self.params.append((sqltype, lit))
            return "$%d" % len(self.params)
        return lit

    def text_value(self, v):
        return self.value("string", v)

    def col(self, expr):
        self.ncols += 1
        return "%s AS c%d" % (expr, self.ncols)

    # ---- predicates on one view ----
    def key_atom(self, t, a):
        rnd = self.rnd
        i = 0 if rnd.random() < 0.6 else rnd.randrange(len(t.pk))
        n, typ = t.pk[i]
        pool = t.key_values(i)
        v = rnd.choice(pool)
        r = rnd.random()
        if r < 0.55:
            if typ == "integer" and rnd.random() < 0.3:
                return "%s.%s = %s" % (a, n, self.value(typ, v, "integer"))
            return "%s.%s = %s" % (a, n, self.value(typ, v))
        if r < 0.75:
            op = rnd.choice(["<", "<=", ">", ">="])
            return "%s.%s %s %s" % (a, n, op, self.value(typ, v))
        if r < 0.85:
            lo, hi = sorted(rnd.sample(range(len(pool)), 2))
            return "%s.%s BETWEEN %s AND %s" % (a, n, self.value(typ, pool[lo]), self.value(typ, pool[hi]))
        if r < 0.92:
            return "%s.%s IN (%s)" % (a, n, ", ".join(sql_value(typ, x) for x in rnd.sample(pool, 2)))
        arr = "ARRAY[%s]::%s[]" % (", ".join(sql_value(typ, x) for x in rnd.sample(pool, 2)), SQL_TYPE[typ])
        if rnd.random() < 0.5:
            self.params.append((SQL_TYPE[typ] + "[]", arr))
            arr = "$%d" % len(self.params)
        return "%s.%s = ANY (%s)" % (a, n, arr)

    def attr_pick(self, t):
        """an attribute name, favouring indexed columns"""
        rnd = self.rnd
        idx = sorted(t.indexed())
        if idx and rnd.random() < 0.6:
            return rnd.choice(idx)
        return rnd.choice(t.attrs)

    def typed_atom(self, t, a):
        rnd = self.rnd
        d = t.all_defined()
        if not d:
            return self.json_atom(t, a)
        idx = sorted(x for x in t.indexed() | t.search_fields() if x in d)
        n = rnd.choice(idx) if idx and rnd.random() < 0.6 else rnd.choice(sorted(d))
        typ = d[n]
        v = rnd.choice(ATTR_VALUES[typ])
        r = rnd.random()
        if typ == "string" and rnd.random() < 0.2:
            # full-text: every word of the query (a search index's TEXT field serves it)
            return "ots.search_match(%s.%s, %s)" % (a, n, self.value(typ, rnd.choice(["x", "y", "ab", "x y", "zz", ""])))
        if r < 0.5:
            return "%s.%s = %s" % (a, n, self.value(typ, v))
        if r < 0.6:
            return "%s.%s IS NULL" % (a, n)
        if r < 0.7:
            return "%s.%s IS NOT NULL" % (a, n)
        if r < 0.85 and typ != "boolean":
            return "%s.%s %s %s" % (a, n, rnd.choice(["<", ">=", "<>"]), self.value(typ, v))
        return "%s.%s IN (%s)" % (a, n, ", ".join(sql_value(typ, x) for x in ATTR_VALUES[typ][:2]))

    def json_atom(self, t, a):
        rnd = self.rnd
        n = self.attr_pick(t)
        typ = t.all_defined().get(n) or rnd.choice(ATTR_TYPES)
        v = rnd.choice(ATTR_VALUES[typ])
        txt = text_of(typ, v)
        r = rnd.random()
        if r < 0.35 and txt is not None:
            return "%s.attributes ->> %s = %s" % (a, sql_str(n), self.text_value(txt))
        if r < 0.45 and t.types_written[n] <= {"integer"} and typ == "integer":
            cast = rnd.choice(["bigint", "int"])
            return "(%s.attributes ->> %s)::%s = %s" % (a, sql_str(n), cast,
                                                      self.value("integer", v, cast if cast == "bigint" else "integer"))
        if r < 0.52:
            return "%s.attributes ->> %s IS %sNULL" % (a, sql_str(n), rnd.choice(["", "NOT "]))
        if r < 0.6:
            return "%s.attributes -> %s = %s::jsonb" % (a, sql_str(n), sql_str(json.dumps(json_value(typ, v))))
        if r < 0.68:
            return "%s.attributes ? %s" % (a, sql_str(n))
        if r < 0.78:
            return "%s.attributes @> %s::jsonb" % (a, sql_str(json.dumps({n: json_value(typ, v)})))
        if r < 0.88 and txt is not None:
            return "%s.attributes ->> %s %s %s" % (a, sql_str(n), rnd.choice(["<", ">=", "<>"]), self.text_value(txt))
        pool = [text_of(typ, x) for x in ATTR_VALUES[typ][:3] if text_of(typ, x) is not None] or ["x"]
        return "%s.attributes ->> %s IN (%s)" % (a, sql_str(n), ", ".join(sql_str(x) for x in pool))

    def atom(self, t, a):
        r = self.rnd.random()
        if r < 0.35:
            return self.key_atom(t, a)
        if r < 0.65:
            return self.typed_atom(t, a)
        return self.json_atom(t, a)

    def index_atoms(self, t, a):
        """conditions on an index's columns: equalities on a leftmost prefix,
        then, for some of the others, a condition a row lacking the column
        fails (or one it passes: IS NULL)"""
        rnd = self.rnd
        ix = rnd.choice(t.indexes)
        d = t.all_defined()
        pk = dict(t.pk)
        parts = []
        nfixed = rnd.randint(1, len(ix["cols"]))
        for i, c in enumerate(ix["cols"]):
            typ = pk.get(c) or d[c]
            v = rnd.choice(PK_VALUES[typ][:4] if c in pk else ATTR_VALUES[typ])
            if i < nfixed:
                if c in pk or rnd.random() < 0.5:
                    parts.append("%s.%s = %s" % (a, c, self.value(typ, v)))
                elif typ == "integer" and t.types_written[c] <= {"integer"} and rnd.random() < 0.5:
                    parts.append("(%s.attributes ->> %s)::bigint = %s" % (a, sql_str(c), self.value(typ, v)))
                elif text_of(typ, v) is not None:
                    parts.append("%s.attributes ->> %s = %s" % (a, sql_str(c), self.text_value(text_of(typ, v))))
                else:
                    parts.append("%s.%s = %s" % (a, c, self.value(typ, v)))
            elif c not in pk:
                r = rnd.random()
                if r < 0.3:
                    parts.append("%s.%s IS NOT NULL" % (a, c))
                elif r < 0.5:
                    parts.append("%s.attributes ->> %s IS NOT NULL" % (a, sql_str(c)))
                elif r < 0.6:
                    parts.append("%s.%s IS NULL" % (a, c))
                elif r < 0.75 and typ != "boolean":
                    parts.append("%s.%s >= %s" % (a, c, self.value(typ, v)))
                elif r < 0.85:
                    parts.append("(%s.%s = %s OR %s.attributes ? %s)" % (a, c, self.value(typ, v), a, sql_str(c)))
        return parts

    def search_atoms(self, t, a):
        """conditions a search index's fields serve: comparisons of typed
        columns with values (IN, ranges), full-text matches"""
        rnd = self.rnd
        d = t.all_defined()
        parts = []
        for n in rnd.sample(sorted(t.search_fields()), min(len(t.search_fields()), rnd.randint(1, 2))):
            typ = d[n]
            v = rnd.choice(ATTR_VALUES[typ])
            r = rnd.random()
            if t.search["fields"][n] == "TEXT" or (typ == "string" and r < 0.2):
                parts.append("ots.search_match(%s.%s, %s)" % (a, n, self.value("string", rnd.choice(["x", "y", "ab", "x y", "5"]))))
            elif r < 0.5 or typ == "boolean":
                parts.append("%s.%s = %s" % (a, n, self.value(typ, v)))
            elif r < 0.75 and typ != "string":
                parts.append("%s.%s %s %s" % (a, n, rnd.choice(["<", "<=", ">", ">="]), self.value(typ, v)))
            else:
                parts.append("%s.%s IN (%s)" % (a, n, ", ".join(sql_value(typ, x) for x in rnd.sample(ATTR_VALUES[typ], 2))))
        return parts

    def pred(self, t, a, n=None):
        rnd = self.rnd
        n = n or rnd.choice([1, 2, 2, 3, 3, 4])
        parts = []
        if t.indexes and rnd.random() < 0.35:
            parts = self.index_atoms(t, a)
            n = rnd.randint(0, 1)
        elif t.search_fields() and rnd.random() < 0.45:
            parts = self.search_atoms(t, a)
            n = rnd.randint(0, 1)
        for _ in range(n):
            r = rnd.random()
            if r < 0.1:
                parts.append("NOT (%s)" % self.atom(t, a))
            elif r < 0.25:
                parts.append("(%s OR %s)" % (self.atom(t, a), self.atom(t, a)))
            else:
                parts.append(self.atom(t, a))
        return " AND ".join(parts)

    def out_cols(self, t, a, k=None):
        rnd = self.rnd
        d = sorted(t.all_defined())
        choices = ["%s.%s" % (a, n) for n, _ in t.pk] + ["%s.attributes" % a] + \
            ["%s.%s" % (a, n) for n in d] + \
            ["%s.attributes ->> %s" % (a, sql_str(n)) for n in t.attrs] + \
            ["%s.attributes -> %s" % (a, sql_str(n)) for n in t.attrs]
        return rnd.sample(choices, min(len(choices), k or rnd.randint(1, 4)))

    # ---- query shapes ----
    def single(self):
        rnd = self.rnd
        t = rnd.choice(self.tables)
        where = self.pred(t, "t")
        if rnd.random() < 0.4:
            # every key column in the output and the ORDER BY: a total order
            cols = ["t.%s" % n for n, _ in t.pk] + self.out_cols(t, "t", rnd.randint(0, 2))
            order = ", ".join("t.%s%s" % (n, rnd.choice(["", " DESC"])) for n, _ in t.pk)
            sql = "SELECT %s FROM @%s@ t WHERE %s ORDER BY %s LIMIT %d" % (
                ", ".join(self.col(c) for c in cols), t.name, where, order, rnd.randint(1, 8))
            return sql, True
        cols = self.out_cols(t, "t")
        return "SELECT %s FROM @%s@ t WHERE %s" % (", ".join(self.col(c) for c in cols), t.name, where), False

    def key_order(self):
        """the partition key fixed, the rows in the order of the following key columns"""
        rnd = self.rnd
        t = rnd.choice([x for x in self.tables if len(x.pk) > 1] or self.tables)
        n, typ = t.pk[0]
        fix = "t.%s = %s" % (n, self.value(typ, rnd.choice(t.key_values(0)[:3])))
        where = fix + (" AND " + self.pred(t, "t", rnd.randint(1, 2)) if rnd.random() < 0.7 else "")
        desc = rnd.choice(["", " DESC"])
        order = ", ".join("t.%s%s" % (c, desc) for c, _ in t.pk[1:]) or "t.%s" % n
        cols = ["t.%s" % c for c, _ in t.pk] + self.out_cols(t, "t", rnd.randint(0, 2))
        return "SELECT %s FROM @%s@ t WHERE %s ORDER BY %s LIMIT %d" % (
            ", ".join(self.col(c) for c in cols), t.name, where, order, rnd.randint(1, 6)), True

    def aggregate(self):
        rnd = self.rnd
        t = rnd.choice(self.tables)
        d = t.all_defined()
        ints = [n for n, ty in d.items() if ty == "integer"]
        aggs = ["count(*)", "count(t.attributes ->> %s)" % sql_str(rnd.choice(t.attrs)),
                "max(t.attributes ->> %s)" % sql_str(rnd.choice(t.attrs))]
        if ints:
            aggs.append("sum(t.%s)" % rnd.choice(ints))
        if rnd.random() < 0.5:
            g = rnd.choice(["t.%s" % t.pk[0][0], "t.attributes ->> %s" % sql_str(self.attr_pick(t))])
            having = rnd.choice(["", " HAVING count(*) > 1", " HAVING max(t.attributes ->> %s) IS NOT NULL"
                                 % sql_str(rnd.choice(t.attrs))])
            return "SELECT %s, %s FROM @%s@ t WHERE %s GROUP BY %s%s" % (
                self.col(g), ", ".join(self.col(x) for x in aggs), t.name, self.pred(t, "t"), g, having), False
        return "SELECT %s FROM @%s@ t WHERE %s" % (", ".join(self.col(x) for x in aggs), t.name,
                                                 self.pred(t, "t")), False

    def join_pair(self, t, u):
        """a join condition of t and u (same SQL types on both sides)"""
        rnd = self.rnd
        keys = [(x, y) for x, tx in t.pk for y, ty in u.pk if tx == ty]
        if keys and rnd.random() < 0.5:
            x, y = rnd.choice(keys)
            return "t.%s = u.%s" % (x, y)
        return "t.attributes ->> %s = u.attributes ->> %s" % (sql_str(self.attr_pick(t)), sql_str(self.attr_pick(u)))

    def join(self):
        rnd = self.rnd
        t, u = rnd.sample(self.tables, 2)
        kind = rnd.choice(["JOIN", "JOIN", "LEFT JOIN"])
        cols = self.out_cols(t, "t", rnd.randint(1, 2)) + self.out_cols(u, "u", rnd.randint(1, 2))
        where = self.pred(t, "t", rnd.randint(1, 2))
        if kind == "JOIN" or rnd.random() < 0.5:
            where += " AND " + self.pred(u, "u", rnd.randint(1, 2))
        sql = "SELECT %s FROM @%s@ t %s @%s@ u ON %s WHERE %s" % (
            ", ".join(self.col(c) for c in cols), t.name, kind, u.name, self.join_pair(t, u), where)
        if rnd.random() < 0.3:
            n = self.ncols
            return sql + " ORDER BY %s LIMIT %d" % (", ".join(str(i + 1) for i in range(n)), rnd.randint(1, 10)), True
        return sql, False

    def join_plain(self):
        rnd = self.rnd
        t = rnd.choice(self.tables)
        d = t.all_defined()
        ints = [n for n, ty in d.items() if ty == "integer"]
        if ints and rnd.random() < 0.5:
            on = "e.n = t.%s" % rnd.choice(ints)
        else:
            on = "e.s = t.attributes ->> %s" % sql_str(self.attr_pick(t))
        cols = ["e.id"] + self.out_cols(t, "t", rnd.randint(1, 3))
        where = "e.id %s %s AND %s" % (rnd.choice(["=", "<=", ">"]), self.value("integer", rnd.randint(1, 6), "integer"),
                                       self.pred(t, "t", rnd.randint(1, 3)))
        return "SELECT %s FROM @%s@ t JOIN ext e ON %s WHERE %s" % (
            ", ".join(self.col(c) for c in cols), t.name, on, where), False

    def subquery(self):
        rnd = self.rnd
        t, u = rnd.sample(self.tables, 2)
        cols = self.out_cols(t, "t")
        r = rnd.random()
        if r < 0.3:
            cond = "t.attributes ->> %s IN (SELECT u.attributes ->> %s FROM @%s@ u WHERE %s)" % (
                sql_str(self.attr_pick(t)), sql_str(self.attr_pick(u)), u.name, self.pred(u, "u"))
        elif r < 0.6:
            cond = "%sEXISTS (SELECT 1 FROM @%s@ u WHERE %s AND %s)" % (
                rnd.choice(["", "NOT "]), u.name, self.join_pair(t, u), self.pred(u, "u", rnd.randint(1, 2)))
        elif r < 0.8:
            cols.append("(SELECT count(*) FROM @%s@ u WHERE %s AND %s)" % (
                u.name, self.join_pair(t, u), self.pred(u, "u", 1)))
            cond = "true"
        else:
            inner = self.pred(t, "t")
            n = self.attr_pick(t)
            return "SELECT s.c1 AS c1, s.c2 AS c2 FROM (SELECT t.%s AS c1, t.attributes ->> %s AS c2 FROM @%s@ t WHERE %s) s WHERE %s" % (
                t.pk[0][0], sql_str(n), t.name, inner,
                rnd.choice(["s.c2 IS NOT NULL", "s.c2 = %s" % self.text_value(rnd.choice(ATTR_VALUES["string"])),
                            "true"])), False
        return "SELECT %s FROM @%s@ t WHERE %s AND %s" % (
            ", ".join(self.col(c) for c in cols), t.name, self.pred(t, "t"), cond), False

    def cte_union(self):
        rnd = self.rnd
        t = rnd.choice(self.tables)
        k = t.pk[0][0]
        if rnd.random() < 0.5:
            return "WITH s AS %s(SELECT t.%s AS c1, t.attributes AS c2 FROM @%s@ t WHERE %s) SELECT s.c1 AS c1, s.c2 ->> %s AS c2 FROM s WHERE %s" % (
                rnd.choice(["", "MATERIALIZED "]), k, t.name, self.pred(t, "t"), sql_str(self.attr_pick(t)),
                rnd.choice(["s.c2 ? %s" % sql_str(self.attr_pick(t)), "true"])), False
        return "SELECT t.%s AS c1, t.attributes AS c2 FROM @%s@ t WHERE %s UNION ALL SELECT t.%s, t.attributes FROM @%s@ t WHERE %s" % (
            k, t.name, self.pred(t, "t"), k, t.name, self.pred(t, "t")), False

    def whole_row(self):
        t = self.rnd.choice(self.tables)
        return "SELECT row_to_json(t)::text AS c1 FROM @%s@ t WHERE %s" % (t.name, self.pred(t, "t")), False

    # the query shapes, each with the upper bound of its share of [0, 1)
    SHAPES = [(0.38, "single"), (0.45, "key_order"), (0.55, "aggregate"), (0.68, "join"),
              (0.76, "join_plain"), (0.9, "subquery"), (0.96, "cte_union"), (1.0, "whole_row")]

    def build(self):
        r = self.rnd.random()
        shape = next(name for bound, name in self.SHAPES if r < bound)
        return getattr(self, shape)()


def literal_form(sql, params):
    """sql with its parameters written in as literals"""
    for i in range(len(params), 0, -1):
        typ, lit = params[i - 1]
        sql = sql.replace("$%d" % i, "(%s)::%s" % (lit, typ))
    return sql


def main():
    seed = int(sys.argv[1])
    now_ms = int(sys.argv[2])
    nqueries = int(sys.argv[3])
    rnd = random.Random(seed)
    tables = [Table(rnd, "dt%d" % i, now_ms) for i in (1, 2, 3)]
    print("-- differential test, seed %d" % seed)
    print("SET client_min_messages = warning;")
    print("SET ots.index_build_worker = off;")
    print("SELECT setseed(0);")
    for t in tables:
        t.plan_indexes(rnd)
        t.plan_search(rnd)
        for line in t.setup_sql(rnd):
            print(line)
    # the views of two indexes are queried as tables too
    views = [IndexView(t, ix) for t in tables for ix in t.indexes][:2]
    for v in views:
        print("CREATE TABLE p_%s AS SELECT * FROM %s;" % (v.name, v.name))
    tables += views
    print("CREATE TABLE ext (id integer, s text, n bigint);")
    print("INSERT INTO ext SELECT i, (ARRAY['x','y','z','k','5','10'])[1 + i % 6], (ARRAY[0,1,2,3,10,100])[1 + i % 6] FROM generate_series(1, 8) i;")
    print("ANALYZE ext;")
    for qid in range(1, nqueries + 1):
        q = Query(rnd, tables)
        sql, ordered = q.build()
        ots_sql = plain_sql = sql
        for t in tables:
            ots_sql = ots_sql.replace("@%s@" % t.name, t.name)
            plain_sql = plain_sql.replace("@%s@" % t.name, "p_" + t.name)
        print("SELECT diff.check(%d, %d, %s, %s, %s, %s, %s, %s);" % (
            seed, qid, "true" if ordered else "false", sql_str(ots_sql), sql_str(literal_form(ots_sql, q.params)),
            sql_str(literal_form(plain_sql, q.params)), sql_str(", ".join(p[0] for p in q.params)),
            sql_str(", ".join(p[1] for p in q.params))))
    # the tables go (with their indexes), the next seed makes its own
    for t in tables:
        print("DROP TABLE p_%s;" % t.name)
    for t in tables:
        if not isinstance(t, IndexView):
            if t.search:
                print("SELECT ots.delete_search_index(%s, 'sx');" % sql_str(t.name))
            print("SELECT ots.delete_table(%s);" % sql_str(t.name))
    print("DROP TABLE ext;")


if __name__ == "__main__":
    main()
