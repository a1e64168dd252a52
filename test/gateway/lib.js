'use strict';
// What the gateway specs share: SDK clients for the two access keys that
// test/gateway/run.sh configured, promise wrappers, and value helpers.
const assert = require('assert');
const TableStore = require('tablestore');

const Long = TableStore.Long;

// The SDK retries 5xx replies of read calls up to 20 times; a test wants the
// first answer.  (A global of the SDK: every client of this process.)
TableStore.DefaultRetryPolicy.maxRetryTimes = 0;

function env(name) {
    const value = process.env[name];
    if (!value) {
        throw new Error(`environment variable ${name} is not set (run test/gateway/run.sh)`);
    }
    return value;
}

function makeClient(keyId, secret) {
    return new TableStore.Client({
        accessKeyId: keyId,
        secretAccessKey: secret,
        endpoint: env('endpoint'),
        instancename: env('instancename'),
        maxRetries: 0,
    });
}

// the key acting as gw_app (owner of every table the tests make) and the
// key acting as gw_other (no privilege on them)
const client = makeClient(env('accessKeyId'), env('secretAccessKey'));
let otherClient = null;
function other() {
    if (!otherClient) {
        otherClient = makeClient(env('OTSGW_OTHER_KEY_ID'), env('OTSGW_OTHER_KEY_SECRET'));
    }
    return otherClient;
}

// call(op, params[, c]): the SDK call as a promise
function call(op, params, c) {
    const cl = c || client;
    return new Promise((resolve, reject) => {
        cl[op](params, (err, data) => (err ? reject(err) : resolve(data)));
    });
}

/*
 * The Node SDK does not decode error bodies: err.code is the HTTP status and
 * err.message the raw protobuf Error{code, message} (plus " requestId:...").
 * errorOf pulls the code and message back out of those bytes.
 */
function errorOf(err) {
    const raw = Buffer.from(String(err.message), 'latin1');
    const text = String(err.message);
    const codeMatch = text.match(/OTS[A-Za-z]+/);
    return { status: err.code, code: codeMatch ? codeMatch[0] : null, text, raw };
}

// expectError(promise, status, code[, messagePart]): the call fails with them
async function expectError(promise, status, code, messagePart) {
    let data;
    try {
        data = await promise;
    } catch (err) {
        const e = errorOf(err);
        assert.strictEqual(e.status, status, `HTTP status of ${e.text}`);
        assert.strictEqual(e.code, code, `error code in ${e.text}`);
        if (messagePart) {
            assert.ok(e.text.includes(messagePart), `"${messagePart}" in ${e.text}`);
        }
        return e;
    }
    assert.fail(`expected ${status} ${code}, the call succeeded: ${JSON.stringify(data)}`);
}

// a table name unique to this run: tests never trip over an earlier run's tables
let serial = 0;
function tableName(base) {
    serial += 1;
    return `${base}_${process.pid}_${serial}`;
}

async function createTable(name, primaryKey, options, c) {
    const o = options || {};
    const params = {
        tableMeta: { tableName: name, primaryKey },
        reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
        tableOptions: {
            timeToLive: o.timeToLive === undefined ? -1 : o.timeToLive,
            maxVersions: o.maxVersions === undefined ? 1 : o.maxVersions,
        },
    };
    if (o.allowUpdate !== undefined) {
        params.tableOptions.allowUpdate = o.allowUpdate;
    }
    if (o.definedColumn) {
        params.tableMeta.definedColumn = o.definedColumn;
    }
    if (o.indexMetas) {
        params.indexMetas = o.indexMetas;
    }
    if (o.streamSpecification) {
        params.streamSpecification = o.streamSpecification;
    }
    return call('createTable', params, c);
}

async function dropTable(name) {
    try {
        await call('deleteTable', { tableName: name });
    } catch (err) {
        if (errorOf(err).code !== 'OTSObjectNotExist') {
            throw err;
        }
    }
}

// a returned Integer (the SDK's Int64LE) as a JS number, asserting its type
function int(value) {
    assert.ok(value && typeof value.toNumber === 'function',
        `an Integer (Int64) value, got ${typeof value} ${JSON.stringify(value)}`);
    return value.toNumber();
}

// a row's attributes as {name: [{value, timestamp}], newest first as returned}
function columns(row) {
    const out = {};
    for (const a of row.attributes || []) {
        (out[a.columnName] = out[a.columnName] || []).push({ value: a.columnValue, timestamp: a.timestamp });
    }
    return out;
}

// a row's primary key as [[name, value], ...] with Integers as numbers
function pk(row) {
    return (row.primaryKey || []).map((c) => [c.name,
        c.value && typeof c.value.toNumber === 'function' ? c.value.toNumber() : c.value]);
}

function condition(expectation, columnCondition) {
    return new TableStore.Condition(TableStore.RowExistenceExpectation[expectation], columnCondition || null);
}

function sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
}

// the database's sessions (what a build may be waiting for), through psql as run.sh set it up
function sessions() {
    if (!process.env.OTSGW_PSQL) {
        return '(no psql)';
    }
    try {
        return require('child_process').execFileSync(process.env.OTSGW_PSQL, ['-X', '-At', '-d', 'otsgw', '-c',
            "SELECT pid, usename, backend_type, state, wait_event_type, wait_event, xact_start, left(query, 100) "
            + "FROM pg_stat_activity WHERE datname = 'otsgw' OR backend_type NOT IN ('client backend', 'checkpointer', "
            + "'background writer', 'walwriter', 'autovacuum launcher', 'logical replication launcher') ORDER BY pid"],
        { encoding: 'utf8', timeout: 10000 });
    } catch (err) {
        return `(psql failed: ${err.message})`;
    }
}

// SQL run in the test database through psql as run.sh set it up, as role (the tables' owner), e.g.
// what otsd does not serve yet; its output's rows, unaligned
function sql(text, role) {
    return require('child_process').execFileSync(process.env.OTSGW_PSQL,
        ['-X', '-At', '-v', 'ON_ERROR_STOP=1', '-d', 'otsgw', '-c', `SET ROLE ${role || 'gw_app'}`, '-c', text],
        { encoding: 'utf8', timeout: 60000 });
}

/*
 * An index answers reads once built (before, Tablestore and ots refuse with
 * "Disallow read index table in building base state"): wait until
 * DescribeTable shows every index of the table in its INCR phase.
 */
async function waitIndexes(table, timeoutMs) {
    const until = Date.now() + (timeoutMs || 60000);
    for (;;) {
        const d = await call('describeTable', { tableName: table });
        const building = (d.indexMetas || []).filter((m) => m.indexSyncPhase !== TableStore.SyncPhase.INCR);
        if (building.length === 0) {
            return d;
        }
        if (Date.now() > until) {
            throw new Error(`indexes still building: ${building.map((m) => m.name)}; the database's sessions:\n${sessions()}`);
        }
        await sleep(200);
    }
}

module.exports = {
    TableStore, Long, client, other, call, errorOf, expectError, tableName, createTable, dropTable,
    int, columns, pk, condition, sleep, env, waitIndexes, sql,
};
