// bench/gateway/client.js: bench/gateway.sh's load generator.  Keeps
// CONCURRENCY requests of one action outstanding through the official
// Tablestore Node SDK (tablestore 5.6.5, from package-lock.json) against
// otsd, for SECONDS, and prints one JSON line with what it counted.
//
//   node client.js ACTION SECONDS CONCURRENCY START_AT_MS TAG
//
// ACTION: put (PutRow of new keys: pk1 "g<TAG>_<slot>", pk2 counting up from
// 0, the 5 attributes of bench/run.sh), get (GetRow of a random existing
// row, max_versions 1), range (GetRange of one random partition key's 100
// rows, limit 100).  START_AT_MS: the epoch millisecond at which to start
// (so that several processes start together; Node's start-up is not
// counted).  Requests that complete in [start, start + SECONDS) are counted;
// one request per slot is sent before the start (its connection opened).
// Environment: OTS_ENDPOINT, OTS_INSTANCE, OTS_KEY_ID, OTS_KEY_SECRET,
// BENCH_ROWS (rows loaded: row i has pk1 "p" + (10000 + i / 100), pk2 i % 100).
'use strict';

const TableStore = require('tablestore');
const Long = TableStore.Long;

const [action, secondsArg, concurrencyArg, startAtArg, tag] = process.argv.slice(2);
const seconds = Number(secondsArg);
const concurrency = Number(concurrencyArg);
const startAt = Number(startAtArg);
const rows = Number(process.env.BENCH_ROWS || 100000);
const table = 'bench_t';

if (!['put', 'get', 'range'].includes(action) || !(seconds > 0) || !(concurrency >= 1)
	|| !Number.isFinite(startAt) || tag === undefined) {
	console.error('usage: node client.js put|get|range SECONDS CONCURRENCY START_AT_MS TAG');
	process.exit(2);
}

const client = new TableStore.Client({
	accessKeyId: process.env.OTS_KEY_ID,
	secretAccessKey: process.env.OTS_KEY_SECRET,
	endpoint: process.env.OTS_ENDPOINT,
	instancename: process.env.OTS_INSTANCE,
	maxRetries: 0,		// an error is counted, never hidden by a retry
});

const attributes = (i) => [
	{ a1: 'abcdefghijklmnopqrst' },
	{ a2: Long.fromNumber(i) },
	{ a3: 1.5 },
	{ a4: true },
	{ a5: 'ABCDEFGHIJKLMNOPQRST' },
];
const partitionKey = (i) => 'p' + (10000 + Math.floor(i / 100));
const randomRow = () => Math.floor(Math.random() * rows);

const putCounters = new Array(concurrency).fill(0);

// one request of the action for slot `slot`; callback(err, data)
function request(slot, callback) {
	if (action === 'put') {
		const n = putCounters[slot]++;
		client.putRow({
			tableName: table,
			condition: new TableStore.Condition(TableStore.RowExistenceExpectation.IGNORE, null),
			primaryKey: [{ pk1: 'g' + tag + '_' + slot }, { pk2: Long.fromNumber(n) }],
			attributeColumns: attributes(n),
		}, callback);
	} else if (action === 'get') {
		const i = randomRow();
		client.getRow({
			tableName: table,
			primaryKey: [{ pk1: partitionKey(i) }, { pk2: Long.fromNumber(i % 100) }],
			maxVersions: 1,
		}, callback);
	} else {
		const pk1 = partitionKey(randomRow());
		client.getRange({
			tableName: table,
			direction: TableStore.Direction.FORWARD,
			inclusiveStartPrimaryKey: [{ pk1 }, { pk2: TableStore.INF_MIN }],
			exclusiveEndPrimaryKey: [{ pk1 }, { pk2: TableStore.INF_MAX }],
			limit: 100,
			maxVersions: 1,
		}, callback);
	}
}

// what a correct answer holds: a GetRow finds its row, a GetRange 100 rows
function check(data) {
	if (action === 'get')
		return data.row && data.row.primaryKey && data.row.attributes.length === 5;
	if (action === 'range')
		return data.rows && data.rows.length === 100;
	return true;
}

let counted = 0;
let errors = 0;
let wrong = 0;
let firstError = null;
let endAt = Infinity;
let started = false;

const latencies = [];	// µs of the counted requests

function loop(slot) {
	const sent = process.hrtime.bigint();
	request(slot, (err, data) => {
		const now = Date.now();
		if (started && now < endAt) {
			latencies.push(Number(process.hrtime.bigint() - sent) / 1e3);
			if (err) {
				errors++;
				if (!firstError)
					firstError = String(err.message || err).slice(0, 300);
			} else if (!check(data))
				wrong++;
			else
				counted++;
		}
		if (now < endAt)
			loop(slot);
	});
}

// warm-up: one request per slot (opens the keep-alive connections), then
// wait for START_AT_MS
let warm = 0;
for (let slot = 0; slot < concurrency; slot++) {
	request(slot, (err) => {
		if (err) {
			console.error('client.js: warm-up ' + action + ' failed: ' + (err.message || err));
			process.exit(1);
		}
		if (++warm === concurrency)
			setTimeout(() => {
				started = true;
				endAt = Date.now() + seconds * 1000;
				const t0 = process.hrtime.bigint();
				const cpu0 = process.cpuUsage();
				for (let s = 0; s < concurrency; s++)
					loop(s);
				setTimeout(() => {
					const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
					const cpu = process.cpuUsage(cpu0);
					latencies.sort((a, b) => a - b);
					const pct = (q) => latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]) : null;
					process.stdout.write(JSON.stringify({
						action, concurrency, seconds: elapsed, requests: counted, errors, wrong,
						rps: counted / seconds, cpu_us: cpu.user + cpu.system,
						latency_us: { p50: pct(0.5), p90: pct(0.9), p99: pct(0.99), max: pct(1) },
						first_error: firstError,
					}) + '\n');
					process.exit(errors || wrong ? 1 : 0);
				}, seconds * 1000 + 5);
			}, Math.max(0, startAt - Date.now()));
	});
}
