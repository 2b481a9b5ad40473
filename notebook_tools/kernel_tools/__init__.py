"""Claude at work on the data in the kernel: see it without values, run code you approve, undo it.

`KernelTools` is one plugin an `Agent` takes (`plugins=[nt.KernelTools()]`): list the namespace's
variables and describe one by aggregates; run code in the notebook's own namespace (captured,
time-limited, stopped by Stop, approved as its `Approval` setting says); a data policy
(`DataPolicy`; `Policy`: ask, aggregates only, allow) with consent cards and a `Ledger` of every
piece of data that left the kernel (a `LedgerEntry` each); checkpoints before each run
(`Checkpoints`) with a change summary after it, and undo.
"""

from ._policy import DataPolicy, Ledger, LedgerEntry, Policy
from ._toolset import Approval, KernelTools
from ._undo import Checkpoints

__all__ = [
    "Approval",
    "Checkpoints",
    "DataPolicy",
    "KernelTools",
    "Ledger",
    "LedgerEntry",
    "Policy",
]
