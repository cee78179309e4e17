"""The proxy's defaults, which ``traceview proxy --help`` shows: constants that import
nothing, so the command's parser is built (and ``--help`` answers) without the `[proxy]`
extra, whose absence ``traceview proxy`` then names when run."""

DEFAULT_TIMEOUT = 600.0  # the openai SDK's own default
LOOPBACK = "127.0.0.1"
