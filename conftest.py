"""Root conftest: notebooks under nbval run on the scripted model, answered by a scripted user.

Set here, at import, so the kernels nbval starts inherit it; tests never reach the real API.
"""

import os

os.environ["NOTEBOOK_TOOLS_SCRIPTED_USER"] = "1"
os.environ.pop("ANTHROPIC_API_KEY", None)
