"""The report's chapters, one module each; each ``story(design, ...)`` returns its flowables.

cover (title and headline figures), plans (site and hall plans), power (budgets, energy, hottest racks,
floor load), network (switches and links per tier), cabling (media mix, lengths, longest links, fullest
trays; sections of the network chapter), bom, reliability, violations, assumptions (every figure used
and its source).
"""
