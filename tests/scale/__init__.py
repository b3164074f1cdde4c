"""Past one process: the work queue (procrastinate on PostgreSQL) and its workers."""
