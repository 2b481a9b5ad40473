"""Where sessions are saved: the `SessionStore` protocol and three stores.

`InMemoryStore` lives as long as its process; `SQLiteStore` is one file that processes on one
machine share; `PostgresStore` (psycopg, optional: imported only when asked for) serves workers on
many. Each saves a session with compare-and-set revisions and upgrades what older versions saved.
Workers that share a store also share `Lease`s (`LeaseStore`: which worker runs a session, renewed
as a `Renewal`) and a `Mailbox` of `Message`s (acks and Stops that reach the worker holding a run).
"""

from typing import TYPE_CHECKING

from ._leases import Lease, LeaseStore, Renewal
from ._mailbox import Mailbox, Message
from ._sqlite import SQLiteStore
from ._store import InMemoryStore, SessionStore

if TYPE_CHECKING:  # at run time `__getattr__` imports it when asked: psycopg is optional
    from ._postgres import PostgresStore


def __getattr__(name: str) -> object:
    if name == "PostgresStore":
        from ._postgres import PostgresStore

        return PostgresStore
    raise AttributeError(f"module 'notebook_tools.stores' has no attribute {name!r}")


__all__ = [
    "InMemoryStore",
    "Lease",
    "LeaseStore",
    "Mailbox",
    "Message",
    "PostgresStore",
    "Renewal",
    "SQLiteStore",
    "SessionStore",
]
