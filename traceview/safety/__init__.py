"""The one output boundary: every string that leaves the process passes through here.

`redact` masks secrets (API keys, bearer tokens, registered header values) with the shapes
of `shapes`; `sanitise` makes untrusted capture text inert for a terminal, a document or
JSON.
"""
