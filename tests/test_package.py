import subprocess
import sys

import notebook_tools

JUPYTER = ("IPython", "ipywidgets", "anywidget", "ipykernel", "comm", "jupyter_client")


def test_import_loads_no_jupyter_module():
    code = (
        "import sys, notebook_tools, notebook_tools.testing; "
        "print(','.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = set(out.strip().split(","))
    assert not loaded & set(JUPYTER), loaded & set(JUPYTER)


def test_public_api_is_sorted_and_complete():
    names = notebook_tools.__all__
    assert names == sorted(names, key=lambda n: (not n.isupper(), n))
    for name in names:
        assert hasattr(notebook_tools, name), name
    # (pytest rewrites the asserts of a package that ships a pytest plugin, adding "@py_..." names)
    public = {n for n in dir(notebook_tools) if not n.startswith(("_", "@"))}
    # everything public at the top level is exported on purpose (submodules aside)
    packages = {"testing", "widgets", "terminal", "results", "server", "toolbench"}
    packages |= {
        "api",
        "tools",
        "session",
        "events",
        "stores",
        "prompts",
        "mcp",
        "kernel_tools",
        "agent",
        "external",
        "frontend",
    }  # the layers
    assert public - set(names) <= packages


def test_default_model_is_not_deprecated_by_the_sdk():
    from anthropic.resources.messages.messages import DEPRECATED_MODELS

    assert notebook_tools.DEFAULT_MODEL not in DEPRECATED_MODELS
