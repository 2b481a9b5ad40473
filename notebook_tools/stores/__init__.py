"""Where sessions are saved: the `SessionStore` protocol and three stores.

_store     the protocol, revisions (compare-and-set), the in-memory store, schema upgrades
_sqlite    SQLite (WAL, BEGIN IMMEDIATE compare-and-set)
_postgres  PostgreSQL through psycopg (imported only when asked for: psycopg is optional)
"""
