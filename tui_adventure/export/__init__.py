"""Worlds written out in other planners' languages (PDDL), so their plans can be checked against our par."""
