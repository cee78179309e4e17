"""The widgets the screens are built from: the row table, the chart, the title bar, the
footer, the JSON tree and the text of a turn's account."""
