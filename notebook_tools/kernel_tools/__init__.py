"""Claude at work on the data in the kernel: see it without values, run code you approve, undo it.

`KernelTools` is one plugin an `Agent` takes (`nt.kernel_tools()`): list the namespace's variables
and describe one by aggregates, run code in the notebook's own namespace (captured, time-limited,
stopped by Stop), a data policy with consent cards and a ledger of what left the kernel,
checkpoints before each run with a change card after it, and undo.
"""

__all__: list[str] = []
