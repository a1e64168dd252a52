-- ots_proxy 0.2.0 -> 0.3.0: no change yet.
-- Every change here is also made in proxy/sql/ (what a fresh 0.3.0 install
-- runs), and an error code added to src/ots_error_codes.h gets its row of
-- ots_cluster.error_codes here; test/upgrade/run.sh shows the two arrive at
-- the same objects and rows.
\echo Use "ALTER EXTENSION ots_proxy UPDATE TO '0.3.0'" to load this file. \quit
