"""Where sessions are saved: the `SessionStore` protocol and three stores.

_store           the protocol, revisions (compare-and-set), the in-memory store, schema upgrades
_leases          leases: which worker holds a running session (`Lease`, `LeaseStore`, the rules)
_mailbox         messages between workers, held frontend calls (`Mailbox`, polling waits)
_twins           async twins that run a sync store's methods in a thread (or at once)
_memory          the in-memory store's leases and mailbox
_sqlite          SQLite (WAL, BEGIN IMMEDIATE compare-and-set); _sqlite_leases, _sqlite_mailbox
_postgres        PostgreSQL through psycopg (imported only when asked for: psycopg is optional);
                 _pg_pool its connection pools, _pg_steps operations written once for sync and
                 async, _pg_leases, _pg_mailbox, _pg_listen (LISTEN/NOTIFY for the waits)
"""

from ._leases import Lease, LeaseStore, Renewal
from ._mailbox import Mailbox, Message

__all__ = ["Lease", "LeaseStore", "Mailbox", "Message", "Renewal"]
