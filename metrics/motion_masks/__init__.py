"""Motion masks by background subtraction, their lossy video storage, and overlap measures."""
