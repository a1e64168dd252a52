// test/gateway/sdk_vectors.js: byte strings made by the official Node SDK's
// own encoders, for pb_test.c to decode and to match its encoders against.
//
//   node sdk_vectors.js <dir of the tablestore package>   ->  "name hex" lines
//
// The SDK is loaded from outside the repository (pb_test.sh finds or
// installs it); nothing of it is kept here.
'use strict';
const path = require('path');
const sdkDir = process.argv[2];
const TS = require(sdkDir);
const protos = require(path.join(sdkDir, 'lib/protocol/tablestore_compiled_proto.js')).filter.proto;
const B = TS.PlainBufferBuilder;
const L = (s) => TS.Long.fromString(String(s));

function out(name, bytes) {
    console.log(name + ' ' + Buffer.from(bytes).toString('hex'));
}

function filterBytes(condition) {
    const properties = {};
    TS.encoder._makeColumnCondition(properties, condition);
    return protos.Filter.encode(protos.Filter.create(properties)).finish();
}

// primary keys, as GetRow / GetRange / BatchGetRow send them
out('key_simple', B.serializePrimaryKey([{pk1: 'a'}, {pk2: L(5)}]));
out('key_edge', B.serializePrimaryKey([{k: Buffer.from([0, 1, 2, 255])},
                                       {n: L('-9223372036854775808')}, {e: ''}]));
out('key_inf', B.serializePrimaryKey([{a: TS.INF_MIN}, {b: TS.INF_MAX}]));
out('key_auto', B.serializePrimaryKey([{a: 'x'}, {id: TS.PK_AUTO_INCR}]));

// PutRow rows: every attribute type; JS numbers are Doubles, Longs Integers (in
// column name order: otsd writes a row's columns so, whatever order it is given)
out('put_types', B.serializeForPutRow([{pk: 'row1'}], [
    {b: true}, {big: L('9223372036854775807')}, {bin: Buffer.from([0, 1, 2, 253, 254, 255])},
    {d: 3}, {d2: 2.5}, {empty: ''}, {f: false}, {huge: 1e300}, {i: L(-7)}, {neg: -0.125},
    {s: 'hello'}, {tiny: 1e-300}, {u: '\u4e2d\u6587'}]));
out('put_ts', B.serializeForPutRow([{pk: L(1)}], [
    {c: L(1), timestamp: 1700000000000}, {c2: L(2), timestamp: 1700000000001},
    {d: 'x', timestamp: 0}]));
out('put_nan', B.serializeForPutRow([{pk: 'n'}], [{x: NaN}, {y: Infinity}, {z: -Infinity}]));
out('put_key_only', B.serializeForPutRow([{pk: 'k'}], []));

// UpdateRow: every cell operation
out('update_ops', B.serializeForUpdateRow([{pk: 'u'}], [
    {PUT: [{p: L(1)}, {q: 'v', timestamp: 5}]},
    {DELETE: [{r: 1234}]},
    {DELETE_ALL: ['s', 't']},
    {INCREMENT: [{n: L(3)}]}]));

// DeleteRow: key and the delete marker
out('delete_row', B.serializeForDeleteRow([{pk: 'd'}, {n: L(2)}]));

// filters and column conditions
const C = TS.ComparatorType;
out('f_eq_int', filterBytes(new TS.SingleColumnCondition('col', L(5), C.EQUAL)));
out('f_ne_str', filterBytes(new TS.SingleColumnCondition('name', 'bob', C.NOT_EQUAL, false, false)));
out('f_gt_double', filterBytes(new TS.SingleColumnCondition('price', 3, C.GREATER_THAN)));
out('f_ge_bool', filterBytes(new TS.SingleColumnCondition('ok', true, C.GREATER_EQUAL)));
out('f_lt_blob', filterBytes(new TS.SingleColumnCondition('raw', Buffer.from([1, 2, 3]), C.LESS_THAN)));
out('f_le_neg', filterBytes(new TS.SingleColumnCondition('n', L(-1), C.LESS_EQUAL, true, false)));
const not = new TS.CompositeCondition(TS.LogicalOperator.NOT);
not.addSubCondition(new TS.SingleColumnCondition('a', 'x', C.EQUAL));
const and = new TS.CompositeCondition(TS.LogicalOperator.AND);
and.addSubCondition(new TS.SingleColumnCondition('b', L(1), C.GREATER_THAN));
and.addSubCondition(not);
const or = new TS.CompositeCondition(TS.LogicalOperator.OR);
or.addSubCondition(and);
or.addSubCondition(new TS.SingleColumnCondition('c', 0.5, C.LESS_THAN, false, true));
out('f_nested', filterBytes(or));
out('f_pagination', filterBytes(new TS.ColumnPaginationFilter(10, 3)));

// a Stream record's cells (no INCREMENT there), for pb_write_change
out('change_ops', B.serializeForUpdateRow([{pk: 'u'}], [
    {PUT: [{q: 'v', timestamp: 5}]},
    {DELETE: [{r: 1234}]},
    {DELETE_ALL: ['s']}]));
