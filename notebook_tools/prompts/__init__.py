"""Prompts: what a person is asked, and the one object a front end holds to drive an agent.

    _session      FrontendSession: the agent, the broker of its prompts and the driver of its
                  turns; opens an agent's prompts in one place, hands each answer down to the agent
    _turn_task    the task a turn runs in: SIGINT while it awaits, background failures
    _broker       PromptBroker: open prompts, answers by id, timeouts, no-frontend policies, acks,
                  presence
    _answers      an answer to a prompt, checked, as the tool_result the model reads
    _waiting      how long a prompt waits: its answer, its author's timeout (none by default), or
                  no front end for a grace period; late answers while the pause still waits
    _clock        the broker's time source: real time, or a FakeClock a test moves on
    _late_answers answers to closed or unknown prompts: refused or ignored, and why
    _files        FileInbox: uploads in chunks and workspace picks, inside a root
    _file_content chosen files as content blocks for the model
    _downloads    the kernel's side of `download_file`
    _ui           PromptUI: `confirm`/`text`/`select`/`file` without an agent
    _mcp_prompts  MCP elicitation (a form from the server's schema, a URL consent card) as prompts
    _mcp_sampling MCP sampling: approved by the person, sent through the agent's client, reply shown
    _mcp_auth_prompts  an MCP server's OAuth sign-in as the URL consent card

The widget, the terminal and the HTTP server's held runs share all of it; none of it imports Jupyter.
"""
