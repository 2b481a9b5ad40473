"""The agent: request -> message -> run tools -> append results -> next, with pauses.

`Agent` is a facade over parts built by composition; each receives the one `SessionWriter`
(and what else it needs) and can be read and tested alone:

    _agent            Agent: the public API, building the parts and delegating to them
    _settings         Settings (client, model, limits, approval mode) read by the parts as they act
    _writer           SessionWriter: state, store, bus; save-then-adopt, events after saves,
                      one call at a time
    _loop             Loop: queued calls, pauses, requests and replies
    _answering        Answering: a person's answers and decisions, checked and applied
    _manual_runs      ManualRuns: a tool run by hand, told to the model with the next message
    _toolset_control  ToolsetControl: what a request offers, tool-set changes by the model, a
                      result or a person
    _call_runner      CallRunner: one backend call and the events around it
    _tool_calls       what happens to each call (approval rules) and running a tool, pure of state
    _stopping         Stopping: what a Stop, a cancel or a shutdown does to the session

Nothing here imports a front end; front ends drive the agent through `prompts.FrontendSession`.
"""
