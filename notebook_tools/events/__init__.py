"""Events: typed display and action events, the bus that carries them, and what front ends make of them.

_events        the display and action events (pydantic, a `type` discriminator)
_bus           EventBus and EventRecorder (record / replay)
_prompt        one prompt as a front end shows it (carried by `PromptChanged`)
_progress      a running tool's reporter (progress, steps, previews)
_activity      a tool card's activity line, folded from progress events
_toolset_text  how a tool-set change reads in a transcript, the same in every front end
"""
