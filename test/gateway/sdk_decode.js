// test/gateway/sdk_decode.js: the official Node SDK's decoder reads what
// otsd's encoders wrote (pb_test EMIT file), and gets the rows we meant.
//
//   node sdk_decode.js <dir of the tablestore package> <emitted file>
//
// Prints "test sdk_decodes_<name> ... ok|FAILED (...)"; exits 1 on failure.
'use strict';
const fs = require('fs');
const TS = require(process.argv[2]);

// what pb_test.c encoded (its range_rows and emit()), as the SDK returns rows:
// a row's columns in name order, as otsd writes them (and Tablestore returns them)
const expected = {
    range: [
        {pk: [['a', 'r1'], ['b', 'i:1']],
         attrs: [['big', 'n:1e+300', 'i:7'], ['bin', 'x:00ff', 'i:7'], ['d', 'n:3', 'i:7'],
                 ['s', 'new', 'i:1700000000002'], ['s', 'old', 'i:1700000000001'],
                 ['t', 'true', 'i:8']]},
        {pk: [['a', 'r2'], ['b', 'i:2']], attrs: []},
        {pk: [['a', 'r3'], ['b', 'i:-3']], attrs: [['n', 'i:-9223372036854775808', 'i:9']]},
    ],
    change_put: [
        {pk: [['id', 's1']], attrs: [['q', 'n:2.5', 'i:5']]},
    ],
};

function show(v) {
    if (v === null || v === undefined) return String(v);
    if (typeof v === 'string') return v;
    if (typeof v === 'number') return 'n:' + v;
    if (typeof v === 'boolean') return String(v);
    if (Buffer.isBuffer(v)) return 'x:' + v.toString('hex');
    if (typeof v.toString === 'function') return 'i:' + v.toString(10);
    return JSON.stringify(v);
}

let failed = 0;
for (const line of fs.readFileSync(process.argv[3], 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const [name, hex] = line.split(' ');
    let got;
    try {
        const bytes = Buffer.from(hex, 'hex');
        // the shape the SDK's decoder hands it: protobufjs's view of a bytes field
        const input = new TS.PlainBufferInputStream({buffer: bytes, offset: 0, limit: bytes.length});
        const rows = new TS.PlainBufferCodedInputStream(input).readRows();
        got = rows.map((r) => ({
            pk: r.primaryKey.map((c) => [c.name, show(c.value)]),
            attrs: r.attributes.map((c) => [c.columnName, show(c.columnValue), show(c.timestamp)]),
        }));
    } catch (e) {
        got = 'error: ' + e.message;
    }
    const want = JSON.stringify(expected[name]);
    if (JSON.stringify(got) === want) {
        console.log('test sdk_decodes_' + name + ' ... ok');
    } else {
        console.log('test sdk_decodes_' + name + ' ... FAILED (got ' + JSON.stringify(got) + ', want ' + want + ')');
        failed = 1;
    }
}
process.exit(failed);
