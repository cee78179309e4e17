"""The input account: one turn's billed input, itemised and tokenised in the model's own
encoding, offline. See docs/input-account.md."""

from traceview.analysis.account.account import account
from traceview.analysis.account.model import Basis, Component, InputAccount
from traceview.analysis.account.tokens import counter_for, encoding_name

__all__ = ["Basis", "Component", "InputAccount", "account", "counter_for", "encoding_name"]
