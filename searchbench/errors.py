"""The one exception type the benchmark raises for problems a user can fix."""


class BenchError(Exception):
    """A one-line, user-facing error: it names the thing that is wrong and the fix."""
