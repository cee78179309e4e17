"""How long and how far a provider read goes by default: apart from client.py and fetch.py so
a command's flags can name them without importing the SDK (`report` offers `--live`, and a
report that never reads the provider must not load it)."""

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RETRIES = 2
DEFAULT_MAX_PAGES = 1000  # 100,000 items: far beyond any real conversation, still bounded
