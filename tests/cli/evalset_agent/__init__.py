"""An agent for `tracegrade score --evalset` tests, laid out as `adk eval` loads one."""

from . import agent  # noqa: F401  `adk eval` reads `agent.root_agent` from the package
