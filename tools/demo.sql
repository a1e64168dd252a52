SELECT extname, extversion FROM pg_extension ORDER BY extname;
