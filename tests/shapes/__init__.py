"""Generated captures of known shapes, shared by the tests and the bench scripts: the
hosted-state shape (many small turns), a fleet of per-conversation files, big turns."""
