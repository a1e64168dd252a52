// bench/gateway/sql_client.js: the SQL side as a Node application would run
// it: the same ots calls as otsd's statements, prepared, over libpq
// (pg-native, which binds libpq), CONCURRENCY connections with one request
// outstanding each, in one Node process; prints one JSON line as client.js.
//
//   node sql_client.js ACTION SECONDS CONCURRENCY START_AT_MS TAG
//
// ACTION: put (new keys: pk1 "n<TAG>_<slot>", pk2 counting up), get (a
// random existing row), range (one random partition key's 100 rows).
// Environment: OTS_CONNINFO (libpq, as otsbench), ATTRS (put's attributes
// as jsonb text), BENCH_ROWS.
'use strict';

const Client = require('pg-native');

const [action, secondsArg, concurrencyArg, startAtArg, tag] = process.argv.slice(2);
const seconds = Number(secondsArg);
const concurrency = Number(concurrencyArg);
const startAt = Number(startAtArg);
const rows = Number(process.env.BENCH_ROWS || 100000);

// otsd's statements for these requests (gateway/action_write.c, action_read.c)
const statements = {
	put: "SELECT primary_key::text, attributes::text, consumed::text FROM ots.put_row($1::text, $2::jsonb, $3::jsonb, condition => 'IGNORE'::text)",
	get: 'SELECT primary_key::text, attributes::text, consumed::text FROM ots.get_row($1::text, $2::jsonb, max_versions => 1::integer, with_timestamps => true::boolean)',
	range: "SELECT rows::text, next_start_primary_key::text, consumed::text FROM ots.get_range($1::text, $2::jsonb, $3::jsonb, direction => 'FORWARD'::text, \"limit\" => 100::integer, max_versions => 1::integer, with_timestamps => true::boolean)",
};
if (!statements[action] || !(seconds > 0) || !(concurrency >= 1) || !Number.isFinite(startAt) || tag === undefined) {
	console.error('usage: node sql_client.js put|get|range SECONDS CONCURRENCY START_AT_MS TAG');
	process.exit(2);
}

const partitionKey = (i) => 'p' + (10000 + Math.floor(i / 100));
const randomRow = () => Math.floor(Math.random() * rows);
const putCounters = new Array(concurrency).fill(0);

function params(slot) {
	if (action === 'put')
		return ['bench_t', JSON.stringify({ pk1: 'n' + tag + '_' + slot, pk2: putCounters[slot]++ }), process.env.ATTRS];
	if (action === 'get') {
		const i = randomRow();
		return ['bench_t', JSON.stringify({ pk1: partitionKey(i), pk2: i % 100 })];
	}
	const pk1 = partitionKey(randomRow());
	return ['bench_t', JSON.stringify({ pk1, pk2: { $inf: 'min' } }), JSON.stringify({ pk1, pk2: { $inf: 'max' } })];
}

// what a correct answer holds, as client.js checks it
function check(result) {
	if (action === 'get')
		return result.length === 1 && Object.keys(JSON.parse(result[0].attributes)).length === 5;
	if (action === 'range')
		return result.length === 1 && JSON.parse(result[0].rows).length === 100;
	return result.length === 1;
}

const clients = [];
for (let slot = 0; slot < concurrency; slot++) {
	const c = new Client();
	c.connectSync(process.env.OTS_CONNINFO);
	c.prepareSync('call', statements[action], action === 'get' ? 2 : 3);
	clients.push(c);
}

let counted = 0;
let errors = 0;
let wrong = 0;
let firstError = null;
let endAt = Infinity;
let started = false;

function loop(slot) {
	clients[slot].execute('call', params(slot), (err, result) => {
		const now = Date.now();
		if (started && now < endAt) {
			if (err) {
				errors++;
				if (!firstError)
					firstError = String(err.message || err).slice(0, 300);
			} else if (!check(result))
				wrong++;
			else
				counted++;
		}
		if (now < endAt)
			loop(slot);
	});
}

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
		process.stdout.write(JSON.stringify({
			action, concurrency, seconds: elapsed, requests: counted, errors, wrong,
			rps: counted / seconds, cpu_us: cpu.user + cpu.system, first_error: firstError,
		}) + '\n');
		process.exit(errors || wrong ? 1 : 0);
	}, seconds * 1000 + 5);
}, Math.max(0, startAt - Date.now()));
