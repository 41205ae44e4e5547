"""Everything about clembench's file formats: instances, records, scores, results."""
