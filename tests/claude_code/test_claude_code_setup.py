"""ClaudeCode without the CLI running: what a card shows, what it refuses, and the optional extra."""

import subprocess
import sys

import pytest

import notebook_tools as nt
from notebook_tools.external import preview


def test_a_bash_card_shows_the_command_line_by_line():
    assert preview("Bash", {"command": "cd data\n\npython run.py"}) == "$ cd data\n> \n> python run.py"


def test_a_write_card_shows_the_new_file_as_a_diff_from_nothing(tmp_path):
    shown = preview("Write", {"file_path": "new.txt", "content": "one\n\nthree\n"}, tmp_path)
    assert shown.splitlines()[:2] == ["--- /dev/null", "+++ new.txt"]
    assert shown.splitlines()[-3:] == ["+one", "+", "+three"]
    assert "\n\n" not in shown  # the card's summary is its first paragraph: no line is empty


def test_an_edit_card_shows_the_change_to_the_file_on_disk(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    shown = preview("Edit", {"file_path": "a.py", "old_string": "y = 2", "new_string": "y = 3"}, tmp_path)
    assert (
        "-y = 2" in shown.splitlines() and "+y = 3" in shown.splitlines() and " x = 1" in shown.splitlines()
    )


def test_other_tools_show_their_input_only():
    assert preview("Read", {"file_path": "a.py"}) == ""


def test_claude_code_answers_can_use_tool_itself():
    sdk = pytest.importorskip("claude_agent_sdk")

    async def mine(name, tool_input, context):
        return sdk.PermissionResultAllow()

    with pytest.raises(nt.ConfigurationError, match="can_use_tool"):
        nt.ClaudeCode(options=sdk.ClaudeAgentOptions(can_use_tool=mine))
    with pytest.raises(nt.ConfigurationError, match="remember_in"):
        nt.ClaudeCode(remember_in="forever")


def test_without_the_extra_the_error_names_it_and_the_package_still_imports():
    code = (
        "import sys; sys.modules['claude_agent_sdk'] = None\n"
        "import notebook_tools as nt\n"
        "try:\n    nt.ClaudeCode()\nexcept nt.ConfigurationError as exc:\n    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert 'pip install "notebook_tools[claude-code]"' in out


def test_importing_the_package_does_not_import_the_sdk():
    code = "import sys, notebook_tools; print('claude_agent_sdk' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
