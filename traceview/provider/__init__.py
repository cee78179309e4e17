"""The only code that talks to the provider; it returns plain data or raises ProviderError.

client           the openai client from flags and environment; SDK errors made actionable
urls             whether a base URL can be sent to (--base-url and $OPENAI_BASE_URL alike)
errors           ProviderError, the one error type (a partial copy rides on it)
provider_copy    ProviderCopy: a conversation's items as the provider lists them
fetch            every page of a conversation, a response chain, or a response's input items
snapshot         a provider copy saved to / read from a file (or a recorded listing)
diffing          the provider copy fetched and diffed against a capture
fidelity_scores  replay fidelity with the provider's input items, then and now
hydrate          a capture rebuilt from response ids
"""
