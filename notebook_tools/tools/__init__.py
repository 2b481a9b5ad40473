"""Tools and what is offered: `@tool`, schemas, renderers, approvals, built-ins, plugins and tool sets.

    _tool             `Tool` and `@tool`: schemas from type hints and Google docstrings
    _schemas          JSON Schema validators (never fetching a remote `$ref`)
    _renderers        a frontend tool's own renderer module (`nt.Renderer`)
    _approvals        approval rules, decisions, audit records, path zones
    _builtins         the built-in prompts: confirm, text, select, file
    _browser_tools    tools the browser performs itself: open a URL, copy, download, notify
    _file_names       file names from untrusted text
    _plugins          `Plugin`, `Skill`, `Augmented`
    _toolset_state    the session's tool-set state (pydantic, saved with it)
    _toolset_changes  how a change applies to that state, and where a call is routed
    _toolset          the tools a request offers, from definitions and state

Below `session/`: a session's state refers to approvals and tool-set state defined here.
"""
