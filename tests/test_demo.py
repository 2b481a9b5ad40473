import subprocess
import sys


def test_terminal_demo_pauses_resumes_and_says_it_is_scripted():
    out = subprocess.run(
        [sys.executable, "-m", "notebook_tools", "demo", "--auto"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert out.startswith("[scripted model: no ANTHROPIC_API_KEY")
    assert "[paused: 3 question(s) for you]" in out
    assert "I dropped the 12 duplicate rows, converted `price` to numbers" in out
    assert "[end_turn; 3 requests" in out
