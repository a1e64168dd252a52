'use strict';
// Search through the official Node SDK: the SearchQuery's queries, sorts,
// paging by token, total count, columns, aggregations and group-bys, each
// answer checked against the rows written (what samples/search and searchPaginateByToken do);
// ComputeSplits and ParallelScan (their samples cannot run as they ship).
const assert = require('assert');
const {
    TableStore, Long, call, expectError, tableName, createTable, dropTable, pk,
} = require('./lib');

const Q = TableStore.QueryType;

describe('search', function () {
    const t = tableName('gw_search');
    // 12 rows: city cycles hz, sh, bj; n = i; tags of i % 2; name words; pos near Hangzhou
    const rows = Array.from({ length: 12 }, (_, i) => ({
        id: `r${String(i).padStart(2, '0')}`,
        city: ['hz', 'sh', 'bj'][i % 3],
        n: i,
        price: i * 1.5,
        name: ['tea house', 'noodle bar', 'tea and noodle'][i % 3],
        pos: `30.${i},120.${i}`,
    }));
    const idOf = (r) => Object.fromEntries(pk(r)).id;
    const ids = (result) => result.rows.map(idOf);
    const search = (searchQuery, columnToGet) => call('search', {
        tableName: t, indexName: 'ix', searchQuery,
        columnToGet: columnToGet || { returnType: TableStore.ColumnReturnType.RETURN_NONE },
    });

    before(async function () {
        await createTable(t, [{ name: 'id', type: 'STRING' }]);
        await call('createSearchIndex', {
            tableName: t, indexName: 'ix',
            schema: {
                fieldSchemas: [
                    { fieldName: 'city', fieldType: TableStore.FieldType.KEYWORD, index: true, enableSortAndAgg: true },
                    { fieldName: 'n', fieldType: TableStore.FieldType.LONG, index: true, enableSortAndAgg: true },
                    { fieldName: 'price', fieldType: TableStore.FieldType.DOUBLE, index: true, enableSortAndAgg: true },
                    { fieldName: 'name', fieldType: TableStore.FieldType.TEXT, index: true },
                    { fieldName: 'pos', fieldType: TableStore.FieldType.GEO_POINT, index: true },
                ],
            },
        });
        for (const r of rows) {
            await call('putRow', {
                tableName: t, condition: new TableStore.Condition(TableStore.RowExistenceExpectation.IGNORE, null),
                primaryKey: [{ id: r.id }],
                attributeColumns: [{ city: r.city }, { n: Long.fromNumber(r.n) }, { price: r.price }, { name: r.name }, { pos: r.pos }],
            });
        }
    });
    after(async function () {
        try {
            await call('deleteSearchIndex', { tableName: t, indexName: 'ix' });
        } catch (err) {
            // gone with a failed before
        }
        await dropTable(t);
    });

    it('each query type finds the rows it should, with the total count', async function () {
        const cases = [
            [{ queryType: Q.MATCH_ALL_QUERY }, rows.map((r) => r.id)],
            [{ queryType: Q.TERM_QUERY, query: { fieldName: 'city', term: 'sh' } }, rows.filter((r) => r.city === 'sh').map((r) => r.id)],
            [{ queryType: Q.TERMS_QUERY, query: { fieldName: 'city', terms: ['hz', 'bj'] } }, rows.filter((r) => r.city !== 'sh').map((r) => r.id)],
            [{ queryType: Q.RANGE_QUERY, query: { fieldName: 'n', rangeFrom: Long.fromNumber(3), rangeTo: Long.fromNumber(6), includeLower: true, includeUpper: false } },
                ['r03', 'r04', 'r05']],
            [{ queryType: Q.RANGE_QUERY, query: { fieldName: 'price', rangeFrom: 15.0, includeLower: false } }, ['r11']],
            [{ queryType: Q.PREFIX_QUERY, query: { fieldName: 'city', prefix: 'h' } }, rows.filter((r) => r.city === 'hz').map((r) => r.id)],
            [{ queryType: Q.WILDCARD_QUERY, query: { fieldName: 'city', value: '?j' } }, rows.filter((r) => r.city === 'bj').map((r) => r.id)],
            [{ queryType: Q.MATCH_QUERY, query: { fieldName: 'name', text: 'tea noodle', operator: TableStore.QueryOperator.AND } },
                rows.filter((r) => r.name === 'tea and noodle').map((r) => r.id)],
            [{ queryType: Q.MATCH_PHRASE_QUERY, query: { fieldName: 'name', text: 'noodle bar' } }, rows.filter((r) => r.name === 'noodle bar').map((r) => r.id)],
            [{ queryType: Q.EXISTS_QUERY, query: { fieldName: 'pos' } }, rows.map((r) => r.id)],
            [{
                queryType: Q.BOOL_QUERY,
                query: {
                    mustQueries: [{ queryType: Q.TERM_QUERY, query: { fieldName: 'city', term: 'hz' } }],
                    mustNotQueries: [{ queryType: Q.TERM_QUERY, query: { fieldName: 'n', term: Long.fromNumber(0) } }],
                },
            }, ['r03', 'r06', 'r09']],
            [{ queryType: Q.CONST_SCORE_QUERY, query: { filter: { queryType: Q.TERM_QUERY, query: { fieldName: 'city', term: 'bj' } } } },
                rows.filter((r) => r.city === 'bj').map((r) => r.id)],
            // r01 and r10 stand at the same point (30.1 and 30.10)
            [{ queryType: Q.GEO_DISTANCE_QUERY, query: { fieldName: 'pos', centerPoint: '30.1,120.1', distance: 1000 } }, ['r01', 'r10']],
        ];
        for (const [query, expected] of cases) {
            const result = await search({ offset: 0, limit: 100, query, getTotalCount: true });
            assert.deepStrictEqual(ids(result), expected, JSON.stringify(query));
            assert.strictEqual(Number(result.totalCounts), expected.length, JSON.stringify(query));
        }
    });

    it('a sort, pages by token with no row twice or missed, and the columns asked for', async function () {
        const seen = [];
        let token = null;
        for (let page = 0; page < 10; page++) {
            const q = token ? { limit: 5, query: { queryType: Q.MATCH_ALL_QUERY }, token }
                : {
                    limit: 5,
                    query: { queryType: Q.MATCH_ALL_QUERY },
                    sort: { sorters: [{ fieldSort: { fieldName: 'price', order: TableStore.SortOrder.SORT_ORDER_DESC } }] },
                };
            const result = await search(q, { returnType: TableStore.ColumnReturnType.RETURN_SPECIFIED, returnNames: ['city', 'n'] });
            for (const r of result.rows) {
                const attrs = Object.fromEntries(r.attributes.map((a) => [a.columnName, a.columnValue]));
                const want = rows.find((x) => x.id === idOf(r));
                assert.strictEqual(attrs.city, want.city);
                assert.strictEqual(Number(attrs.n), want.n);
                assert.strictEqual(attrs.name, undefined);
                seen.push(idOf(r));
            }
            token = result.nextToken && result.nextToken.length > 0 ? result.nextToken : null;
            if (!token) {
                break;
            }
        }
        assert.deepStrictEqual(seen, rows.slice().reverse().map((r) => r.id));
    });

    it('computeSplits and parallelScan: one split, every matching row once in key order, pages by token', async function () {
        const splits = await call('computeSplits', { tableName: t, searchIndexSplitsOptions: { indexName: 'ix' } });
        assert.strictEqual(splits.splitsSize, 1);
        const scan = (scanQuery, sessionId) => call('parallelScan', {
            tableName: t, indexName: 'ix', sessionId: sessionId || splits.sessionId,
            columnToGet: { returnType: TableStore.ColumnReturnType.RETURN_ALL_FROM_INDEX },
            scanQuery: Object.assign({ currentParallelId: 0, maxParallel: 1, aliveTime: 30 }, scanQuery),
        });
        const seen = [];
        const pageSizes = [];
        let token;
        for (let page = 0; page < 10; page++) {
            const result = await scan({ query: { queryType: Q.TERMS_QUERY, query: { fieldName: 'city', terms: ['hz', 'sh'] } }, limit: 3, token });
            assert.ok(result.rows.length <= 3);
            pageSizes.push(result.rows.length);
            for (const r of result.rows) {
                const attrs = Object.fromEntries(r.attributes.map((a) => [a.columnName, a.columnValue]));
                assert.strictEqual(attrs.city, rows.find((x) => x.id === idOf(r)).city);
                seen.push(idOf(r));
            }
            token = result.nextToken && result.nextToken.length > 0 ? result.nextToken : undefined;
            if (!token) {
                break;
            }
        }
        assert.deepStrictEqual(seen, rows.filter((r) => r.city !== 'bj').map((r) => r.id));
        // as Tablestore's: every page of rows, the short last one too, has a token; the scan ends with a page of none
        assert.strictEqual(pageSizes[pageSizes.length - 1], 0);
        assert.ok(pageSizes.slice(0, -1).every((n) => n > 0), JSON.stringify(pageSizes));
        await expectError(scan({ query: { queryType: Q.MATCH_ALL_QUERY } }, Buffer.from('not a session')), 400, 'OTSParameterInvalid', 'session_id');
        await expectError(scan({ query: { queryType: Q.MATCH_ALL_QUERY }, maxParallel: 2 }), 400, 'OTSParameterInvalid', 'max_parallel');
        await expectError(scan({ query: { queryType: Q.MATCH_ALL_QUERY }, limit: 2001 }), 400, 'OTSParameterInvalid', 'limit');
    });

    it('aggregations and group-bys, nested, with their values typed as the protocol says', async function () {
        const A = TableStore.AggregationType;
        const G = TableStore.GroupByType;
        // at most 5 aggregations a level: two searches
        const numbers = await search({
            limit: 0,
            query: { queryType: Q.MATCH_ALL_QUERY },
            aggs: {
                aggs: [
                    { name: 'count', type: A.AGG_COUNT, body: { fieldName: 'n' } },
                    { name: 'sum', type: A.AGG_SUM, body: { fieldName: 'n' } },
                    { name: 'avg', type: A.AGG_AVG, body: { fieldName: 'price' } },
                    { name: 'max', type: A.AGG_MAX, body: { fieldName: 'price' } },
                    { name: 'min', type: A.AGG_MIN, body: { fieldName: 'n' } },
                ],
            },
        });
        const result = await search({
            limit: 0,
            query: { queryType: Q.MATCH_ALL_QUERY },
            aggs: {
                aggs: [
                    { name: 'cities', type: A.AGG_DISTINCT_COUNT, body: { fieldName: 'city' } },
                    { name: 'median', type: A.AGG_PERCENTILES, body: { fieldName: 'n', percentiles: [50, 100] } },
                    {
                        name: 'top', type: A.AGG_TOP_ROWS,
                        body: { limit: 2, sort: { sorters: [{ fieldSort: { fieldName: 'n', order: TableStore.SortOrder.SORT_ORDER_DESC } }] } },
                    },
                ],
            },
            groupBys: {
                groupBys: [
                    {
                        name: 'by_city', type: G.GROUP_BY_FIELD,
                        body: {
                            fieldName: 'city', size: 2,
                            sort: { sorters: [{ groupKeySort: { order: TableStore.SortOrder.SORT_ORDER_ASC } }] },
                            subAggs: { aggs: [{ name: 'n_sum', type: A.AGG_SUM, body: { fieldName: 'n' } }] },
                        },
                    },
                    { name: 'by_n', type: G.GROUP_BY_RANGE, body: { fieldName: 'n', ranges: [{ from: 0, to: 4 }, { from: 4, to: 100 }] } },
                    // r00 stands at the origin, the others kilometres away
                    {
                        name: 'near', type: G.GROUP_BY_GEO_DISTANCE,
                        body: { fieldName: 'pos', origin: { lat: 30.0, lon: 120.0 }, ranges: [{ from: 0, to: 1 }, { from: 1, to: 1e7 }] },
                    },
                    {
                        name: 'sh', type: G.GROUP_BY_FILTER,
                        body: { filters: [{ queryType: Q.TERM_QUERY, query: { fieldName: 'city', term: 'sh' } }] },
                    },
                    {
                        name: 'by_price', type: G.GROUP_BY_HISTOGRAM,
                        body: {
                            fieldName: 'price', interval: 6.5, minDocCount: Long.fromNumber(1),
                            subGroupBys: { groupBys: [{ name: 'cities', type: G.GROUP_BY_FIELD, body: { fieldName: 'city' } }] },
                        },
                    },
                ],
            },
        }, { returnType: TableStore.ColumnReturnType.RETURN_ALL });
        const number = (name) => numbers.aggs.aggResults.find((a) => a.name === name).aggResult;
        assert.strictEqual(Number(number('count').value), 12);
        assert.strictEqual(number('sum').value, 66);
        assert.strictEqual(number('avg').value, 8.25);
        assert.strictEqual(number('max').value, 16.5);
        assert.strictEqual(number('min').value, 0);
        const agg = (name) => result.aggs.aggResults.find((a) => a.name === name).aggResult;
        assert.strictEqual(Number(agg('cities').value), 3);
        // percentile_disc: the 6th of 12 values, and the last
        assert.deepStrictEqual(agg('median').items.map((i) => [i.item.key, Number(i.item.value)]), [[50, 5], [100, 11]]);
        assert.deepStrictEqual(agg('top').rows.map(idOf), ['r11', 'r10']);
        // top rows carry the columns the search's columnToGet names, as Tablestore's (all here; none below)
        assert.deepStrictEqual(agg('top').rows[0].attributes.map((a) => a.columnName).sort(), ['city', 'n', 'name', 'pos', 'price']);
        const keysOnly = await search({
            limit: 0, query: { queryType: Q.MATCH_ALL_QUERY },
            aggs: { aggs: [{ name: 'top', type: A.AGG_TOP_ROWS, body: { limit: 1 } }] },
        });
        assert.deepStrictEqual(keysOnly.aggs.aggResults[0].aggResult.rows.map((r) => [idOf(r), r.attributes.length]), [['r00', 0]]);
        const group = (name) => result.groupBys.groupByResults.find((g) => g.name === name).groupByResult;
        assert.deepStrictEqual(group('by_city').items.map((i) => [i.key, Number(i.rowCount), i.subAggsResult.aggResults[0].aggResult.value]),
            [['bj', 4, 2 + 5 + 8 + 11], ['hz', 4, 0 + 3 + 6 + 9]]);
        assert.deepStrictEqual(group('by_n').items.map((i) => [i.from, i.to, Number(i.rowCount)]), [[0, 4, 4], [4, 100, 8]]);
        assert.deepStrictEqual(group('sh').items.map((i) => Number(i.rowCount)), [4]);
        assert.deepStrictEqual(group('near').items.map((i) => [i.from, i.to, Number(i.rowCount)]), [[0, 1, 1], [1, 1e7, 11]]);
        // buckets of 6.5 from 0: prices 0 to 6 (5 rows), 7.5 to 12 (4), 13.5 to 16.5 (3), keys as DOUBLEs
        assert.deepStrictEqual(group('by_price').items.map((i) => [i.key, Number(i.value)]), [[0, 5], [6.5, 4], [13, 3]]);
        assert.deepStrictEqual(group('by_price').items[2].subGroupBysResult.groupByResults[0].groupByResult.items
            .map((i) => [i.key, Number(i.rowCount)]), [['bj', 1], ['hz', 1], ['sh', 1]]);
    });

    it('a composite group-by: every combination of the sources\' keys, paged by its nextToken', async function () {
        const G = TableStore.GroupByType;
        const composite = (nextToken) => search({
            limit: 0,
            query: { queryType: Q.MATCH_ALL_QUERY },
            groupBys: {
                groupBys: [{
                    name: 'c', type: G.GROUP_BY_COMPOSITE,
                    body: {
                        size: 3, nextToken,
                        sources: {
                            groupBys: [
                                { name: 'city', type: G.GROUP_BY_FIELD, body: { fieldName: 'city' } },
                                { name: 'n5', type: G.GROUP_BY_HISTOGRAM, body: { fieldName: 'n', interval: Long.fromNumber(5) } },
                            ],
                        },
                        subAggs: { aggs: [{ name: 'n_sum', type: TableStore.AggregationType.AGG_SUM, body: { fieldName: 'n' } }] },
                    },
                }],
            },
        });
        const seen = [];
        let token;
        let pages = 0;
        do {
            const g = (await composite(token)).groupBys.groupByResults[0].groupByResult;
            assert.deepStrictEqual(g.sourceNames, ['city', 'n5']);
            for (const i of g.items) {
                seen.push([...i.keys, Number(i.rowCount), i.subAggsResult.aggResults[0].aggResult.value]);
            }
            token = g.nextToken;
            pages += 1;
        } while (token && pages < 10);
        // the rows written, grouped by city and by n's bucket of 5, in that order
        const expected = {};
        for (const r of rows) {
            const key = `${r.city}/${Math.floor(r.n / 5) * 5}`;
            expected[key] = expected[key] || [r.city, String(Math.floor(r.n / 5) * 5), 0, 0];
            expected[key][2] += 1;
            expected[key][3] += r.n;
        }
        // by city, then by bucket as a number
        const order = Object.values(expected).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : Number(a[1]) - Number(b[1])));
        assert.deepStrictEqual(seen, order);
        assert.strictEqual(pages, 3);
    });

    it('a functions_score_query: the best scored first, each row\'s score in searchHits', async function () {
        const result = await search({
            limit: 5,
            query: {
                queryType: Q.FUNCTIONS_SCORE_QUERY,
                query: {
                    query: { queryType: Q.MATCH_ALL_QUERY },
                    functions: [{
                        weight: 2,
                        decayFunction: {
                            fieldName: 'n', mathFunction: TableStore.MathFunction.LINEAR, decay: 0.5,
                            decayParamType: TableStore.DecayFuncParamType.DF_NUMERIC_PARAM,
                            decayParam: { origin: 5, scale: 5, offset: 0 },
                            multiValueMode: TableStore.MultiValueMode.MVM_MIN,
                        },
                    }],
                    scoreMode: TableStore.FSMScoreMode.FSM_SUM,
                    combineMode: TableStore.FSMCombineMode.FCM_REPLACE,
                },
            },
        });
        // linear: 1 at the origin, 0.5 at the scale's distance; times the weight
        const scored = rows.map((r) => [r.id, 2 * Math.max(0, 1 - Math.abs(r.n - 5) * 0.5 / 5)])
            .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5);
        assert.deepStrictEqual(ids(result), scored.map((s) => s[0]));
        assert.strictEqual(result.searchHits.length, 5);
        result.searchHits.forEach((hit, i) => assert.ok(Math.abs(hit.score - scored[i][1]) < 1e-9, `${hit.score} ${scored[i][1]}`));
        // a search that does not score has no hits
        const plain = await search({ limit: 2, query: { queryType: Q.MATCH_ALL_QUERY } });
        assert.strictEqual((plain.searchHits || []).length, 0);
    });

    it('a highlight: each matching row\'s fragments of its TEXT field in searchHits', async function () {
        await call('createSearchIndex', {
            tableName: t, indexName: 'hl',
            schema: { fieldSchemas: [{ fieldName: 'name', fieldType: TableStore.FieldType.TEXT, index: true, enableHighlighting: true }] },
        });
        try {
            const result = await call('search', {
                tableName: t, indexName: 'hl',
                searchQuery: {
                    limit: 20,
                    query: { queryType: Q.MATCH_QUERY, query: { fieldName: 'name', text: 'tea' } },
                    highlight: {
                        highlightEncoder: TableStore.HighlightEncoder.HTML_MODE,
                        highlightParameters: [{ fieldName: 'name', preTag: '<b>', postTag: '</b>', numberOfFragments: 1 }],
                    },
                },
                columnToGet: { returnType: TableStore.ColumnReturnType.RETURN_NONE },
            });
            const expected = rows.filter((r) => r.name.includes('tea'));
            assert.deepStrictEqual(ids(result), expected.map((r) => r.id));
            assert.deepStrictEqual(result.searchHits.map((h) => h.highlightResultItem.highlightFields.get('name').fragments),
                expected.map((r) => [r.name.replace('tea', '<b>tea</b>')]));
        } finally {
            await call('deleteSearchIndex', { tableName: t, indexName: 'hl' });
        }
    });

    it('a VECTOR field: made and described with its vectorOptions, its value read with the row, knn refused', async function () {
        await call('createSearchIndex', {
            tableName: t, indexName: 'vec',
            schema: {
                fieldSchemas: [
                    { fieldName: 'city', fieldType: TableStore.FieldType.KEYWORD, index: true },
                    {
                        fieldName: 'emb', fieldType: TableStore.FieldType.VECTOR, index: true, isAnArray: false,
                        vectorOptions: { dataType: TableStore.VectorDataType.VD_FLOAT_32, dimension: 4, metricType: TableStore.VectorMetricType.VM_COSINE },
                    },
                ],
            },
        });
        try {
            const described = await call('describeSearchIndex', { tableName: t, indexName: 'vec' });
            const emb = described.schema.fieldSchemas.find((f) => f.fieldName === 'emb');
            assert.strictEqual(emb.fieldType, TableStore.FieldType.VECTOR);
            assert.deepStrictEqual([emb.vectorOptions.dataType, emb.vectorOptions.dimension, emb.vectorOptions.metricType],
                [TableStore.VectorDataType.VD_FLOAT_32, 4, TableStore.VectorMetricType.VM_COSINE]);
            const found = await call('search', {
                tableName: t, indexName: 'vec',
                searchQuery: { query: { queryType: Q.TERM_QUERY, query: { fieldName: 'city', term: 'hz' } }, getTotalCount: true },
                columnToGet: { returnType: TableStore.ColumnReturnType.RETURN_NONE },
            });
            assert.strictEqual(Number(found.totalCounts), rows.filter((r) => r.city === 'hz').length);
            await expectError(call('search', {
                tableName: t, indexName: 'vec',
                searchQuery: { query: { queryType: Q.KNN_VECTOR_QUERY, query: { fieldName: 'emb', topK: 2, float32QueryVector: [0.1, 0.2, 0.3, 0.4] } } },
                columnToGet: { returnType: TableStore.ColumnReturnType.RETURN_NONE },
            }), 400, 'OTSParameterInvalid');
        } finally {
            await call('deleteSearchIndex', { tableName: t, indexName: 'vec' });
        }
    });

    it('refusals: a missing index 404, a field that is no field 400, an aggregation ots refuses 400', async function () {
        await expectError(call('search', {
            tableName: t, indexName: 'nosuch', searchQuery: { query: { queryType: Q.MATCH_ALL_QUERY } },
            columnToGet: { returnType: TableStore.ColumnReturnType.RETURN_NONE },
        }), 404, 'OTSObjectNotExist');
        await expectError(search({ query: { queryType: Q.TERM_QUERY, query: { fieldName: 'nope', term: 'x' } } }), 400, 'OTSParameterInvalid',
            'not a field');
        // a token that is no text, and one that is text but not ots's: refused, never a first page again
        await expectError(search({ query: { queryType: Q.MATCH_ALL_QUERY }, token: Buffer.from([0xff, 0xfe, 0x00]) }), 400,
            'OTSParameterInvalid', 'Invalid token');
        await expectError(search({ query: { queryType: Q.MATCH_ALL_QUERY }, token: Buffer.from('bm90IGEgdG9rZW4=') }), 400,
            'OTSParameterInvalid', 'Invalid token');
        await expectError(search({
            query: { queryType: Q.MATCH_ALL_QUERY },
            aggs: { aggs: [{ name: 'a', type: TableStore.AggregationType.AGG_AVG, body: { fieldName: 'city' } }] },
        }), 400, 'OTSParameterInvalid', 'is invalid, allow [long, double]');
        await expectError(search({
            query: { queryType: Q.MATCH_ALL_QUERY },
            groupBys: { groupBys: [{ name: 'g', type: TableStore.GroupByType.GROUP_BY_GEO_GRID, body: { fieldName: 'pos' } }] },
        }), 400, 'OTSParameterInvalid', 'Invalid precision of group_by_geo_grid');
    });
});
