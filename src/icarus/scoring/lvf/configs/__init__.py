"""The shipped LVF methodology versions, one immutable JSON file each."""
