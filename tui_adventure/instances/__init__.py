"""clembench's adventuregame instances: their format to and from world files (``convert``), the 128 that
ship with the package (``packaged``), and upstream's quirks a faithful replay keeps (``feedback``: a failed
command's feedback; ``canonical``: observations compared modulo upstream's set order)."""
