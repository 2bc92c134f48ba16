"""A real two-node Ray cluster on loopback, for the Ray executor's tests and benchmark."""
