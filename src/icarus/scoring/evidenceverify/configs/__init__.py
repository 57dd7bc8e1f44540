"""The shipped EvidenceVerify versions, one immutable JSON file each."""
