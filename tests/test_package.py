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


def test_the_jupyterlab_extension_is_built_where_the_wheel_takes_it_and_found_where_jupyterlab_looks():
    import json
    import tomllib
    from pathlib import Path

    from notebook_tools.widgets._static import COPY_MIME

    root = Path(__file__).resolve().parents[1]
    package = json.loads((root / "js" / "labextension" / "package.json").read_text())
    built = (root / "js" / "labextension" / package["jupyterlab"]["outputDir"]).resolve()
    shared = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"][
        "wheel"
    ]
    assert {str(built.relative_to(root)): f"share/jupyter/labextensions/{package['name']}"}.items() <= shared[
        "shared-data"
    ].items()
    # the extension's renderer is for the type the kernel gives the copy (js/src/lab/copyState.ts)
    assert f'COPY_MIME = "{COPY_MIME}"' in (root / "js" / "src" / "lab" / "copyState.ts").read_text().replace(
        "export const ", ""
    )
    # and this environment's JupyterLab finds the build (./dev links it, as `jupyter labextension develop`)
    found = subprocess.run(
        [sys.executable, "-m", "jupyter", "labextension", "list"], capture_output=True, text=True, check=True
    )
    listing = found.stdout + found.stderr
    assert f"{package['name']} v{package['version']}" in listing and "enabled" in listing, listing
