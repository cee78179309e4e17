"""Cost that matches the bill (issue 33): a turn's price by processing tier and hosted tool
fees (price.py), each priced line by day and line item for reconciliation (lines.py), who
each turn was for (attribution.py), storage accrued by provider objects (storage.py), and a
capture's rates scaled to a month (volume.py).
"""
