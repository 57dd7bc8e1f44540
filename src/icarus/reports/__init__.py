"""Report rendering. Every renderer reads the same result shape that ``icarus score --json`` prints."""
