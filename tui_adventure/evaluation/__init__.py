"""``adventure eval``: the results table like ``clem eval`` (``results``), people against models
(``comparison``, ``paired``), results.html (``report``, its charts in ``charts``, a study's own analysis in
``study_stats``), and the one CSV writer (``csv_out``)."""
