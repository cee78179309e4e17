"""The inspector's screens, one module per screen; only the turns view is imported at
start-up (the app imports the others when they are first opened)."""
