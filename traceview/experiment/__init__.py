"""`traceview ab`: run the hosted-vs-owned experiment (network code, not core).

source    conversations (their user messages, in order) taken from an existing capture
plan      stratified sample by turn count, interleaved seeded run order, model checks,
          the dry-run estimate
store     arm A's transcript store (SQLite, stdlib)
retriever arm A's client-side retriever over the same documents arm B uploads
arms      one conversation run per arm, through the real openai SDK
manifest  the results folder's manifest (seed, sample, order, times, progress)
runner    drives the plan: progress, Ctrl-C to a whole stop, --resume
steps     plan, the arms' clients, retrieval set up and torn down, execute
demo      the same against the simulator (`traceview demo --ab`)
"""
