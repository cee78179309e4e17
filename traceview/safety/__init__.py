"""The one output boundary: every string that leaves the process passes through here.

`redact` masks secrets (API keys, bearer tokens, registered header values): its pre-check
names the text that may hold one, `mask` masks the shapes of `shapes` (finding some once per
run, `runs`); `sanitise` makes untrusted capture text inert for a terminal, a document or
JSON.
"""

MASK = "[redacted]"  # what every masked secret becomes (here: no masker needed to name it)
