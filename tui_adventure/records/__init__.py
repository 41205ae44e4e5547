"""clemcore 3.7.2's records tree: its files and reading them back (``files``), one episode written as it is
played (``recorder``), an unfinished episode read back (``resume``), and scores.json (``scorer``)."""
