"""A connection pool's threads and hypothesis share no random number generator.

psycopg_pool's worker threads draw a jitter from the global RNG whenever they add a connection.
Hypothesis compares the global RNG's state around each draw of a test's arguments and cannot tell
threads apart: a pool thread adding a connection while the next example was drawn failed
`test_interleaved_saves_match_the_model[postgres]` in a loaded run (HypothesisDeprecationWarning,
then FlakyFailure). tests/conftest.py gives the pool an RNG of its own.
"""

import threading

from hypothesis import given, settings
from hypothesis import strategies as st
from psycopg_pool.base import BasePool

busy = threading.Event()
stop = threading.Event()


def _pool_thread() -> None:
    while not stop.is_set():
        BasePool._jitter(60.0, -0.05, 0.0)  # what a pool thread does for each connection it adds
        busy.set()


@settings(max_examples=50, deadline=None)
@given(ops=st.lists(st.sampled_from(["load", "save", "delete"]), max_size=12))
def _draws(ops):
    assert len(ops) <= 12


def test_a_pool_thread_adding_connections_while_examples_are_drawn_is_not_the_strategys_randomness():
    thread = threading.Thread(target=_pool_thread, daemon=True)
    stop.clear()
    thread.start()
    busy.wait()
    try:
        _draws()
    finally:
        stop.set()
        thread.join()
