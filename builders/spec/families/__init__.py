"""The task families of the benchmark, one module each (its record, its task records, its task list)."""
