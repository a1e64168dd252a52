-- ots 0.2.0 -> 0.3.0: no change yet.
-- Every change here is also made in src/sql/ (what a fresh 0.3.0 install
-- runs); test/upgrade/run.sh shows the two arrive at the same objects, from
-- 0.2.0 and from 0.1.0 through 0.2.0. docs/development.md, Releases, has the
-- rules an upgrade script follows (0.2.0's ots.tables is written only by
-- ots's own functions, but ots.purge_stats still takes rows from any role
-- that owns a relation named "<table>$data": its rows are input).
\echo Use "ALTER EXTENSION ots UPDATE TO '0.3.0'" to load this file. \quit
