"""The test JupyterLab starts even when another process takes its port first (a test run beside this one).

The port is chosen, then bound by the server seconds later; here the first port chosen is already held
by a listener, as another process could take it in between: the server exits saying so, and `Lab` starts
it again on another port.
"""

import socket
import urllib.request

import pytest

import tests.support.lab as lab_support

pytestmark = pytest.mark.browser


def test_a_taken_port_is_given_up_for_another(tmp_path, monkeypatch):
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    taken = held.getsockname()[1]
    chosen = [taken]
    real = lab_support._free_port
    monkeypatch.setattr(lab_support, "_free_port", lambda: chosen.pop(0) if chosen else real())
    try:
        lab = lab_support.Lab(tmp_path)
        try:
            assert lab.port != taken
            status = urllib.request.urlopen(f"{lab.base}/api/status?token={lab.token}", timeout=30)
            assert status.status == 200
        finally:
            lab.close()
    finally:
        held.close()
