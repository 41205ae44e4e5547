"""Human-baseline studies: a participant plays a queue of worlds blind, and is compared with models.

``spec.py`` reads and checks the study file; ``queue.py`` is one
participant's way through it (order, resume, a session per world). The
front ends (``repl.run_study``, ``screens/study.py``) only draw it.
"""

from .queue import Stage, StudyRun, check_participant, latin_row
from .spec import Entry, Study, load_study

__all__ = ["Entry", "Stage", "Study", "StudyRun", "check_participant", "latin_row", "load_study"]
